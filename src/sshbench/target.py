"""How to reach the server a case runs against: the ssh command line and, where known, server CPU.

The embedded target is the only kind today; a remote-host target (user's own
ssh config, server CPU from /proc) implements the same protocol.
"""

from __future__ import annotations

from typing import Protocol

from sshbench.model import Case
from sshbench.servers.openssh import HOST_ALIAS, EmbeddedOpenSSH, ServerProcess


class Target(Protocol):
    def ssh_argv(self, case: Case, remote_command: str) -> list[str]: ...

    def server_process(self, peer_port: int) -> ServerProcess | None: ...

    def server_cpu_so_far(self, peer_port: int) -> float | None: ...

    def server_log_tail(self) -> list[str]: ...


def algorithm_options(case: Case) -> list[str]:
    """`-o` options that pin the algorithms a case asks for; the rest stay at ssh's defaults."""
    argv: list[str] = []
    for keyword, value in (("Ciphers", case.cipher), ("MACs", case.mac),
                           ("KexAlgorithms", case.kex), ("HostKeyAlgorithms", case.hostkey)):
        if value:
            argv += ["-o", f"{keyword}={value}"]
    return argv


class EmbeddedTarget:
    def __init__(self, server: EmbeddedOpenSSH) -> None:
        self.server = server

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]:
        return [self.server.client.path, "-F", self.server.client_config, "-v", *algorithm_options(case),
                HOST_ALIAS, remote_command]

    def server_process(self, peer_port: int) -> ServerProcess | None:
        return self.server.server_process(peer_port)

    def server_cpu_so_far(self, peer_port: int) -> float | None:
        return self.server.server_cpu_so_far(peer_port)

    def server_log_tail(self) -> list[str]:
        return self.server.log_tail()
