"""Embedded servers that read ~/.ssh/authorized_keys (Dropbear, tinysshd), each connection in a private namespace.

Neither server can be told where to find authorized keys: both read the
logging-in user's ~/.ssh/authorized_keys, and sshbench must never touch the
real one. So each connection's server runs in a private mount namespace
(`unshare --mount`, propagation private; as a normal user also a user
namespace mapping the user to itself) in which a temp home directory, with
our client key in it, is bind-mounted over the home directory. Nothing
outside that one process sees the change, and the real ~/.ssh is never read
or created. Everything else is as for sshd (servers/openssh.py): loopback,
expected connections only (servers/inetd.py), one process per connection,
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
import tempfile
from collections.abc import Mapping

from sshbench.algorithms import AlgorithmLists
from sshbench.errors import MissingToolError, ServerError
from sshbench.measure.kexinit import KexinitError, kexinit_over
from sshbench.targets.discovery import ClientInfo, ServerInfo, find_tool, run_tool
from sshbench.targets.servers.clientconf import write_client_config, write_known_hosts
from sshbench.targets.servers.inetd import Inetd
from sshbench.targets.servers.lifecycle import InetdServer

_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./+-]+")


class NamespacedServer(InetdServer):
    """The shared lifecycle; a subclass names its binaries and makes its host keys and per-connection argv."""

    name = "namespaced"
    per_connection = ""

    def __init__(self, client: ClientInfo, path: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self.client = client
        self.env = {**os.environ, **(env or {}), "SHELL": "/bin/sh"}
        self.user = pwd.getpwuid(os.geteuid()).pw_name
        self.home = pwd.getpwuid(os.geteuid()).pw_dir
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

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        server = self.binary()
        unshare = shutil.which("unshare")
        if unshare is None:
            raise MissingToolError(f"--server {self.name} needs unshare (util-linux) for a private mount namespace")
        self.dir = tempfile.mkdtemp(prefix=f"sshbench-{self.name}-")
        if not _PLAIN_PATH.fullmatch(self.dir):
            raise ServerError(f"the temp dir {self.dir!r} has characters that config files would split; set "
                              "TMPDIR to a plain path, e.g. /tmp")
        home, keydir = self._path("home"), self._path("keys")
        for directory in (home, os.path.join(home, ".ssh"), keydir):
            os.mkdir(directory, 0o700)
        done = run_tool([find_tool("ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "sshbench-client",
                         "-f", self._path("client_ed25519")])
        if done.returncode != 0:
            raise ServerError(f"ssh-keygen could not make the client key: {done.stderr.strip()[-200:]}")
        shutil.copyfile(self._path("client_ed25519.pub"), os.path.join(home, ".ssh", "authorized_keys"))
        public = self.make_host_keys(keydir)
        self.inetd = Inetd(self._path("expect"), self.env)
        self.port = self.inetd.port
        write_known_hosts(self._path("known_hosts"), public)
        write_client_config(self.client_config, self.port, self.user, self._path("client_ed25519"),
                            self._path("known_hosts"), self._path("expect"))
        # root: a mount namespace; anyone else: a user namespace too, mapping the user to itself
        isolate = [unshare, "--mount", "--propagation", "private"] if os.geteuid() == 0 else \
            [unshare, "--map-current-user", "--mount", "--propagation", "private"]
        script = (f"mount --bind {shlex.quote(home)} {shlex.quote(self.home)} && exec "
                  + shlex.join(self.server_argv(keydir)))
        self.inetd.serve([*isolate, "/bin/sh", "-c", script])
        self._info = self._read_offer(server, public)
        self.defaults = self._info.enabled  # its compiled-in set, in its own order

    def _read_offer(self, path: str, public: list[str]) -> ServerInfo:
        try:
            offer = kexinit_over(self.connect(), f"the embedded {self.name} port {self.port}")
        except (KexinitError, OSError) as exc:
            raise ServerError(f"the embedded {self.name} did not answer ({exc}); it needs root or unprivileged "
                              "user namespaces for its private mount namespace") from None
        return ServerInfo(path=path, version=offer.software_version, openssl=None, enabled=offer.lists,
                          host_key_types=tuple(line.split()[0] for line in public))

    # ------------------------------------------------------------ the EmbeddedServer interface

    @property
    def info(self) -> ServerInfo:
        assert self._info is not None, "start() first"
        return self._info

    def log_tail(self, lines: int = 5) -> list[str]:
        return []  # its log goes nowhere (inetd gives it no stderr): failures show in ssh's own messages

    def check_dropin(self, text: str) -> subprocess.CompletedProcess[str]:
        """No sshd_config to check: Dropbear and tinysshd read none (a drop-in is never made for them)."""
        return subprocess.CompletedProcess([], 1, "", f"{self.name} reads no sshd_config")
