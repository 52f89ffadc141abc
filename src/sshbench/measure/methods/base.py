"""What a transfer method is: how the bytes move between client and server, and the command that moves them.

"pipe" is ssh carrying a stream between sshbench's own source and sink:
SSH itself, nothing else. The file methods are the tools people really
use, run as they are shipped, on a real test file. Each method is an object
that knows its name (as case ids and --method spell it), how tables label
it, whether this machine can run it, and the command line that moves one
file or set of files; measure/filetool.py times it.
"""

from __future__ import annotations

import os
from typing import Protocol

from sshbench.results.model import Case
from sshbench.targets.base import Target

NULL = "/dev/null"


class TransferMethod(Protocol):
    name: str  # as case ids and --method spell it: "scp", "scp-legacy", "sftp-B65536-R128"
    label: str  # as tables show it: the command people would type, e.g. "scp -O"
    moves_files: bool  # False for the pipe, which streams sshbench's own bytes

    def unavailable(self) -> str | None:
        """Why this machine cannot run the method (a tool not installed), or None."""
        ...

    def argv(self, target: Target, case: Case, source: str, dest: str, directory: bool, workdir: str,
             compression: bool) -> list[str]:
        """The command that moves `source` to `dest` (the server's side written `host:path`).

        `workdir` is a private directory of the client's where the method may write what it needs
        (sftp's batch file); `directory` is true for a set of files moved recursively.
        """
        ...


def ssh_options(target: Target, case: Case, compression: bool) -> list[str]:
    """The ssh options every tool is given: the target's (config, -v, algorithms) and compression."""
    return target.tool_ssh_options(case) + (["-o", "Compression=yes"] if compression else [])


def remote_path(target: Target, path: str) -> str:
    return f"{target.destination}:{path}"


def is_remote(path: str) -> bool:
    """A `host:path` argument (the server's side), as opposed to a local absolute path."""
    return not os.path.isabs(path)
