"""The hand's receiver-timed window (bench/hand.py `window_rate`): the oracle of the scenario sweep must count
what arrived, or it reads its own error as sshbench's.

Two streams of 1600 bytes, stamped after each sixteenth: sharing one bottleneck of 100 B/s (60 and 40 until
the first ends, then all of it to the other), the window from the later quarter mark (t=10) to the last end
(t=32) holds 2200 bytes: 100 B/s, where counting 2 x 3/4 of a share read 109. Each at its own pace (60 and
40, independent), the transfer's rate is what a split's slowest part sets: 2 x 40 = 80.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).parents[2] / "bench"))

from hand import STAMP_PARTS, Points, window_rate

SHARE = 1600


def stamped(arrival: Callable[[float], float]) -> Points:
    """A stream's stamps, given when each byte count arrived (the inverse of its progress)."""
    piece = SHARE // STAMP_PARTS
    return [(piece * (k + 1), arrival(piece * (k + 1))) for k in range(STAMP_PARTS)]


def test_shared_parts_count_what_arrived_not_their_stagger() -> None:
    first_end = 1600 / 60
    behind = 40 * first_end  # the slower stream's bytes when the faster one ended

    def slower(n: float) -> float:
        return n / 40 if n <= behind else first_end + (n - behind) / 100

    rate = window_rate([stamped(lambda n: n / 60), stamped(slower)], SHARE)
    assert rate == pytest.approx(100, rel=0.01)


def test_independent_parts_read_their_slowest_pace() -> None:
    rate = window_rate([stamped(lambda n: n / 60), stamped(lambda n: n / 40)], SHARE)
    assert rate == pytest.approx(80, rel=0.01)


def test_one_stream_is_its_last_three_quarters() -> None:
    assert window_rate([stamped(lambda n: 1 + n / 50)], SHARE) == pytest.approx(50, rel=0.001)
