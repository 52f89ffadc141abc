"""Real Dropbear and tinysshd servers for tests: loopback only, temp keys, and never the real ~/.ssh.

Both servers read `~/.ssh/authorized_keys` of the user who logs in and have
no option to read it elsewhere. So each runs in a private mount namespace
(`unshare --mount`, propagation private) in which a temp directory is bind-
mounted over the home directory: the server sees the test's own
authorized_keys, nothing outside the namespace changes, and the real ~/.ssh
is never read or created. That needs root (CI runs as root); without it the
tests that use these servers are skipped with the reason.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.integration.cli_helpers import free_port, wait_listening

START_SECONDS = 10.0
# Where scripts/install-deps --test unpacks tinysshd (its Debian package would enable a service on port 22).
UNPACKED = Path(__file__).resolve().parents[2] / ".venv" / "opt" / "usr" / "sbin"


def search_path() -> str:
    return os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", str(UNPACKED)])


@dataclass
class OtherServer:
    software: str  # dropbear | tinysshd
    port: int
    home: Path  # the temp home the server sees; holds the client's key too
    host_keys: dict[str, str]  # key type (ssh-ed25519, ssh-rsa) -> "type base64" public key line
    user: str

    def ssh_config(self, alias: str, known_hosts: Path) -> str:
        """A user's ssh config entry for this server, pinning its host keys to `known_hosts`."""
        return f"""Host {alias}
  HostName 127.0.0.1
  Port {self.port}
  User {self.user}
  IdentityFile {self.home}/id_ed25519
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile {known_hosts}
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
"""

    def known_hosts(self, path: Path, *types: str) -> Path:
        """A known_hosts file holding only the host keys of `types`."""
        path.write_text("".join(f"[127.0.0.1]:{self.port} {self.host_keys[t]}\n" for t in types))
        return path


def missing(software: str) -> str | None:
    """Why these servers cannot run here (None when they can)."""
    binaries = {"dropbear": ("dropbear", "dropbearkey"), "tinysshd": ("tinysshd", "tinysshd-makekey",
                                                                      "tinysshd-printkey", "tcpserver")}[software]
    absent = [b for b in binaries if shutil.which(b, path=search_path()) is None]
    if absent:
        return f"{', '.join(absent)} not found (scripts/install-deps --test installs or unpacks them as root)"
    if os.geteuid() != 0:
        return "needs root for a private mount namespace over the home directory"
    return None


def _tool(*argv: str) -> str:
    env = {**os.environ, "PATH": search_path()}
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=60, env=env).stdout


@contextlib.contextmanager
def other_server(software: str, root: Path) -> Iterator[OtherServer]:
    """Start Dropbear (ed25519 and RSA host keys) or tinysshd (ed25519) on 127.0.0.1; stop it afterwards."""
    user = pwd.getpwuid(os.geteuid())
    home, keys = root / "home", root / "keys"
    for directory in (home, home / ".ssh", keys):
        directory.mkdir(mode=0o700)
    _tool("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(home / "id_ed25519"))
    (home / ".ssh" / "authorized_keys").write_text((home / "id_ed25519.pub").read_text())
    port = free_port()
    if software == "dropbear":
        host_keys = {}
        for kind, extra in (("ed25519", []), ("rsa", ["-s", "2048"])):
            _tool("dropbearkey", "-t", kind, "-f", str(keys / kind), *extra)
            line = next(ln for ln in _tool("dropbearkey", "-y", "-f", str(keys / kind)).splitlines()
                        if ln.startswith("ssh-"))
            host_keys[line.split()[0]] = " ".join(line.split()[:2])
        server = (f"exec dropbear -F -E -s -p 127.0.0.1:{port} -r {keys}/ed25519 -r {keys}/rsa "
                  f"-P {root}/dropbear.pid")
    else:
        _tool("tinysshd-makekey", str(keys / "sshkeydir"))
        fields = _tool("tinysshd-printkey", str(keys / "sshkeydir")).split()
        host_keys = {fields[0]: " ".join(fields[:2])}
        server = f"exec tcpserver -HRDl0 127.0.0.1 {port} tinysshd -v {keys}/sshkeydir"
    script = f"mount --bind {home} {user.pw_dir} && {server}"
    env = {**os.environ, "PATH": search_path(), "SHELL": "/bin/sh"}
    with open(root / "server.log", "wb") as log:
        proc = subprocess.Popen(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                                stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    try:
        wait_listening(port, proc, START_SECONDS)
        yield OtherServer(software, port, home, host_keys, user.pw_name)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
