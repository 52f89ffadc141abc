"""What a command prints to and how its output ends: the consoles, the results kept so far, a closed pipe.

Every command module takes a Context (cli/dispatch.py hands it over); it
lives here, apart from the package's entry point, so that the commands and
the entry point that dispatches to them do not import each other.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO

from rich.console import Console as RichConsole

from sshbench.results.store import ResultsWriter
from sshbench.vocabulary.errors import ExitCode, OutputClosed
from sshbench.vocabulary.untrusted import shown

LONG_VALUE = 200  # characters: a value given longer than this is quoted shortened in an error line
SHOWN_OF_LONG = 60  # characters of it shown
_PIECE = re.compile(r"""(["'(]*)([^\s"'(]\S*?)(["'):;,.]*)(?=\s|$)""")  # a word, its quotes and stops apart


class Console(RichConsole):
    """rich's Console, but a closed pipe is ours to handle: rich's own answer is SystemExit(1), which read as
    "some samples failed" after a complete run piped into `head -1`."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        _silence(self.file)
        if not self.stderr:  # a closed stderr only loses progress lines; a closed stdout ends the command
            raise OutputClosed


def _silence(stream: IO[str]) -> None:
    """Point a closed stream at /dev/null, so nothing later (the interpreter's own final flush) fails on it."""
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


def bounded(message: str, given: Sequence[str]) -> str:
    """`message` with every value of `given` (the command line's words) longer than LONG_VALUE shortened to its
    first SHOWN_OF_LONG characters and its length, wherever the message quotes it (as given, as its repr, or a
    piece of it without spaces): an option given 100,000 characters is one line, not 100,000 characters again.
    What sshbench itself says, paths it made included, is left whole."""
    long = [word for arg in given for word in {arg, arg.partition("=")[2]} if len(word) > LONG_VALUE]
    for word in sorted(long, key=len, reverse=True):
        quoted = repr(word[:SHOWN_OF_LONG])
        message = message.replace(repr(word), f"{quoted[:-1]}…{quoted[-1]} ({len(word):,} characters)")
        message = message.replace(word, _short(word))

    def piece(match: re.Match[str]) -> str:
        lead, inner, trail = match.groups()
        if len(inner) <= LONG_VALUE or not any(inner in word for word in long):
            return match.group()
        return lead + _short(inner) + trail

    return _PIECE.sub(piece, message)


def _short(text: str) -> str:
    return f"{text[:SHOWN_OF_LONG]}… ({len(text):,} characters)"


@dataclass
class Context:
    """What a command prints to, and where its results are kept (set by `run` once they have a home)."""

    out: RichConsole
    err: RichConsole
    writer: ResultsWriter | None = None
    argv: list[str] = field(default_factory=list)  # the arguments as given (hints repeat them)
    # The exit code if stdout's reader goes away from now on: a command sets its result's code before it prints
    # it; a run sets OUTPUT_CLOSED while it measures (and its results are then kept as interrupted).
    code_if_closed: ExitCode = ExitCode.OK

    def table_width(self, wide: bool) -> int | None:
        """The width tables fit into: the terminal's (pipes: 180), or None with --wide (every column)."""
        return None if wide else self.out.width

    def say(self, line: str) -> None:
        """One line on stderr (no markup); a closed terminal (SIGHUP) is not an error.

        Lines quote paths, file names and what peers said, any of which may
        hold an escape sequence or a newline: every control character is shown
        as its escape (untrusted.shown), so no line can clear the screen,
        retitle the terminal or forge a second line."""
        with contextlib.suppress(OSError):
            self.err.print(shown(line), highlight=False, markup=False, soft_wrap=True)

    def line(self, text: str) -> None:
        """One line on stdout (a path, a note: what a script reads or greps), escaped like `say` and never
        wrapped by rich, so no phrase of it is split across lines however long the paths it quotes."""
        self.out.print(shown(text), highlight=False, markup=False, soft_wrap=True)

    def output_closed(self) -> int:
        """The exit for a closed stdout: quiet, the results kept (as interrupted if the run was measuring)."""
        _silence(sys.stdout)
        if self.code_if_closed is ExitCode.OUTPUT_CLOSED:
            self.kept(ExitCode.INTERRUPTED)
        return int(self.code_if_closed)

    def kept(self, code: ExitCode) -> str:
        """Where the results measured so far are, after giving the run its final status (saved once more)."""
        if self.writer is None:
            return ""
        where = self.writer.finish("interrupted" if code is ExitCode.INTERRUPTED else "failed")
        return f"; results so far kept in {where}" if where else ""
