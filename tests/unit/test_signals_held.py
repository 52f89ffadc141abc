"""An interrupt inside signals_held() waits for the block's end, even when another thread takes the signal."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.vocabulary.outputs import signals_held


def test_a_signal_taken_by_another_thread_is_raised_when_the_held_block_ends() -> None:
    """The main thread holds SIGINT; a helper thread does not, so the kernel gives the signal to it, and Python
    runs the handler in the main thread anyway: the block must still finish before the interrupt is raised."""
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait, args=(10,), daemon=True)
    helper.start()
    finished = False
    try:
        with pytest.raises(KeyboardInterrupt), interrupts_end_the_command(), signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            deadline = time.monotonic() + 0.3
            while time.monotonic() < deadline:  # bytecodes run: the handler would raise here if not held
                time.sleep(0.01)
            finished = True
    finally:
        stop.set()
        helper.join()
    assert finished, "the held block ran to its end before the interrupt"
