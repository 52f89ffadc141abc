"""The embedded server is real, private, loopback-only and leaves nothing behind."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sshbench.plumbing.kexinit import kexinit_over
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.inetd import LOGGED, LOOPBACK, PROCESS, UNCOMPRESSED, Inetd, announce
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.targets.servers.privsep import PRIVSEP_DIR, PrivsepDir
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.errors import ServerError
from tests.conftest import leftovers, our_processes

pytestmark = pytest.mark.integration


def test_private_dir_keys_and_loopback_listener(server: EmbeddedOpenSSH) -> None:
    assert server.dir is not None
    assert stat.S_IMODE(os.stat(server.dir).st_mode) == 0o700
    assert server.info is not None
    assert {"ed25519", "ecdsa256", "rsa"} <= set(server.info.host_key_types)
    with open(os.path.join(server.dir, "sshd_config"), encoding="utf-8") as fh:
        config = fh.read()
    assert "PasswordAuthentication no" in config and "ListenAddress 127.0.0.1" in config
    # Not reachable on any address but loopback.
    assert server.inetd is not None and server.inetd.address == "127.0.0.1"


def test_every_client_algorithm_is_enabled_legacy_included(server: EmbeddedOpenSSH, client: ClientInfo) -> None:
    assert server.info is not None
    enabled = server.info.enabled
    assert set(enabled.cipher) == set(client.supported.cipher)
    assert set(enabled.mac) == set(client.supported.mac)
    assert set(enabled.kex) == set(client.supported.kex)
    assert "3des-cbc" in enabled.cipher and "diffie-hellman-group1-sha1" in enabled.kex
    assert "ssh-ed25519" in enabled.hostkey and "rsa-sha2-512" in enabled.hostkey


def test_connection_cpu_is_measured_by_wait4(server: EmbeddedOpenSSH, client: ClientInfo) -> None:
    out = subprocess.run([client.path, "-F", server.client_config, HOST_ALIAS, "echo R $SSH_CLIENT"],
                         capture_output=True, text=True, timeout=30, check=True, stdin=subprocess.DEVNULL).stdout
    port = int(out.split()[2])
    record = server.server_process(port)
    assert record is not None and record.peer_port == port
    assert record.cpu_user_s + record.cpu_sys_s > 0


def test_never_reads_or_writes_the_users_ssh_files(server: EmbeddedOpenSSH) -> None:
    with open(server.client_config, encoding="utf-8") as fh:
        config = fh.read()
    assert "~/.ssh" not in config.replace("# sshbench client config for the embedded server; ~/.ssh", "")
    assert f"UserKnownHostsFile {server.dir}" in config and "GlobalKnownHostsFile /dev/null" in config
    assert "IdentityAgent none" in config and "BatchMode yes" in config


def test_stop_kills_servers_and_removes_everything(client: ClientInfo) -> None:
    srv = EmbeddedOpenSSH(client)
    srv.start()
    directory = srv.dir
    assert directory is not None
    # A connection that is still open when stop() runs: its sshd must not survive.
    try:
        sock = srv.connect()
        sock.recv(64)  # banner: sshd -i is running
        assert our_processes(directory)  # sshd -i is serving it
    finally:
        srv.stop()
    sock.close()
    assert not os.path.exists(directory)
    assert not leftovers(directory)
    srv.stop()  # idempotent


@pytest.mark.skipif(os.geteuid() != 0, reason="the privsep dir matters only for root")
def test_root_privsep_dir_is_had_without_touching_the_system_s(client: ClientInfo) -> None:
    """Root's sshd gets its /run/sshd in sshbench's own mount namespace where the system has none (or the
    system's, as it is): the system's /run is the same before, during and after, and the server serves."""
    before = os.path.lexists(PRIVSEP_DIR) and os.lstat(PRIVSEP_DIR)
    with EmbeddedOpenSSH(client) as srv:
        assert srv._privsep.how in ("system", "namespace")
        during = os.path.lexists(PRIVSEP_DIR) and os.lstat(PRIVSEP_DIR)
        assert server_says(client, srv) == "ok"
    after = os.path.lexists(PRIVSEP_DIR) and os.lstat(PRIVSEP_DIR)
    assert srv._privsep.how == "none"
    if not before or before.st_mode & 0o7777 != 0o711:  # (a 0711 one is an older sshbench's, or a run's beside)
        assert [bool(before), bool(during), bool(after)] == [bool(before)] * 3


def server_says(client: ClientInfo, srv: EmbeddedOpenSSH) -> str:
    done = subprocess.run([client.path, "-F", srv.client_config, HOST_ALIAS, "echo ok"], capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL, check=False)
    return done.stdout.strip() or done.stderr


def test_restricted_server_offers_only_what_it_is_told(client: ClientInfo) -> None:
    sup = client.supported
    enable = type(sup)(cipher=("aes128-ctr",), mac=sup.mac, kex=sup.kex, hostkey=sup.hostkey)
    with EmbeddedOpenSSH(client, enable=enable) as srv:
        assert srv.info is not None and srv.info.enabled.of(Kind.CIPHER) == ("aes128-ctr",)


def test_broken_sshd_is_a_clear_server_error(client: ClientInfo, tmp_path: os.PathLike[str]) -> None:
    fake = os.path.join(tmp_path, "sshd")
    with open(fake, "w", encoding="utf-8") as fh:
        # says it is OpenSSH (for -?), then rejects every config (-T)
        fh.write("#!/bin/sh\necho 'OpenSSH_9.9p1, OpenSSL 3.0.0' >&2\necho 'bad configuration' >&2\nexit 255\n")
    os.chmod(fake, 0o755)
    with pytest.raises(ServerError, match="rejects the generated config"):
        EmbeddedOpenSSH(client, sshd_path=fake).__enter__()


def test_connections_sshbench_did_not_open_get_no_sshd(server: EmbeddedOpenSSH, client: ClientInfo) -> None:
    """Another local process knocking 40 times: no sshd for any of them, each closed at once, all counted."""
    assert server.inetd is not None and server.dir is not None
    before = server.strangers
    knocks = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(40)]
    try:
        for sock in knocks:
            assert sock.recv(64) == b"", "a stranger got a banner: an sshd was started for it"
        assert server.inetd.running == 0
    finally:
        for sock in knocks:
            sock.close()
    assert server.strangers - before == 40
    done = subprocess.run([client.path, "-F", server.client_config, HOST_ALIAS, "echo ok"], capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL, check=False)
    assert done.stdout.strip() == "ok", done.stderr  # sshbench's own connections are still served


def test_a_stale_announcement_is_not_an_invitation(server: EmbeddedOpenSSH) -> None:
    """An announced port is good for one connection from that port, on loopback, soon."""
    assert server.inetd is not None
    sock = server.connect()
    assert sock.recv(8).startswith(b"SSH-")
    sock.close()
    assert not os.listdir(server.inetd.expect_dir), "the announcement was used up"


@pytest.mark.parametrize(("note", "offered"), [("", ("none", "zlib@openssh.com")),
                                               (f"{LOGGED} {UNCOMPRESSED}", ("none",)),
                                               (f"{UNCOMPRESSED} bogus", ("none",)),
                                               ("bogus", ("none", "zlib@openssh.com"))])
def test_an_announcement_s_words_choose_the_server_s_arguments(server: EmbeddedOpenSSH, note: str,
                                                              offered: tuple[str, ...]) -> None:
    """`uncompressed` serves the connection as a server without compression (a client that always asks for zlib,
    dbclient, then agrees on none); a word no launcher declared is ignored, never passed on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        announce(server.expect_dir, sock.getsockname()[1], note)
        sock.settimeout(10)
        sock.connect((LOOPBACK, server.port))
        kexinit = kexinit_over(sock.dup(), "embedded sshd")
    assert kexinit.compression_c2s == kexinit.compression_s2c == offered


_CONNECTS = """import socket, sys
sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)  # an ephemeral port, never bound first
sock.settimeout(10)
print(sock.recv(8).decode(errors="replace"), flush=True)
"""


def test_a_connection_announced_by_its_process_is_served_and_another_process_s_is_not(
        server: EmbeddedOpenSSH) -> None:
    """A client that cannot bind its source port first (PuTTY's plink) is announced by its pid (PROCESS): its
    connection is served, with the announcement's words, and the announcement used up; a connection from a process
    nobody announced is a stranger's, even while another process's announcement waits."""
    assert server.inetd is not None
    announcer = f"import os, sys; open(os.path.join(sys.argv[2], '{PROCESS}' + str(os.getpid())), 'w').write('log')\n"
    done = subprocess.run([sys.executable, "-c", announcer + _CONNECTS, str(server.port), server.expect_dir],
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0 and done.stdout.startswith("SSH-2.0"), done.stderr
    assert not [n for n in os.listdir(server.expect_dir) if n.startswith(PROCESS)], "the announcement was used up"
    before = server.strangers
    waiting = os.path.join(server.expect_dir, f"{PROCESS}{os.getpid()}")  # this process's: it never connects
    Path(waiting).write_text("")
    try:
        other = subprocess.run([sys.executable, "-c", _CONNECTS, str(server.port)], capture_output=True, text=True,
                               timeout=30, check=False)
        assert other.stdout.strip() == "" and server.strangers == before + 1, other.stdout
        assert os.path.exists(waiting), "another process's announcement is not used up by a stranger"
    finally:
        os.unlink(waiting)


@pytest.mark.parametrize("system_dir", [False, True])
def test_privsep_dir_is_shared_and_removed_by_the_last_run(tmp_path: Path, system_dir: bool) -> None:
    """Two runs at once: the first to finish must not remove the directory the second still needs."""
    path = str(tmp_path / "sshd")
    if system_dir:
        os.mkdir(path, 0o755)  # as the system's service makes it: never sshbench's to remove
    first, second = PrivsepDir(path, needed=True), PrivsepDir(path, needed=True)
    first.acquire()
    second.acquire()
    first.release()
    assert os.path.isdir(path), "removed while another run still used it"
    second.release()
    assert os.path.isdir(path) == system_dir
    third = PrivsepDir(path, needed=True)
    third.acquire()  # a later run makes it again (or finds the system's)
    assert os.path.isdir(path)
    third.release()
    assert os.path.isdir(path) == system_dir


def test_every_connection_s_server_is_reaped_by_its_own_wait4_while_other_processes_start(tmp_path: Path) -> None:
    """A Popen dropped while its child ran was polled by every later Popen (subprocess._cleanup), which reaped
    finished servers from under the reaper's wait4: 75 of 200 connections had no figures beside a thread that
    starts processes (as a run's other connections do); 2 of 200 samples failed so in a fresh-clone CI run."""
    inetd = Inetd(str(tmp_path / "expect"), dict(os.environ), admit_all=True)
    inetd.serve(["true"])  # a server that ends at once: the race's widest window
    starting = True

    def start_others() -> None:
        for _ in range(5000):  # bounded; ends with the connections below
            if not starting:
                return
            subprocess.Popen(["true"]).wait()

    others = threading.Thread(target=start_others)
    others.start()
    missing = 0
    try:
        for _ in range(60):
            with socket.create_connection(("127.0.0.1", inetd.port)) as sock:
                if inetd.server_process(sock.getsockname()[1], timeout=10) is None:
                    missing += 1
    finally:
        starting = False
        others.join(timeout=30)
        inetd.stop()
    assert missing == 0, f"{missing} of 60 connections' servers were reaped by someone else"
