"""The pipe: ssh carrying sshbench's own stream (measure/pipe.py); SSH itself, with no file tool around it."""

from __future__ import annotations

from sshbench.results.model import PIPE, Case
from sshbench.targets.base import Target


class Pipe:
    name = PIPE
    label = PIPE
    moves_files = False

    def unavailable(self) -> str | None:
        return None  # ssh itself is checked before anything runs

    def argv(self, target: Target, case: Case, source: str, dest: str, directory: bool, workdir: str,
             compression: bool) -> list[str]:
        raise ValueError("the pipe moves no files: measure/pipe.py runs it")
