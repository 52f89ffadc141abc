"""The command line: parse, run one command, and turn every failure into one line and an exit code.

Each subcommand is a module of its own (run, report/compare, recommend,
algos), imported only when it is the one asked for. This is the only place
that decides exit codes: everything below raises an SshbenchError, which
leaves as one line on stderr with the code the README documents. Signal
handling is installed by the entry point (sshbench/__main__.py) before this
package is imported: SIGTERM and SIGHUP arrive here as KeyboardInterrupt,
like Ctrl-C, and only the first one counts.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from rich.console import Console

from sshbench.cli.parser import SUBCOMMANDS, mistyped_command, parse
from sshbench.errors import ExitCode, OutputClosed, SshbenchError, UsageError
from sshbench.plumbing import runs, sweep
from sshbench.results.store import ResultsWriter
from sshbench.targets.link import netns
from sshbench.untrusted import shown


class _Console(Console):
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


@dataclass
class Context:
    """What a command prints to, and where its results are kept (set by `run` once they have a home)."""

    out: Console
    err: Console
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


Command = Callable[..., int]
SWEEPING = ("run", "recommend", "algos")  # the commands that start servers


def _command(handler: str) -> Command:
    """'run:cmd_run' -> sshbench.cli.run.cmd_run, imported now (only the command asked for is loaded)."""
    module, _, name = handler.partition(":")
    function: Command = getattr(importlib.import_module(f"sshbench.cli.{module}"), name)
    return function


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    typo = mistyped_command(args_list)  # before 'run' is put in front: `sshbench reprot X` is not a host
    if not args_list or (args_list[0] not in SUBCOMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list = ["run", *args_list]
    out = _Console(emoji=False)  # no ":x:" in a host name, path or case id ever becomes a picture
    if not out.is_terminal:  # logs and pipes: wide enough that no algorithm name is cut
        out = _Console(width=180, emoji=False)
    ctx = Context(out, _Console(stderr=True, emoji=False), argv=list(args_list))
    try:
        if typo:
            raise UsageError(typo)
        args = parse(args_list)
        if args.command in SWEEPING:
            runs.temp_dir()  # no usable temp dir is one line now, not a failure deep inside a server's start
            sweep.sweep(netns.remove_of_run)  # what a killed run left (processes, keys, namespaces) ends first
        return _command(args.handler)(args, ctx)
    except SshbenchError as exc:
        ctx.say(f"sshbench: error: {exc}{ctx.kept(exc.exit_code)}")
        return int(exc.exit_code)
    except (OutputClosed, BrokenPipeError):  # stdout's reader went away (`| head -1`): quiet, nothing lost
        return ctx.output_closed()
    except KeyboardInterrupt:
        ctx.say(f"sshbench: interrupted{ctx.kept(ExitCode.INTERRUPTED)}")
        return int(ExitCode.INTERRUPTED)
    except Exception as exc:  # a bug: still one line, the results kept, the exit code documented
        if os.environ.get("SSHBENCH_DEBUG"):
            raise
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        ctx.say(f"sshbench: internal error ({what}); this is a bug in sshbench: please report it with the command "
                f"line and its traceback (run it again with SSHBENCH_DEBUG=1; CONTRIBUTING.md, 'Reporting a bug')"
                f"{ctx.kept(ExitCode.INTERNAL)}")
        return int(ExitCode.INTERNAL)
