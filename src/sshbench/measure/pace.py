"""A case's pace before it has a rate: how big its warm-up is, how long a sample may take, and what a timed-out
sample's own bytes say.

Before a case's first good sample the run knows no rate, and the warm-up moved a fixed 64 MiB within a
timeout worked out at 5 MB/s. Over a slow lossy path that is a trap: Dropbear over rtt=20ms,rate=10mbit,loss=2%
moves 0.40 MB/s by hand, so the 64 MiB warm-up needs 160 s, every sample timed out at 73 s and the run measured
nothing in its 4-minute budget. Three things keep a slow case measurable:

- the warm-up over an emulated rate-limited link moves what the line carries in 8 s (plan/budget.warmup_bytes;
  never less than a steady window's floor), not 64 MiB;
- a sample with no rate yet may take ten times what the line allows, not only what 5 MB/s allows;
- a sample that timed out having moved bytes tells the case's pace: the case is re-sized to last its target
  at that pace (only ever smaller, so at most a few times), and its timeout follows the pace.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sshbench.options import RunOptions
from sshbench.plan.budget import known_pace, sized
from sshbench.results.kinds import Failure
from sshbench.results.model import Case, CaseRecord, Sample

ALLOWANCE_FACTOR = 10  # a sample may take this many times its expected transfer before it is a hang
MIN_PACE_SECONDS = 2.0  # a timed-out sample's pace counts only over at least this much of its data phase


def unknown_allowance(case: Case, size: int, options: RunOptions, slowest: float) -> float:
    """Seconds a sample of a case with no measured rate may take beyond the fixed timeout: `slowest` bytes/s, or
    ten times the link's line time (or its loss-paced time, plan/losspace.py) where that is longer."""
    line = known_pace(options.link_named(case.link), case, options)
    return max(size / slowest, ALLOWANCE_FACTOR * size / line if line else 0.0)


@dataclass
class Pace:
    """The bytes a running sample has moved and when: wraps the sampler's tick (the live rate's too)."""

    forward: Callable[[int], None]
    clock: Callable[[], float] = time.perf_counter  # the loop's (a fake one in the unit tests)
    moved: int = 0
    first: float | None = None
    last: float | None = None

    def tick(self, count: int) -> None:
        now = self.clock()
        if self.first is None:
            self.first = now
        self.moved, self.last = self.moved + count, now
        self.forward(count)

    def rate(self) -> float | None:
        """Bytes/s over the data phase so far; None where it is too short to say."""
        if self.first is None or self.last is None or self.last - self.first < MIN_PACE_SECONDS or not self.moved:
            return None
        return self.moved / (self.last - self.first)


def resize_after_timeout(record: CaseRecord, sample: Sample, pace: Pace, target_seconds: float) -> float | None:
    """Where `sample` timed out before the case had a size from its rate, the case re-sized to its target at the
    pace its bytes moved (never larger than it was); the pace, or None where nothing changed."""
    rate = pace.rate()
    if sample.ok or sample.failure is not Failure.TIMED_OUT or rate is None \
            or record.size_source not in ("warmup", "auto"):
        return None
    size = sized(rate, target_seconds, record.case.streams)
    if size >= record.size_bytes:
        return None
    record.set_reason(f"re-sized after a timeout: {pace.moved / 1e6:.1f} MB moved in "
                      f"{(pace.last or 0) - (pace.first or 0):.0f} s ({rate / 1e6:.2f} MB/s), "
                      f"{record.size_bytes // 2**20} MiB -> {size // 2**20} MiB")
    record.size_bytes, record.size_source = size, "auto"
    return rate
