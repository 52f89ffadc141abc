"""The hand's receiver-timed window (bench/hand.py `window_rate`): the oracle of the scenario sweep must count
what arrived, or it reads its own error as sshbench's.

Two streams of 1600 units (64 KiB each: 100 MiB, so a quarter is past sshbench's STEADY_AFTER), stamped after
each sixteenth: sharing one bottleneck of 100 units/s (60 and 40 until the first ends, then all of it to the
other), the window from the later quarter mark (t=10) to the last end (t=32) holds 2200 units: 100 units/s,
where counting 2 x 3/4 of a share read 109. Each at its own pace (60 and 40, independent), the transfer's rate
is what a split's slowest part sets: 2 x 40 = 80. A share whose quarter comes before STEADY_AFTER opens where
sshbench's window does, at STEADY_AFTER: TCP's ramp is outside both.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).parents[2] / "bench"))

from hand import STAMP_PARTS, Points, window_rate
from sshbench.plan.budget import STEADY_AFTER

UNIT = 65536
SHARE = 1600 * UNIT


def stamped(arrival: Callable[[float], float], share: int = SHARE) -> Points:
    """A stream's stamps, given when each count of units arrived (the inverse of its progress)."""
    piece = share // STAMP_PARTS
    return [(piece * (k + 1), arrival(piece * (k + 1) / UNIT)) for k in range(STAMP_PARTS)]


def test_shared_parts_count_what_arrived_not_their_stagger() -> None:
    first_end = 1600 / 60
    behind = 40 * first_end  # the slower stream's bytes when the faster one ended

    def slower(n: float) -> float:
        return n / 40 if n <= behind else first_end + (n - behind) / 100

    rate = window_rate([stamped(lambda n: n / 60), stamped(slower)], SHARE)
    assert rate == pytest.approx(100 * UNIT, rel=0.01)


def test_independent_parts_read_their_slowest_pace() -> None:
    rate = window_rate([stamped(lambda n: n / 60), stamped(lambda n: n / 40)], SHARE)
    assert rate == pytest.approx(80 * UNIT, rel=0.01)


def test_one_stream_is_its_last_three_quarters() -> None:
    assert window_rate([stamped(lambda n: 1 + n / 50)], SHARE) == pytest.approx(50 * UNIT, rel=0.001)


def test_a_small_share_opens_at_sshbenchs_steady_mark_not_its_quarter() -> None:
    """Two streams of 16 MiB, each's first 8 MiB at 10 units/s (TCP's ramp), the rest at 50: sshbench's window
    opens at 8 MiB (STEADY_AFTER), after the ramp, and so does the hand's (2 x 50); from the quarter (4 MiB) it
    read the ramp too."""
    share = 2 * STEADY_AFTER
    ramp = STEADY_AFTER / UNIT

    def ramping(n: float) -> float:
        return n / 10 if n <= ramp else ramp / 10 + (n - ramp) / 50

    assert window_rate([stamped(ramping, share)] * 2, share) == pytest.approx(100 * UNIT, rel=0.001)


def test_a_share_too_small_for_a_steady_state_has_no_figure() -> None:
    """Under 2 x STEADY_AFTER a stream sshbench would time whole (no steady window): the hand gives no figure."""
    share = STEADY_AFTER
    assert math.isnan(window_rate([stamped(lambda n: n / 50, share)], share))
