"""`sshbench clients record` and `clients check` as users meet them: real clients, real sshd, every rough edge one
line (or the obvious behaviour)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sshbench.targets.servers.privsep import PrivsepDir
from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench
from tests.integration.test_hostile import assert_one_clean_line

pytestmark = pytest.mark.integration

SSH = ["ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=/dev/null"]
# A hand-written drop-in an admin might copy from a hardening guide: curve25519 only, AEAD ciphers, EtM MACs
HARDENED = """KexAlgorithms curve25519-sha256,curve25519-sha256@libssh.org
Ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com
MACs hmac-sha2-512-etm@openssh.com,hmac-sha2-256-etm@openssh.com
"""


@pytest.mark.parametrize("given", ["absolute", "relative"])
def test_clients_check_names_who_a_hand_written_drop_in_shuts_out(given: str, tmp_path: Path) -> None:
    """A config named as a user types it, relative to the shell's directory too (sshd -T runs where
    /run/sshd is private, and its working directory is not the user's)."""
    dropin = tmp_path / "hardened.conf"
    dropin.write_text(HARDENED)
    done = sshbench("clients", "check", str(dropin) if given == "absolute" else dropin.name, cwd=tmp_path)
    assert done.returncode == ExitCode.LOCKOUT, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.split()[:1]}
    assert "SHUT OUT: no common key exchange" in rows["paramiko-2.4.3"]
    assert "SHUT OUT" in rows["jsch-0.1.55"]
    assert "logs in: curve25519" in rows["russh-0.65.1"] and "logs in:" in rows["openssh-9.2p1"]
    assert "SHUTS OUT" in done.stdout.splitlines()[-1] and "paramiko-2.4.3" in done.stdout.splitlines()[-1]


def test_clients_check_reads_a_saved_sshd_T_of_a_running_server_too(tmp_path: Path) -> None:
    """What `sshd -T` prints on the server, copied here: read as it is, no sshd run on it."""
    dropin = tmp_path / "hardened.conf"
    dropin.write_text(HARDENED)
    key = tmp_path / "hk"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    with PrivsepDir() as privsep:  # as root sshd -T wants /run/sshd: wrap runs it where sshbench gives it one
        dump = subprocess.run(privsep.wrap([sshd, "-T", "-f", str(dropin), "-o", f"HostKey={key}", "-o",
                                            "PidFile=none"]), capture_output=True, text=True, check=True).stdout
    saved = tmp_path / "sshd-T.txt"
    saved.write_text(dump)
    done = sshbench("clients", "check", str(saved), "--clients", "paramiko,russh", cwd=tmp_path)
    assert done.returncode == ExitCode.LOCKOUT, done.stderr
    assert "read as a saved `sshd -T` output" in done.stdout
    assert "checked against 5 clients" in done.stdout  # four paramiko releases (1.18.5 to 5.1.0) and russh


def test_clients_check_of_a_stock_config_shuts_nobody_out(tmp_path: Path) -> None:
    empty = tmp_path / "empty.conf"
    empty.write_text("# nothing set: the sshd's own defaults\n")
    done = sshbench("clients", "check", str(empty), cwd=tmp_path)
    assert done.returncode == ExitCode.OK, done.stdout[-2000:] + done.stderr
    assert "each of them that logs in to a stock server still can" in done.stdout


@pytest.mark.parametrize("content, words", [
    (None, "cannot read"),
    ("Ciphers rot13\n", "-T refuses"),
])
def test_clients_check_of_a_bad_config_is_one_line(content: str | None, words: str, tmp_path: Path) -> None:
    config = tmp_path / "c.conf"
    if content is not None:
        config.write_text(content)
    assert_one_clean_line(sshbench("clients", "check", str(config), cwd=tmp_path), ExitCode.USAGE, words)


def test_record_a_missing_program_is_one_line(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "ghost", "-o", str(tmp_path / "g.json"), "--", "/nonexistent/bin", "{port}",
                    cwd=tmp_path)
    assert_one_clean_line(done, ExitCode.MISSING_TOOL, "cannot run /nonexistent/bin")
    assert not (tmp_path / "g.json").exists()


