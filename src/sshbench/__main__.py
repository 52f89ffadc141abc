"""The `sshbench` command and `python -m sshbench`: signal handling first, the heavy imports second.

Importing the CLI pulls in rich and the rest (about half a second). A Ctrl-C
or SIGTERM in that time must end the command like any other interrupt (exit
130, one line) rather than with a traceback, so the handlers are installed
before anything else is imported. The command is the subreaper of all it
starts (procs.become_subreaper), so on the way out any process an interrupt
left behind, however deep, is killed: nothing of ours outlives the command.
Its run is claimed first (plumbing/runs.py: a record with a lock, a cgroup
as root), so that what a SIGKILL leaves behind is provably this run's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys


def _interrupted_early(signum: int, _frame: object) -> None:
    """Ctrl-C or SIGTERM while this module's own imports run (before main() installs the real handlers):
    nothing is started or claimed yet, so leave at once with the documented code, not a traceback (-2)."""
    with contextlib.suppress(OSError):
        os.write(2, b"sshbench: interrupted\n")
    os._exit(130)


def _temp_dir_found_whole() -> None:
    """Let Python pick the temp dir now, with the three signals held.

    tempfile's first gettempdir() proves a directory writable by creating a
    file with a bare 8-character name in it and unlinking it. An interrupt
    between the two (os._exit above, or a KeyboardInterrupt later) left that
    file behind in the user's temp dir (seen once in CI: `8lyc8kxy`). Held,
    the signal lands after the unlink; the answer is cached for the run.
    """
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        import tempfile

        with contextlib.suppress(OSError):  # no usable temp dir is said in one line later (runs.temp_dir)
            tempfile.gettempdir()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


if __name__ == "__main__" or os.path.basename(sys.argv[0]) == "sshbench":  # the command, not an import
    for _sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(_sig, _interrupted_early)
    _temp_dir_found_whole()

from sshbench.plumbing.procs import become_subreaper, end_children  # noqa: E402  (after the early handlers)
from sshbench.plumbing.runs import run_claimed  # noqa: E402
from sshbench.plumbing.signals import interrupts_end_the_command  # noqa: E402
from sshbench.vocabulary.outputs import signals_held  # noqa: E402

INTERRUPTED = 130  # errors.ExitCode.INTERRUPTED (kept equal by a unit test; vocabulary/errors.py is not imported yet)


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the command itself (not a test calling main() in-process): orphans come back to us
        become_subreaper()
    try:
        with interrupts_end_the_command(), run_claimed():  # before any child: all it starts is recorded as its own
            try:
                from sshbench.cli import main as cli_main

                code = cli_main(argv)
            finally:
                with signals_held():  # every child ended, not some: an interrupt now waits until then
                    left = end_children()
                for pid in left:
                    print(f"sshbench: warning: process {pid} ({_name(pid)}) outlived the run and may not be "
                          "signalled by this user: it was left running", file=sys.stderr, flush=True)
    except KeyboardInterrupt:  # before the CLI could handle it: its imports, or the run's claim or release
        with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
            print("sshbench: interrupted", file=sys.stderr, flush=True)
        code = INTERRUPTED
    if code == INTERRUPTED and argv is None:
        _exit_interrupted()
    return code


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:
            return "".join(c if c.isprintable() else "?" for c in fh.read().strip())[:32]
    except OSError:
        return "gone"


def _exit_interrupted() -> None:
    """Leave with status 130 now that everything is cleaned up and saved.

    CPython remembers a KeyboardInterrupt that went unhandled at a module's top
    level during the run (an import that was interrupted, say) and, on exit,
    kills itself with SIGINT instead of returning the status the command chose
    (seen as -2 by a caller). os._exit after flushing returns our documented
    status.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(INTERRUPTED)


if __name__ == "__main__":
    sys.exit(main())
