"""The command line: parse, run one command, and turn every failure into one line and an exit code.

Each subcommand is a module of its own (run, report/compare, recommend,
algos, clients), imported only when it is the one asked for (cli/dispatch.py). This is the only place
that decides exit codes: everything below raises an SshbenchError, which
leaves as one line on stderr with the code the README documents. Signal
handling is installed by the entry point (sshbench/__main__.py) before this
package is imported: SIGTERM and SIGHUP arrive here as KeyboardInterrupt,
like Ctrl-C, and only the first one counts.
"""

from __future__ import annotations

import os
import sys

from sshbench.cli.context import Console, Context, bounded
from sshbench.cli.dispatch import COMMANDS
from sshbench.cli.parser import SUBCOMMANDS, mistyped_command, parse
from sshbench.plumbing import runs, sweep
from sshbench.targets.link import netns
from sshbench.vocabulary.errors import ExitCode, OutputClosed, SshbenchError, UsageError

SWEEPING = ("run", "recommend", "algos")  # the commands that start servers


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    typo = mistyped_command(args_list)  # before 'run' is put in front: `sshbench reprot X` is not a host
    if not args_list or (args_list[0] not in SUBCOMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list = ["run", *args_list]
    out = Console(emoji=False)  # no ":x:" in a host name, path or case id ever becomes a picture
    if not out.is_terminal:  # logs and pipes: wide enough that no algorithm name is cut
        out = Console(width=180, emoji=False)
    ctx = Context(out, Console(stderr=True, emoji=False), argv=list(args_list))
    try:
        if typo:
            raise UsageError(typo)
        args = parse(args_list)
        if args.command in SWEEPING:
            runs.temp_dir()  # no usable temp dir is one line now, not a failure deep inside a server's start
            swept = sweep.sweep(netns.remove_of_run)  # what a killed run left (processes, keys, namespaces) first
            for bad in swept.unreadable:
                ctx.say(f"sshbench: warning: a dead run's record could not be read and was set aside, nothing of "
                        f"it ended: {bad}; remove it when you have looked")
        return COMMANDS[args.command](args, ctx)
    except SshbenchError as exc:
        ctx.say(f"sshbench: error: {bounded(str(exc), ctx.argv)}{ctx.kept(exc.exit_code)}")
        return int(exc.exit_code)
    except (OutputClosed, BrokenPipeError):  # stdout's reader went away (`| head -1`): quiet, nothing lost
        return ctx.output_closed()
    except KeyboardInterrupt:
        return _said_interrupted(ctx)
    except Exception as exc:  # a bug: still one line, the results kept, the exit code documented
        if _interrupted(exc):  # Ctrl-C inside Python's own machinery (a class being made while a module imports)
            return _said_interrupted(ctx)
        if os.environ.get("SSHBENCH_DEBUG"):
            raise
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        ctx.say(f"sshbench: internal error ({what}); this is a bug in sshbench: please report it with the command "
                f"line and its traceback (run it again with SSHBENCH_DEBUG=1; CONTRIBUTING.md, 'Reporting a bug')"
                f"{ctx.kept(ExitCode.INTERNAL)}")
        return int(ExitCode.INTERNAL)


def _said_interrupted(ctx: Context) -> int:
    ctx.say(f"sshbench: interrupted{ctx.kept(ExitCode.INTERRUPTED)}")
    return int(ExitCode.INTERRUPTED)


def _interrupted(exc: BaseException) -> bool:
    """Whether a KeyboardInterrupt caused this exception: a SIGINT while a dataclass is made during an import
    surfaces as "RuntimeError: Error calling __set_name__ on 'Field' ..." with the interrupt as its cause (a
    fresh-clone CI's SIGINT at 2.05 s read "internal error", exit 70, where it was an interrupt, 130)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
