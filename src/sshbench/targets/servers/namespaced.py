"""Embedded servers that read ~/.ssh/authorized_keys (Dropbear, tinysshd), each connection in a private namespace.

Neither server can be told where to find authorized keys: both read the
logging-in user's ~/.ssh/authorized_keys, from the home directory the user's
passwd entry names, and sshbench must never touch the real one. So each
connection's server runs in a private mount namespace (`unshare --mount`,
propagation private) where it sees our key instead. Nothing outside that one
process sees the change, and the real ~/.ssh is never read or created.

- As root, a temp home with our client key in it is bind-mounted over the
  home directory (root's is /root, whose parents are root's and not
  writable by others, which tinysshd checks all the way up to /).
- As a normal user, mounting needs a user namespace whose root may mount:
  the server starts in one that maps the user to root (`--map-root-user`),
  a private copy of /etc/passwd naming the temp home is bind-mounted there
  (so the real home need not exist: nobody's is /nonexistent), and a
  second, nested user namespace maps that root back to the user (`unshare
  --map-user`, util-linux 2.38+), so the server runs as the user again.
  Mapping the user to itself in one step leaves it no capability to mount.
  Dropbear works this way. tinysshd cannot: it refuses a key unless every
  directory from ~/.ssh up to / is owned by the user or root, and in an
  unprivileged user namespace / belongs to an unmapped user (it shows as
  65534), so it is refused up front, saying so.

Everything else is as for sshd (servers/openssh.py): loopback, expected
connections only (servers/inetd.py), one process per connection,
reaped with wait4 for its exact CPU, keys in a private 0700 temp dir that
`stop()` removes.

What a server offers comes from its own first KEXINIT (as for a real host),
and its version from its banner's softwareversion.
"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping

from sshbench.implementations import UNKNOWN
from sshbench.plumbing.kexinit import KexinitError, kexinit_over
from sshbench.plumbing.procfs import command_line, find_command
from sshbench.plumbing.runs import private_dir
from sshbench.targets.discovery import ClientInfo, ServerInfo, find_tool, run_tool
from sshbench.targets.servers.clientconf import write_client_config, write_known_hosts
from sshbench.targets.servers.identities import make_identity
from sshbench.targets.servers.inetd import Inetd
from sshbench.targets.servers.lifecycle import InetdServer
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.errors import MissingToolError, ServerError

_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./+-]+")


def _login_shells() -> set[str]:
    """/etc/shells: what Dropbear accepts as a login shell (nologin is not one)."""
    try:
        with open("/etc/shells", encoding="utf-8", errors="replace") as fh:
            return {ln.strip() for ln in fh if ln.strip().startswith("/")}
    except OSError:
        return {"/bin/sh"}


class NamespacedServer(InetdServer):
    """The shared lifecycle; a subclass names its binaries and makes its host keys and per-connection argv."""

    name = "namespaced"
    per_connection = ""
    implementation = UNKNOWN  # a subclass declares what it runs
    takes_sshd = False
    slow_logins = frozenset[str]()
    # Why this server cannot run for a normal user (in the user namespace a private server needs), or None
    needs_root: str | None = None

    def __init__(self, client: ClientInfo, path: str | None = None, env: Mapping[str, str] | None = None,
                 window: int | None = None) -> None:
        """`window`: the channel receive window to start the server with, in bytes (a window variant: the
        registry checked it against `window_setting`); the variant is a server of its own name."""
        if window is not None:
            assert self.window_setting is not None and self.window_setting.takes(window), window
            self.name = self.window_setting.named(self.name, window)
        self.receive_window = window
        self.client = client
        self.env = {**os.environ, **(env or {}), "SHELL": "/bin/sh"}
        self.user = pwd.getpwuid(os.geteuid()).pw_name
        self._override = path
        self.dir: str | None = None
        self.port = 0
        self.inetd: Inetd | None = None
        self._info: ServerInfo | None = None
        self.defaults = AlgorithmLists()

    # ------------------------------------------------------------ for subclasses

    def binary(self) -> str:
        raise NotImplementedError

    def make_host_keys(self, keydir: str) -> list[str]:
        """Make the host keys in `keydir`; return their public key lines ("type base64")."""
        raise NotImplementedError

    def server_argv(self, keydir: str) -> list[str]:
        """The server for one connection on stdin/stdout (inetd style)."""
        raise NotImplementedError

    def window_argv(self) -> list[str]:
        """The options that set a window variant's receive window (none for the server as it is)."""
        if self.receive_window is None or self.window_setting is None:
            return []
        return self.window_setting.argv(self.receive_window)

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        server = self.binary()
        unshare = shutil.which("unshare")
        if unshare is None:
            raise MissingToolError(f"--server {self.name} needs unshare (util-linux) for a private mount namespace")
        self.dir = private_dir(f"sshbench-{self.name}-")
        if not _PLAIN_PATH.fullmatch(self.dir):
            raise ServerError(f"the temp dir {self.dir!r} has characters that config files would split; set "
                              "TMPDIR to a plain path, e.g. /tmp")
        home, keydir = self._path("home"), self._path("keys")
        for directory in (home, os.path.join(home, ".ssh"), keydir):
            os.mkdir(directory, 0o700)
        passwd = self._private_passwd(home)
        done = run_tool([find_tool("ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "sshbench-client",
                         "-f", self._path("client_ed25519")])
        if done.returncode != 0:
            raise ServerError(f"ssh-keygen could not make the client key: {done.stderr.strip()[-200:]}")
        shutil.copyfile(self._path("client_ed25519.pub"), os.path.join(home, ".ssh", "authorized_keys"))
        public = self.make_host_keys(keydir)
        self.inetd = Inetd(self._path("expect"), self.env, nodelay=self.implementation.nodelay)
        self.port = self.inetd.port
        write_known_hosts(self._path("known_hosts"), public)
        write_client_config(self.client_config, self.port, self.user, self._path("client_ed25519"),
                            self._path("known_hosts"), self._path("expect"))
        self.inetd.serve(self._isolated(unshare, home, passwd, self.server_argv(keydir)))
        self._info = self._read_offer(server, public)
        self.defaults = self._info.enabled  # its compiled-in set, in its own order

    def _private_passwd(self, home: str) -> str:
        """A copy of /etc/passwd whose entry for this user names `home` (and a login shell it accepts)."""
        entry = pwd.getpwuid(os.geteuid())
        shell = entry.pw_shell if entry.pw_shell in _login_shells() else "/bin/sh"
        ours = f"{entry.pw_name}:x:{entry.pw_uid}:{entry.pw_gid}:sshbench:{home}:{shell}"
        try:
            with open("/etc/passwd", encoding="utf-8", errors="replace") as fh:
                others = [ln for ln in fh.read().splitlines() if ln.split(":")[2:3] != [str(entry.pw_uid)]]
        except OSError:
            others = []
        path = self._path("passwd")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join([ours, *others]) + "\n")
        os.chmod(path, 0o644)
        return path

    def _isolated(self, unshare: str, home: str, passwd: str, server: list[str]) -> list[str]:
        """The per-connection argv: the server in a private mount namespace that sees our key (module doc)."""
        real_home = pwd.getpwuid(os.geteuid()).pw_dir
        if os.geteuid() == 0 and os.path.isdir(real_home):
            mount = f"mount --bind {shlex.quote(home)} {shlex.quote(real_home)} && exec "
            return [unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", mount + shlex.join(server)]
        if self.needs_root is not None:
            raise ServerError(f"--server {self.name} needs root: {self.needs_root}")
        self._check_user_namespaces(unshare)
        mount = f"mount --bind {shlex.quote(passwd)} /etc/passwd && exec "
        back = [unshare, f"--map-user={os.geteuid()}", f"--map-group={os.getegid()}"]
        return [unshare, "--map-root-user", "--mount", "--propagation", "private", "/bin/sh", "-c",
                mount + shlex.join([*back, *server])]

    def _check_user_namespaces(self, unshare: str) -> None:
        """As a normal user: say exactly what is missing before any connection fails for it."""
        probe = run_tool([unshare, "--map-root-user", "--mount", "--propagation", "private", "/bin/sh", "-c",
                          f"exec {shlex.quote(unshare)} --map-user={os.geteuid()} --map-group={os.getegid()} true"])
        if probe.returncode == 0:
            return
        said = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        if "unrecognized option" in said or "--map-user" in said:
            raise MissingToolError(f"--server {self.name} as a normal user needs util-linux 2.38 or newer "
                                   f"(unshare --map-user): {said}; or run as root")
        raise ServerError(f"--server {self.name} as a normal user needs unprivileged user namespaces, which this "
                          f"system refuses ({said}): enable them (sysctl user.max_user_namespaces, "
                          "kernel.unprivileged_userns_clone, or an AppArmor userns policy) or run as root")

    def _read_offer(self, path: str, public: list[str]) -> ServerInfo:
        """Its offer from a test connection, and (while that connection's server runs) its command line."""
        try:
            sock = self.connect()
            held = sock.dup()  # the connection stays open, its server running, after kexinit_over closes `sock`
            try:
                offer = kexinit_over(sock, f"the embedded {self.name} port {self.port}")
                self.command = self._command_of(held.getsockname()[1])
            finally:
                held.close()
        except (KexinitError, OSError) as exc:
            raise ServerError(f"the embedded {self.name} ({path}) did not answer a test connection ({exc}); check "
                              f"that it is {self.name} and runs here: {path} -V (or -h), and that its host keys "
                              "load") from None
        return ServerInfo(path=path, version=offer.software_version, openssl=None, enabled=offer.lists,
                          host_key_types=tuple(line.split()[0] for line in public))

    def _command_of(self, peer_port: int) -> tuple[str, ...]:
        """The argv of the server serving the connection from `peer_port`, as /proc has it (the unshare and sh
        before it exec'd it: its banner came from it); empty where it cannot be read."""
        pid = self.inetd.server_pid(peer_port) if self.inetd else None
        found = find_command(pid, self.implementation.process) if pid is not None else None
        return (command_line(found) or ()) if found is not None else ()

    # ------------------------------------------------------------ the EmbeddedServer interface

    @property
    def info(self) -> ServerInfo:
        assert self._info is not None, "start() first"
        return self._info

    def identity(self, kind: str) -> str | None:
        """The client key of type `kind` (a type in user_keys), made on first use and authorized in the private
        home's authorized_keys, which each connection's server reads (targets/servers/identities.py)."""
        if kind not in self.user_keys or self.dir is None:
            return None
        return make_identity(find_tool("ssh-keygen"), self.dir, kind,
                             os.path.join(self._path("home"), ".ssh", "authorized_keys"))

    def log_tail(self, lines: int = 5) -> list[str]:
        return []  # its log goes nowhere (inetd gives it no stderr): failures show in ssh's own messages

    def check_dropin(self, text: str) -> subprocess.CompletedProcess[str]:
        """No sshd_config to check: Dropbear and tinysshd read none (a drop-in is never made for them)."""
        return subprocess.CompletedProcess([], 1, "", f"{self.name} reads no sshd_config")
