"""What every embedded server shares: the context manager, the listener's facts and each connection's CPU.

A server module (openssh.py, dropbear.py, tinysshd.py) only says how to set
itself up (`start`), how to clean up (`stop`), and what runs per connection;
the rest of the EmbeddedServer interface (targets/base.py) is here, once.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Mapping
from types import TracebackType
from typing import ClassVar, Self

from sshbench.implementations import WindowSetting
from sshbench.targets.base import SERVER_EXIT_SECONDS, ClientEndpoint, ServerProcess, ServerSaid
from sshbench.targets.servers.inetd import LOOPBACK, Inetd


class InetdServer:
    """Base of the embedded servers: `with Server(...) as server:` starts it, and it is gone after the block."""

    inetd: Inetd | None = None
    dir: str | None = None  # the private 0700 temp dir
    # The client key types (--user-keys) a client can log in with here (identity): the ed25519 key every embedded
    # server is given at its start, at least
    user_keys = frozenset({"ed25519"})
    # Whether its log says what a client driver's connection negotiated, and it can serve one uncompressed
    # (servers/inetd.py: the announcement's words); only OpenSSH's sshd does
    logs_negotiation: ClassVar[bool] = False
    # How the launcher sets the server's receive window on its command line, for a window variant (the registry's
    # `NAME:window=SIZE`); None: it cannot. A variant's window, and the command line it ran with
    window_setting: ClassVar[WindowSetting | None] = None
    receive_window: int | None = None
    command: tuple[str, ...] = ()
    user = ""  # whom its connections log in as, and its listener's port (set by start)
    port = 0

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        """Idempotent: stop accepting, end every server still running (with what it started), remove the dir."""
        if self.inetd is not None:
            self.inetd.stop()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def _path(self, name: str) -> str:
        assert self.dir is not None, "start() first"
        return os.path.join(self.dir, name)

    @property
    def address(self) -> str:
        """The address the listening socket is actually bound to."""
        return self.inetd.address if self.inetd else LOOPBACK

    @property
    def workdir(self) -> str:
        """The server's private 0700 dir, which also holds the run's payload pattern."""
        assert self.dir is not None, "start() first"
        return self.dir

    @property
    def client_config(self) -> str:
        return self._path("ssh_config")

    @property
    def strangers(self) -> int:
        """Connections refused because sshbench did not open them (another process knocking)."""
        return self.inetd.strangers if self.inetd else 0

    @property
    def expect_dir(self) -> str:
        """Where a connection of ours announces its source port before connecting (servers/inetd.py)."""
        assert self.inetd is not None, "start() first"
        return self.inetd.expect_dir

    def listen_also(self, listener: socket.socket, peers: frozenset[str],
                    congestion: Mapping[str, str] | None = None) -> None:
        """Serve a listening socket in an emulated link's namespace too, for our connections from `peers`;
        `congestion`: the TCP congestion control of the connections from each peer address (a link's cc=)."""
        assert self.inetd is not None, "start() first"
        self.inetd.add_listener(listener, peers, congestion)

    def connect(self, timeout: float = 10.0) -> socket.socket:
        """A TCP connection of our own to the server (e.g. to read its KEXINIT)."""
        assert self.inetd is not None, "start() first"
        return self.inetd.connect(timeout)

    def client_argv(self, argv: list[str]) -> list[str]:
        """A client's ssh argv for this server (OpenSSH's --slow-login gssapi changes it); as it is here."""
        return argv

    def endpoint(self) -> ClientEndpoint:
        """What its client config names (servers/clientconf.py), for a client that is not ssh: the same key, the
        same pinned host keys, the same announced connection."""
        return ClientEndpoint(LOOPBACK, self.port, self.user, self._path("client_ed25519"),
                              self._path("known_hosts"), self.expect_dir)

    def server_said(self, peer_port: int) -> ServerSaid | None:
        """Nothing: this server's log says nothing of a connection's negotiation (OpenSSH's does: openssh.py)."""
        return None

    def identity(self, kind: str) -> str | None:
        """A client key of type `kind` this server authorizes (--user-keys), made on first use; None for a type
        it does not accept (user_keys)."""
        return None

    def place(self, cpus: frozenset[int] | None) -> None:
        """Fork every later connection's server onto `cpus` (None: anywhere; plumbing/placement.py)."""
        assert self.inetd is not None, "start() first"
        self.inetd.server_cpus = cpus

    def server_process(self, peer_port: int, timeout: float = SERVER_EXIT_SECONDS) -> ServerProcess | None:
        """The reaped server of the connection from `peer_port`; waits for it to exit."""
        return self.inetd.server_process(peer_port, timeout) if self.inetd else None

    def server_pid(self, peer_port: int) -> int | None:
        """The live server process of the connection from `peer_port` (None once it has ended)."""
        return self.inetd.server_pid(peer_port) if self.inetd else None

    def server_cpu_so_far(self, peer_port: int) -> float | None:
        """CPU used until now by the live server of this connection (None if it is gone or /proc can't say)."""
        return self.inetd.server_cpu_so_far(peer_port) if self.inetd else None
