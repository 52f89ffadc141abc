"""What a transfer method is: how the bytes move between client and server, described, not run.

"pipe" is ssh carrying a stream between sshbench's own source and sink:
SSH itself, nothing else. The file methods are the tools people really
use, run as they are shipped, on a real test file. Each method knows its
name (as case ids and --method spell it), how tables label it, whether this
machine can run it, the transfer that moves one file or set of files, and
how many bytes it keeps in flight (its window model).

A method never sees a Target: the measuring side (measure/filetool.py)
hands it `Ssh` (the ssh program, the options every tool gets and the host
name), and it returns a `Transfer`, one command or a pipeline whose every
stage's exit status is checked. The server's side of a path is an
`Endpoint` with `remote=True`; `spelled` writes it `host:path` where a tool
wants that. So analysis, plan and the results reader can use the registry
without anything that runs a process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

NULL = "/dev/null"


@dataclass(frozen=True)
class Endpoint:
    """One end of a transfer: a path on the client, or (remote) on the server."""

    path: str
    remote: bool = False

    @property
    def is_null(self) -> bool:
        return self.path == NULL


@dataclass(frozen=True)
class Ssh:
    """How the tools reach the server: the ssh program, the options every tool gets (config, -v, the case's
    algorithms, compression) and the host name the tools are given."""

    program: str
    options: tuple[str, ...]
    host: str

    def spelled(self, end: Endpoint) -> str:
        """A path as the tools take it: `host:path` on the server's side."""
        return f"{self.host}:{end.path}" if end.remote else end.path


@dataclass(frozen=True)
class Transfer:
    """The commands that move the bytes: one, or a pipeline (stdout of each into stdin of the next) whose every
    stage must exit 0. The first word of each is looked up in PATH when it is not a path."""

    stages: tuple[tuple[str, ...], ...]

    @classmethod
    def command(cls, *argv: str) -> Transfer:
        return cls((tuple(argv),))

    def shown(self) -> str:
        """As a shell would show it: stages joined by ` | `."""
        import shlex
        return " | ".join(shlex.join(stage) for stage in self.stages)


@dataclass(frozen=True)
class Knob:
    """A setting of a method's tool that a run can sweep, with its own option (`--sftp-buffers 32KiB,128KiB`):
    the parser adds the option from here, and the method turns the values into method names (`variants`)."""

    option: str  # e.g. "--sftp-buffers"
    help: str
    sizes: bool = False  # values are byte sizes (32KiB), else whole numbers

    @property
    def key(self) -> str:
        """Its name in RunOptions.knobs and the results file: the option without dashes ("sftp_buffers")."""
        return self.option.removeprefix("--").replace("-", "_")


class TransferMethod(Protocol):
    name: str  # as case ids and --method spell it: "scp", "scp-legacy", "sftp-B65536-R128"
    label: str  # as tables show it: the command people would type, e.g. "scp -O"
    help: str  # a few words for --method's help where the name alone does not say it ("" otherwise)
    moves_files: bool  # False for the pipe, which streams sshbench's own bytes
    packages: Mapping[str, str]  # the tools it runs -> their Debian packages (scripts/install-deps reads them)
    knobs: tuple[Knob, ...]  # the settings a run can sweep, each with its own option (empty for most)

    def variants(self, settings: Mapping[str, tuple[int, ...]]) -> tuple[str, ...]:
        """The method names a run measures for this one, given the values of its knobs (`settings`, by key; a
        knob not given is absent): its own name alone where it has none or none is given."""
        ...

    def variant(self, name: str) -> TransferMethod | None:
        """The variant of this method that `name` spells ("sftp-B65536-R128"), or None: how a case's method is
        found again from its name."""
        ...

    def unavailable(self) -> str | None:
        """Why this machine cannot run the method (a tool not installed), or None."""
        ...

    def transfer(self, ssh: Ssh, source: Endpoint, dest: Endpoint, directory: bool, workdir: str) -> Transfer:
        """What moves `source` to `dest` (one of them on the server).

        `workdir` is a private directory of the client's where the method may write what it needs
        (sftp's batch file); `directory` is true for a set of files moved recursively.
        """
        ...

    def in_flight(self, channel_window: int | None) -> int | None:
        """Bytes this method can have in flight at once, given the receiver's SSH channel window (None:
        unknown): the window model the link verdicts use (analysis/physics/links.py)."""
        ...


class Untuned:
    """For a method without knobs: it is measured as itself."""

    name: str
    knobs: tuple[Knob, ...] = ()

    def variants(self, settings: Mapping[str, tuple[int, ...]]) -> tuple[str, ...]:
        return (self.name,)

    def variant(self, name: str) -> TransferMethod | None:
        return None


def ssh_command(ssh: Ssh) -> list[str]:
    return [ssh.program, *ssh.options]


def is_remote(path: str) -> bool:
    """A `host:path` argument (the server's side), as opposed to a local absolute path."""
    return not os.path.isabs(path)
