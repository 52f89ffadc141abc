"""How to reach the server a case runs against: the ssh command line, its files and, where known, server CPU.

The embedded target is the only kind today; a remote-host target (user's own
ssh config, server CPU from /proc) implements the same protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Protocol

from sshbench.model import Case
from sshbench.servers.inetd import ServerProcess
from sshbench.servers.openssh import HOST_ALIAS, EmbeddedOpenSSH
from sshbench.testfiles import LocalFiles


class FileOps(Protocol):
    """What the file methods need done on the server side, outside the timed part."""

    def make_dir(self, parent: str, room: int) -> str:
        """A new private directory for this run's files, on a filesystem with `room` bytes free.

        `parent` is the client's --workdir; a remote side uses its own (--remote-workdir or $TMPDIR).
        Not enough room is a UsageError, with nothing left behind.
        """
        ...

    def size(self, path: str) -> tuple[int, int] | None:
        """(bytes, regular files) under path, None when it does not exist."""
        ...

    def sha256(self, path: str) -> str: ...

    def remove(self, path: str) -> None: ...

    def place(self, local_source: str, path: str) -> None:
        """Put a copy of the local source at `path` on the server (the download source)."""
        ...


class Target(Protocol):
    destination: str  # what scp, sftp and rsync are given as the host
    ssh_program: str
    # True: the server is our child (wait4: exact CPU of its whole tree); False: a remote host, whose
    # CPU the remote command reads from /proc where it can
    server_cpu_exact: bool
    files: FileOps  # the server's side of the file methods
    tool_env: Mapping[str, str]  # added to the environment of ssh and the file tools

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]: ...

    def tool_ssh_options(self, case: Case) -> list[str]:
        """ssh options (config, -v, algorithms) that scp and sftp take as they are and rsync takes in -e."""
        ...

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
    destination = HOST_ALIAS
    server_cpu_exact = True
    # ssh runs its ProxyCommand (our fdpass helper) as `$SHELL -c`, and bash reads ~/.bashrc there because
    # its stdin is a socket: ~60 ms of the user's rc per connection, and an rc killed mid-way (pyenv's
    # rehash lock) stalled every later connection by 60 s. /bin/sh reads no rc file.
    tool_env: Mapping[str, str] = MappingProxyType({"SHELL": "/bin/sh"})

    def __init__(self, server: EmbeddedOpenSSH) -> None:
        self.server = server
        self.ssh_program = server.client.path
        self.files: FileOps = LocalFiles()

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]:
        return [self.ssh_program, *self.tool_ssh_options(case), HOST_ALIAS, remote_command]

    def tool_ssh_options(self, case: Case) -> list[str]:
        return ["-F", self.server.client_config, "-v", *algorithm_options(case)]

    def server_process(self, peer_port: int) -> ServerProcess | None:
        return self.server.server_process(peer_port)

    def server_cpu_so_far(self, peer_port: int) -> float | None:
        return self.server.server_cpu_so_far(peer_port)

    def server_log_tail(self) -> list[str]:
        return self.server.log_tail()