def test_record_shows_what_the_client_said_when_it_fails(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "typo", "-o", str(tmp_path / "t.json"), "--", *SSH, "-o", "Bogus=1", "-p",
                    "{port}", "127.0.0.1", "true", cwd=tmp_path)
    assert_one_clean_line(done, ExitCode.SERVER, "Bad configuration option: bogus")


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6 here")
@pytest.mark.parametrize("listen", ["::1", "[::1]:0"])
def test_record_listens_on_ipv6(listen: str, tmp_path: Path) -> None:
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        pytest.skip("::1 is not configured here")
    out = tmp_path / "v6.json"
    done = sshbench("clients", "record", "v6", "-o", str(out), "--listen", listen, "--", *SSH, "-6", "-p", "{port}",
                    "::1", "true", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["banner"].startswith("SSH-2.0-OpenSSH")


_GREETER = """import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"SSH-2.0-half\\r\\n")
if sys.argv[2] == "empty":  # a KEXINIT packet whose ten lists are all empty
    payload = bytes([20]) + bytes(16) + struct.pack(">I", 0) * 10 + bytes([0]) + bytes(4)
    pad = 8 - (len(payload) + 5) % 8 + 8
    s.sendall(struct.pack(">IB", len(payload) + pad + 1, pad) + payload + bytes(pad))
time.sleep(30)
"""


def test_record_a_greeting_without_a_kexinit_names_the_timeout(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "half", "-o", str(tmp_path / "h.json"), "--timeout", "2", "--",
                    sys.executable, "-c", _GREETER, "{port}", "banner", cwd=tmp_path)
    assert_one_clean_line(done, ExitCode.SERVER, "sent its banner but no KEXINIT within 2s (the --timeout)")


def test_record_an_empty_kexinit_is_refused_not_saved(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "empty", "-o", str(tmp_path / "e.json"), "--", sys.executable, "-c",
                    _GREETER, "{port}", "empty", cwd=tmp_path)
    assert_one_clean_line(done, ExitCode.USAGE, "offers no key exchange")
    assert not (tmp_path / "e.json").exists()


def test_a_recording_keeps_no_trace_of_a_password_on_the_command_line(tmp_path: Path) -> None:
    """curl's libssh2 with `-u user:password` and a URL with userinfo: neither reaches the file nor the screen."""
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    out = tmp_path / "curl.json"
    done = sshbench("clients", "record", "curl-libssh2", "-o", str(out), "--", "curl", "-s", "--insecure", "-u",
                    "alice:Sup3rSecret", "sftp://bob:An0therSecret@127.0.0.1:{port}/x", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for secret in ("Sup3rSecret", "An0therSecret", "alice", "bob"):
        assert secret not in out.read_text() and secret not in done.stdout + done.stderr, secret
    assert "the program 'curl'" in json.loads(out.read_text())["source"]


def test_record_names_the_client_s_own_error_not_its_usage_text(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "typo", "-o", str(tmp_path / "t.json"), "--", *SSH, "-Z", "-p", "{port}",
                    "x@127.0.0.1", cwd=tmp_path)
    assert done.returncode != 0 and "unknown option -- Z" in done.stderr, done.stderr


def test_a_dropbear_client_is_recorded_without_needing_a_common_mac(tmp_path: Path) -> None:
    if shutil.which("dbclient") is None:
        pytest.skip("dbclient (dropbear-bin) is not installed")
    out = tmp_path / "db.json"
    done = sshbench("clients", "record", "mydb", "-o", str(out), "--", "dbclient", "-y", "-p", "{port}",
                    "x@127.0.0.1", "true", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["mac_with_aead"] is False, "Dropbear agrees on AEAD without a common MAC"


def test_user_recordings_are_read_shown_and_never_shadow_a_shipped_client(tmp_path: Path) -> None:
    shipped = json.loads(sshbench("clients", "show", "paramiko-5.1.0").stdout)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "paramiko-5.1.0.json").write_text(json.dumps({**shipped, "used_by": "an impostor"}))
    done = sshbench("clients", "check", str(tmp_path / "none.conf"), "--clients", str(mine), cwd=tmp_path)
    assert done.returncode == ExitCode.USAGE and "is a client sshbench ships" in done.stderr, done.stderr
    ours = {**shipped, "name": "agent-1.0", "used_by": "our agent"}
    (mine / "paramiko-5.1.0.json").unlink()
    (mine / "agent-1.0.json").write_text(json.dumps(ours))
    (mine / "notes.json").write_text('{"not": "a recording"}')
    shown = sshbench("clients", "show", str(mine / "agent-1.0.json"), cwd=tmp_path)
    assert shown.returncode == 0 and json.loads(shown.stdout)["name"] == "agent-1.0", shown.stderr
    config = tmp_path / "stock.conf"
    config.write_text("# nothing set\n")
    done = sshbench("clients", "check", str(config), "--clients", str(mine), cwd=tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr
    assert "skipped --clients" in done.stderr and "notes.json" in done.stderr, "named once, then skipped"
    assert "agent-1.0" in done.stdout
    assert "the config names no HostKey, so sshd's defaults apply" in " ".join(done.stdout.split())
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "loop.json").symlink_to(empty / "loop.json")
    done = sshbench("clients", "check", str(config), "--clients", str(empty), cwd=tmp_path)
    assert done.returncode == ExitCode.USAGE and "no client recording in that directory" in done.stderr
