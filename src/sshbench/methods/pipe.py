"""The pipe: ssh carrying sshbench's own stream (measure/pipe.py); SSH itself, with no file tool around it."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from sshbench.methods.base import Endpoint, Ssh, Transfer, Untuned
from sshbench.vocabulary.case_terms import PIPE


class Pipe(Untuned):
    name = PIPE
    label = PIPE
    help = "ssh carrying a stream: SSH itself"
    moves_files = False
    packages: Mapping[str, str] = MappingProxyType({"ssh": "openssh-client"})

    def unavailable(self) -> str | None:
        return None  # ssh itself is checked before anything runs

    def transfer(self, ssh: Ssh, source: Endpoint, dest: Endpoint, directory: bool, workdir: str) -> Transfer:
        raise ValueError("the pipe moves no files: measure/pipe.py runs it")

    def in_flight(self, channel_window: int | None) -> int | None:
        return channel_window  # one channel: its receiver's window
