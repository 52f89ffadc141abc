"""The embedded target: samples against a private server sshbench started on loopback (any EmbeddedServer)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sshbench.plumbing.procfs import tree_cpu_seconds
from sshbench.results.model import Case
from sshbench.targets.base import (
    HOST_ALIAS,
    ClientEndpoint,
    EmbeddedServer,
    FileOps,
    ServerProcess,
    ServerSaid,
    TcpEnds,
    algorithm_options,
)
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.link.emulated import LinkPath
from sshbench.targets.localfiles import LocalFiles
from sshbench.vocabulary.errors import RunStopped


class EmbeddedTarget:
    """Reach an embedded server through its own client config; its server CPU is exact (wait4)."""

    destination = HOST_ALIAS
    server_cpu_exact = True
    # ssh runs its ProxyCommand (our fdpass helper) as `$SHELL -c`, and bash reads ~/.bashrc there because
    # its stdin is a socket: ~60 ms of the user's rc per connection, and an rc killed mid-way (pyenv's
    # rehash lock) stalled every later connection by 60 s. /bin/sh reads no rc file.
    tool_env: Mapping[str, str] = MappingProxyType({"SHELL": "/bin/sh"})

    def __init__(self, server: EmbeddedServer, links: Mapping[str, LinkPath] | None = None,
                 link_port: int = 0, client: ClientInfo | None = None) -> None:
        """`links` by label, and the port of the server's listener behind them (EmulatedLinks.serve); `client`:
        another ssh than the one the server was made for (a build's, --build)."""
        self.server = server
        self.ssh_program = (client or server.client).path
        self.files: FileOps = LocalFiles()
        self.links = dict(links or {})
        self.link_port = link_port

    def program_for(self, case: Case) -> str:
        return self.ssh_program

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]:
        return [self.ssh_program, *self.tool_ssh_options(case), HOST_ALIAS, remote_command]

    def client_argv(self, argv: list[str]) -> list[str]:
        return self.server.client_argv(argv)

    def tool_ssh_options(self, case: Case) -> list[str]:
        argv = ["-F", self.server.client_config, "-v", *algorithm_options(case, self.ssh_program)]
        if case.link:  # the command line's ProxyCommand wins over the config's: connect across the link
            proxy = self.links[case.link].proxy_command(self.link_port, self.server.expect_dir)
            argv += ["-o", f"ProxyCommand={proxy}"]
        return argv

    def server_process(self, peer_port: int) -> ServerProcess | None:
        return self.server.server_process(peer_port)

    def check_alive(self) -> None:
        """RunStopped when an emulated link has died (its watchdog said so): every later sample would hang."""
        for path in self.links.values():
            if path.failure:
                raise RunStopped(path.failure)

    def server_cpu_so_far(self, peer_port: int) -> float | None:
        return self.server.server_cpu_so_far(peer_port)

    def server_pid(self, peer_port: int) -> int | None:
        return self.server.server_pid(peer_port)

    def link_cpu_so_far(self, case: Case) -> float | None:
        path = self.links.get(case.link) if case.link else None
        return None if path is None or path.wire is None or path.wire.returncode is not None else \
            tree_cpu_seconds(path.wire.pid)

    def link_idle_so_far(self, case: Case, upstream: bool, at: float) -> float | None:
        path = self.links.get(case.link) if case.link else None
        return None if path is None else path.line_idle(upstream, at)

    def identity(self, case: Case, kind: str) -> str | None:
        return self.server.identity(kind)

    def server_log_tail(self) -> list[str]:
        return self.server.log_tail()

    def client_endpoint(self, case: Case) -> ClientEndpoint | None:
        """The server's own listener; None across an emulated link, whose far end only a connection made in the
        link's namespace reaches (fdpass.py does that for ssh; no driver does yet)."""
        return None if case.link else self.server.endpoint()

    def server_said(self, peer_port: int) -> ServerSaid | None:
        return self.server.server_said(peer_port)

    def tcp_ends(self, link: str) -> TcpEnds | None:
        return self.links[link] if link else None


@dataclass(frozen=True)
class BuildSide:
    """One side of a run that compares sides: an SSH build (--build: its client and the embedded server of its
    server program) or an embedded server (--server a,b: the run's client against it); and that server's
    listener behind the emulated links (0: none)."""

    name: str
    spec: str  # its canonical --build text; a server side: the launcher's name
    client: ClientInfo
    server: EmbeddedServer
    link_port: int = 0
    axis: str = "build"  # "build" or "server", as results and titles name the sides


class BuildsTarget:
    """Several sides as one target: each case goes to its side's client and server (Case.build)."""

    destination = HOST_ALIAS
    server_cpu_exact = True
    tool_env: Mapping[str, str] = EmbeddedTarget.tool_env

    def __init__(self, builds: list[BuildSide], links: Mapping[str, LinkPath] | None = None) -> None:
        self.targets = {b.name: EmbeddedTarget(b.server, links, b.link_port, b.client) for b in builds}
        first = next(iter(self.targets.values()))
        self.ssh_program = first.ssh_program
        self.files: FileOps = first.files
        self._servers = list(dict.fromkeys(b.server for b in builds))  # a server two builds share: once
        self._last = first

    def _of(self, case: Case) -> EmbeddedTarget:
        self._last = self.targets[case.build]
        return self._last

    def program_for(self, case: Case) -> str:
        return self._of(case).ssh_program

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]:
        return self._of(case).ssh_argv(case, remote_command)

    def tool_ssh_options(self, case: Case) -> list[str]:
        return self._of(case).tool_ssh_options(case)

    def server_process(self, peer_port: int) -> ServerProcess | None:
        """The connection's server, from whichever server it reached (our source ports are unique)."""
        return self._last.server_process(peer_port)

    def server_cpu_so_far(self, peer_port: int) -> float | None:
        return self._last.server_cpu_so_far(peer_port)

    def server_pid(self, peer_port: int) -> int | None:
        return self._last.server_pid(peer_port)

    def link_cpu_so_far(self, case: Case) -> float | None:
        return self._of(case).link_cpu_so_far(case)

    def link_idle_so_far(self, case: Case, upstream: bool, at: float) -> float | None:
        return self._of(case).link_idle_so_far(case, upstream, at)

    def client_argv(self, argv: list[str]) -> list[str]:
        return argv  # a slow login is reproduced with the embedded server alone, never with --build

    def identity(self, case: Case, kind: str) -> str | None:
        return self._of(case).identity(case, kind)

    def server_log_tail(self) -> list[str]:
        return self._last.server_log_tail()

    def client_endpoint(self, case: Case) -> ClientEndpoint | None:
        return self._of(case).client_endpoint(case)

    def server_said(self, peer_port: int) -> ServerSaid | None:
        return self._last.server_said(peer_port)

    def tcp_ends(self, link: str) -> TcpEnds | None:
        return self._last.tcp_ends(link)

    def check_alive(self) -> None:
        self._last.check_alive()
