"""The embedded target: samples against a private server sshbench started on loopback (any EmbeddedServer)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from sshbench.errors import RunStopped
from sshbench.results.model import Case
from sshbench.targets.base import HOST_ALIAS, EmbeddedServer, FileOps, ServerProcess, TcpEnds, algorithm_options
from sshbench.targets.link.emulated import LinkPath
from sshbench.targets.localfiles import LocalFiles


class EmbeddedTarget:
    """Reach an embedded server through its own client config; its server CPU is exact (wait4)."""

    destination = HOST_ALIAS
    server_cpu_exact = True
    # ssh runs its ProxyCommand (our fdpass helper) as `$SHELL -c`, and bash reads ~/.bashrc there because
    # its stdin is a socket: ~60 ms of the user's rc per connection, and an rc killed mid-way (pyenv's
    # rehash lock) stalled every later connection by 60 s. /bin/sh reads no rc file.
    tool_env: Mapping[str, str] = MappingProxyType({"SHELL": "/bin/sh"})

    def __init__(self, server: EmbeddedServer, links: Mapping[str, LinkPath] | None = None,
                 link_port: int = 0) -> None:
        """`links` by label, and the port of the server's listener behind them (EmulatedLinks.serve)."""
        self.server = server
        self.ssh_program = server.client.path
        self.files: FileOps = LocalFiles()
        self.links = dict(links or {})
        self.link_port = link_port

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]:
        return [self.ssh_program, *self.tool_ssh_options(case), HOST_ALIAS, remote_command]

    def tool_ssh_options(self, case: Case) -> list[str]:
        argv = ["-F", self.server.client_config, "-v", *algorithm_options(case)]
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

    def server_log_tail(self) -> list[str]:
        return self.server.log_tail()

    def tcp_ends(self, link: str) -> TcpEnds | None:
        return self.links[link] if link else None
