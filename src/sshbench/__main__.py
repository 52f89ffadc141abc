"""The `sshbench` command and `python -m sshbench`: signal handling first, the heavy imports second.

Importing the CLI pulls in rich and the rest (about half a second). A Ctrl-C
or SIGTERM in that time must end the command like any other interrupt (exit
130, one line) rather than with a traceback, so the handlers are installed
before anything else is imported. On the way out, any child process an
interrupt left behind is killed: nothing of ours outlives the command.
"""

from __future__ import annotations

import contextlib
import sys

from sshbench.measure.procs import end_children
from sshbench.measure.signals import interrupts_end_the_command

INTERRUPTED = 130  # errors.ExitCode.INTERRUPTED (kept equal by a unit test; errors.py is not imported yet)


def main(argv: list[str] | None = None) -> int:
    with interrupts_end_the_command():
        try:
            from sshbench.cli import main as cli_main

            return cli_main(argv)
        except KeyboardInterrupt:  # before the CLI could handle it (during the imports)
            with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
                print("sshbench: interrupted", file=sys.stderr, flush=True)
            return INTERRUPTED
        finally:
            end_children()


if __name__ == "__main__":
    sys.exit(main())
