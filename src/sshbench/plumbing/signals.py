"""Ctrl-C, SIGTERM and SIGHUP end a command the same way, once: the first raises, the rest wait their turn.

The first of these signals raises KeyboardInterrupt in the main thread, as
Ctrl-C always does in Python. Every later one is ignored while that
interrupt unwinds: the clean-up it runs (kill the children, reap them, save
the results with a final status, remove the temp dir) is short and bounded,
and a second Ctrl-C arriving in the middle of it was what used to leave a
process running, a results file saying "running", or a traceback.

A signal the user's shell already ignores (SIGINT for a background job,
SIGHUP under nohup) stays ignored. Standard library and vocabulary/outputs only: installed
before the heavy imports.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType

from sshbench.vocabulary.outputs import Held

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None


class _State:
    first: int | None = None  # the signal that interrupted this command, once one has
    later: int = 0  # signals received (and ignored) after it


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _State.first is not None:
        _State.later += 1
        return
    _State.first = signum
    if Held.defer():  # inside signals_held(): raised when that block ends
        return
    raise KeyboardInterrupt


def interrupted_by() -> str | None:
    """The name of the signal that interrupted this command (e.g. 'SIGTERM'), or None."""
    return None if _State.first is None else signal.Signals(_State.first).name


@contextlib.contextmanager
def interrupts_end_the_command() -> Iterator[None]:
    """Install the handlers for the life of one command; restore the previous ones afterwards.

    After an interrupt the command is on its way out: the signals stay ignored rather than restored,
    or a second Ctrl-C arriving between the clean-up and the exit would kill it with no exit status.
    """
    previous: dict[int, _Handler] = {}
    for sig in map(int, HANDLED):
        if signal.getsignal(sig) is signal.SIG_IGN:
            continue
        previous[sig] = signal.signal(sig, _on_signal)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_IGN if _State.first is not None else handler)
        _State.first, _State.later = None, 0

