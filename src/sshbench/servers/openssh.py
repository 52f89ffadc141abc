"""The embedded server: a private OpenSSH sshd on 127.0.0.1, run as the invoking user.

sshbench owns the listening socket and starts `sshd -i` for each accepted
connection, so the server side of every connection is our own child: its CPU
time (user and system, including the privsep child, the session shell and
the sink/source tools it waited for) comes exact from os.wait4, with no
sampling and no /proc arithmetic. Everything lives in one private temp dir
(0700): host keys of every type, the client key, known_hosts, both configs
and the server log. `stop()` removes it and kills any server still running;
the context manager guarantees that on success, error and Ctrl-C.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType

from sshbench.algorithms import ALGORITHM_KINDS, Kind, needs_certificate
from sshbench.discovery import (
    AlgorithmLists,
    ClientInfo,
    ServerInfo,
    dump_server_config,
    find_tool,
    lists_from_dump,
    parse_dump,
    run_tool,
    sshd_version,
)
from sshbench.errors import ServerError
from sshbench.procfs import tree_cpu_seconds

HOST_ALIAS = "sshbench-embedded"
PRIVSEP_DIR = "/run/sshd"  # Debian's compiled-in privilege separation dir (root only)
# Connects with TCP_NODELAY and passes the socket to ssh: see fdpass.py for the 40 ms stall it avoids.
FDPASS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fdpass.py")

# Host key files to generate: (file suffix, ssh-keygen arguments, required?)
_HOST_KEYS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("ed25519", ("-t", "ed25519"), True),
    ("ecdsa256", ("-t", "ecdsa", "-b", "256"), False),
    ("ecdsa384", ("-t", "ecdsa", "-b", "384"), False),
    ("ecdsa521", ("-t", "ecdsa", "-b", "521"), False),
    ("rsa", ("-t", "rsa", "-b", "3072"), False),
    ("dsa", ("-t", "dsa"), False),  # gone in OpenSSH 10; measured only where it exists
)

# Which host key file serves which signature algorithm.
_KEY_FOR_SIG = {
    "ssh-ed25519": "ed25519",
    "ecdsa-sha2-nistp256": "ecdsa256",
    "ecdsa-sha2-nistp384": "ecdsa384",
    "ecdsa-sha2-nistp521": "ecdsa521",
    "rsa-sha2-512": "rsa",
    "rsa-sha2-256": "rsa",
    "ssh-rsa": "rsa",
    "ssh-dss": "dsa",
}

_KEYWORD = {Kind.CIPHER: "Ciphers", Kind.MAC: "MACs", Kind.KEX: "KexAlgorithms", Kind.HOSTKEY: "HostKeyAlgorithms"}


@dataclass(frozen=True)
class ServerProcess:
    """One `sshd -i` that served one connection, as reaped by wait4."""

    peer_port: int
    exit_status: int
    cpu_user_s: float
    cpu_sys_s: float
    wall_s: float


class EmbeddedOpenSSH:
    """Start with `with EmbeddedOpenSSH(client) as server:`; everything is gone after the block."""

    def __init__(self, client: ClientInfo, sshd_path: str | None = None, keygen_path: str | None = None,
                 enable: AlgorithmLists | None = None, env: Mapping[str, str] | None = None) -> None:
        """`enable` restricts what the server offers (tests use it to make the server refuse a name);
        `env` is added to each sshd's environment (the OpenSSL capability mask of --no-aesni)."""
        self.env = {**os.environ, **(env or {})}
        self.client = client
        self.sshd = find_tool("sshd", sshd_path)
        self.keygen = find_tool("ssh-keygen", keygen_path)
        self._enable = enable
        self.user = getpass.getuser()
        self.dir: str | None = None
        self.port = 0
        self.info: ServerInfo | None = None
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._lock = threading.Condition()
        self._live: dict[int, subprocess.Popen[bytes]] = {}
        self._done: dict[int, ServerProcess] = {}
        self._pid_of_port: dict[int, int] = {}
        self._stopping = False
        self._created_privsep_dir = False
        self._keys: dict[str, str] = {}
        self.defaults = AlgorithmLists()  # this sshd's compiled-in preference lists

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> EmbeddedOpenSSH:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="sshbench-")  # mkdtemp makes it 0700
        self._ensure_privsep_dir()
        keys = self._generate_keys()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))  # loopback only, a free port
        self._listener.listen(8)
        self.port = self._listener.getsockname()[1]
        self._keys = keys
        self.info = self._write_server_config(keys)
        self.defaults = self._compiled_defaults(keys)
        self._write_client_files(keys)
        self._accept_thread = threading.Thread(target=self._accept_loop, name="sshbench-accept", daemon=True)
        self._accept_thread.start()

    def stop(self) -> None:
        """Idempotent: close the listener, end every sshd child, remove the temp dir."""
        self._stopping = True
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
        if self._accept_thread is not None:
            self._accept_thread.join(timeout=5)
        # os.kill, not Popen.send_signal/kill: those poll() first, which can reap the child under the
        # reaper thread's wait4 and lose its CPU figures (seen once in CI as ECHILD in the reaper).
        # Under the lock a pid in _live has not been popped by its reaper yet.
        self._signal_live(signal.SIGTERM)
        deadline = time.monotonic() + 5
        with self._lock:
            while self._live and time.monotonic() < deadline:
                self._lock.wait(0.1)
        self._signal_live(signal.SIGKILL)
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        if self._created_privsep_dir:
            with contextlib.suppress(OSError):
                os.rmdir(PRIVSEP_DIR)
            self._created_privsep_dir = False

    # ------------------------------------------------------------ set-up

    def _path(self, name: str) -> str:
        assert self.dir is not None
        return os.path.join(self.dir, name)

    def _ensure_privsep_dir(self) -> None:
        """sshd started by root insists on its empty chroot dir; make it only if missing, remove it after."""
        if os.geteuid() != 0 or os.path.isdir(PRIVSEP_DIR):
            return
        try:
            os.mkdir(PRIVSEP_DIR, 0o755)
        except OSError as exc:
            raise ServerError(f"sshd run as root needs {PRIVSEP_DIR} and it cannot be created: {exc.strerror}") from exc
        self._created_privsep_dir = True

    def _generate_keys(self) -> dict[str, str]:
        """All host keys plus the client key, made in parallel: RSA-3072 alone takes ~0.5 s."""
        jobs: dict[str, tuple[subprocess.Popen[bytes], bool]] = {}
        for suffix, args, required in (*_HOST_KEYS, ("client", ("-t", "ed25519"), True)):
            prefix = "client_" if suffix == "client" else "host_"
            path = self._path(prefix + ("ed25519" if suffix == "client" else suffix))
            argv = [self.keygen, "-q", *args, "-N", "", "-C", f"sshbench-{suffix}", "-f", path]
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)
            jobs[suffix] = (proc, required)
        keys: dict[str, str] = {}
        for suffix, (proc, required) in jobs.items():
            _, err = proc.communicate(timeout=60)
            path = self._path("client_ed25519" if suffix == "client" else "host_" + suffix)
            if proc.returncode == 0:
                keys[suffix] = path
            elif required:
                raise ServerError(f"ssh-keygen could not make the {suffix} key: {err.decode(errors='replace').strip()}")
        return keys

    def _server_hostkey_algs(self, keys: dict[str, str]) -> list[str]:
        return [sig for sig in self.client.supported.hostkey
                if not needs_certificate(sig) and _KEY_FOR_SIG.get(sig) in keys]

    def _config_text(self, keys: dict[str, str], lists: AlgorithmLists) -> str:
        host_keys = "\n".join(f"HostKey {path}" for name, path in keys.items() if name != "client")
        return f"""# sshbench embedded server: private, loopback-only, key auth only.
ListenAddress 127.0.0.1
Port {self.port}
{host_keys}
PidFile none
AuthorizedKeysFile {self._path('authorized_keys')}
AllowUsers {self.user}
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
HostbasedAuthentication no
UsePAM no
StrictModes no
UseDNS no
# Allowed, not forced: each client connection asks for it (sshbench --compression) or not.
Compression yes
PermitTTY no
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
AllowStreamLocalForwarding no
PermitTunnel no
PrintMotd no
PrintLastLog no
LoginGraceTime 30
LogLevel INFO
Subsystem sftp internal-sftp
""" + "".join(f"{_KEYWORD[kind]} {','.join(lists.of(kind))}\n" for kind in ALGORITHM_KINDS if lists.of(kind))

    def _write_server_config(self, keys: dict[str, str]) -> ServerInfo:
        """Enable every name the client knows (legacy ones too), drop the ones this sshd rejects."""
        wanted = self._enable or self.client.supported
        lists = AlgorithmLists(
            cipher=wanted.cipher, mac=wanted.mac, kex=wanted.kex,
            hostkey=tuple(a for a in self._server_hostkey_algs(keys) if a in wanted.hostkey),
        )
        config = self._path("sshd_config")
        with open(config, "w", encoding="utf-8") as fh:
            fh.write(self._config_text(keys, lists))
        dump = dump_server_config(self.sshd, config)
        if dump.returncode != 0:
            # A different sshd build than the client: keep only the names it accepts.
            lists = AlgorithmLists(**{kind.value: self._accepted(keys, kind, lists.of(kind))
                                      for kind in ALGORITHM_KINDS})
            with open(config, "w", encoding="utf-8") as fh:
                fh.write(self._config_text(keys, lists))
            dump = dump_server_config(self.sshd, config)
            if dump.returncode != 0:
                raise ServerError(f"{self.sshd} rejects the generated config: {dump.stderr.strip()[-300:]}")
        version, openssl = sshd_version(self.sshd)
        parsed = parse_dump(dump.stdout)
        return ServerInfo(
            path=self.sshd, version=version, openssl=openssl, enabled=lists_from_dump(parsed),
            host_key_types=tuple(k for k in keys if k != "client"),
        )

    def _compiled_defaults(self, keys: dict[str, str]) -> AlgorithmLists:
        """What this sshd offers with no algorithm lines at all: its compiled-in defaults."""
        probe = self._path("sshd_config.defaults")
        with open(probe, "w", encoding="utf-8") as fh:
            fh.write(self._config_text(keys, AlgorithmLists()))
        dump = dump_server_config(self.sshd, probe)
        return lists_from_dump(parse_dump(dump.stdout)) if dump.returncode == 0 else AlgorithmLists()

    def check_dropin(self, text: str) -> subprocess.CompletedProcess[str]:
        """`sshd -t` then `sshd -T` of a config that Includes `text` as a drop-in, as sshd_config.d would."""
        dropin, config = self._path("50-sshbench.conf"), self._path("sshd_config.dropin-check")
        with open(dropin, "w", encoding="utf-8") as fh:
            fh.write(text)
        with open(config, "w", encoding="utf-8") as fh:
            fh.write(f"Include {dropin}\n" + self._config_text(self._keys, AlgorithmLists()))
        test = run_tool([self.sshd, "-t", "-f", config])
        return test if test.returncode != 0 else dump_server_config(self.sshd, config)

    def _accepted(self, keys: dict[str, str], kind: Kind, names: tuple[str, ...]) -> tuple[str, ...]:
        """Test names one at a time against a config without any algorithm lines (slow path only)."""
        probe = self._path("sshd_config.probe")
        with open(probe, "w", encoding="utf-8") as fh:
            fh.write(self._config_text(keys, AlgorithmLists()))
        keyword = _KEYWORD[kind]
        return tuple(n for n in names
                     if dump_server_config(self.sshd, probe, ["-o", f"{keyword}={n}"]).returncode == 0)

    def _write_client_files(self, keys: dict[str, str]) -> None:
        with open(self._path("client_ed25519.pub"), encoding="utf-8") as src, \
                open(self._path("authorized_keys"), "w", encoding="utf-8") as dst:
            dst.write(src.read())
        with open(self._path("known_hosts"), "w", encoding="utf-8") as fh:
            for name, path in keys.items():
                if name == "client":
                    continue
                with open(path + ".pub", encoding="utf-8") as pub:
                    key_type, blob = pub.read().split()[:2]
                fh.write(f"{HOST_ALIAS} {key_type} {blob}\n")
        with open(self.client_config, "w", encoding="utf-8") as fh:
            fh.write(f"""# sshbench client config for the embedded server; ~/.ssh is never read or written.
Host {HOST_ALIAS}
  HostName 127.0.0.1
  Port {self.port}
  User {self.user}
  HostKeyAlias {HOST_ALIAS}
  IdentityFile {self._path('client_ed25519')}
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile {self._path('known_hosts')}
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  CheckHostIP no
  BatchMode yes
  PasswordAuthentication no
  KbdInteractiveAuthentication no
  Compression no
  ControlMaster no
  ControlPath none
  ForwardAgent no
  ForwardX11 no
  ClearAllForwardings yes
  RequestTTY no
  EscapeChar none
  AddressFamily inet
  ConnectTimeout 15
  ProxyCommand {shlex.quote(sys.executable)} -S {shlex.quote(FDPASS)} %h %p
  ProxyUseFdpass yes
""")

    @property
    def client_config(self) -> str:
        return self._path("ssh_config")

    @property
    def log_path(self) -> str:
        return self._path("sshd.log")

    # ------------------------------------------------------------ serving

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping:
            try:
                conn, (_, peer_port) = self._listener.accept()
            except OSError:
                return  # listener closed by stop()
            try:
                self._serve(conn, peer_port)
            finally:
                conn.close()  # the child holds its own copy

    def _serve(self, conn: socket.socket, peer_port: int) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        argv = [self.sshd, "-i", "-f", self._path("sshd_config"), "-E", self.log_path]
        with self._lock:
            if self._stopping:
                return
            proc = subprocess.Popen(argv, stdin=conn.fileno(), stdout=conn.fileno(),
                                    stderr=subprocess.DEVNULL, close_fds=True, env=self.env)
            self._live[proc.pid] = proc
            self._pid_of_port[peer_port] = proc.pid
        threading.Thread(target=self._reap, args=(proc, peer_port, time.monotonic()),
                         name=f"sshbench-reap-{proc.pid}", daemon=True).start()

    def _signal_live(self, sig: signal.Signals) -> None:
        with self._lock:
            for pid in list(self._live):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)

    def _reap(self, proc: subprocess.Popen[bytes], peer_port: int, started: float) -> None:
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except ChildProcessError:  # reaped elsewhere: no rusage, so no record rather than a made-up one
            record = None
        else:
            proc.returncode = os.waitstatus_to_exitcode(status)  # tell Popen it is reaped
            record = ServerProcess(peer_port=peer_port, exit_status=proc.returncode, cpu_user_s=usage.ru_utime,
                                   cpu_sys_s=usage.ru_stime, wall_s=time.monotonic() - started)
        with self._lock:
            self._live.pop(proc.pid, None)
            self._pid_of_port.pop(peer_port, None)
            if record is not None:
                self._done[peer_port] = record
            self._lock.notify_all()

    def server_process(self, peer_port: int, timeout: float = 10.0) -> ServerProcess | None:
        """The reaped server of the connection from `peer_port`; waits for sshd to exit."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while peer_port not in self._done:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._lock.wait(remaining)
            return self._done.pop(peer_port)

    def server_cpu_so_far(self, peer_port: int) -> float | None:
        """CPU used until now by the live server of this connection (None if it is gone or /proc can't say)."""
        with self._lock:
            pid = self._pid_of_port.get(peer_port)
        return None if pid is None else tree_cpu_seconds(pid)

    def log_tail(self, lines: int = 5) -> list[str]:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as fh:
                return fh.read().splitlines()[-lines:]
        except OSError:
            return []
