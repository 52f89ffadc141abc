"""A slow case's pace before it has a rate (measure/pace.py), through the real loop with a fake clock.

The case that found it: Dropbear over rtt=20ms,rate=10mbit,loss=2% moves 0.40 MB/s by hand; its 64 MiB warm-up
needed 160 s, every sample timed out at 73 s (a timeout worked out at 5 MB/s), and a 4-minute run measured
nothing. Here a simulated path at that pace, with no link the run knows of (a real host's case), must count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sshbench.measure.loop import Hooks, run_loop
from sshbench.measure.pace import Pace, resize_after_timeout
from sshbench.options import RunOptions
from sshbench.plan.budget import MIN_AUTO_SIZE, STEADY_AFTER, visit_guess, warmup_bytes
from sshbench.plan.schedules import schedule_for
from sshbench.results.events import Visit
from sshbench.results.kinds import Failure
from sshbench.results.model import Case, CaseRecord, Report, Sample
from sshbench.vocabulary.case_terms import CaseKind, Direction
from sshbench.vocabulary.linkspec import LinkSpec
from sshbench.vocabulary.units import MiB
from tests.synthetic import FakeClock

PACE = 0.40e6  # bytes/s: the hand's figure on that path


@dataclass
class SlowPath:
    """A sampler whose data moves at PACE in 1 MB ticks, and which times out like a real one."""

    clock: FakeClock
    timeouts: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)

    def __call__(self, visit: Visit, size: int, timeout: float, tick: Callable[[int], None]) -> Sample:
        self.sizes.append(size)
        start = self.clock.now
        self.clock.now += 0.3  # the login
        moved, step = 0, 1_000_000
        while moved < size:
            if self.clock.now + step / PACE - start > timeout:
                self.timeouts.append(timeout)
                self.clock.now = start + timeout
                return Sample(visit.case.id, visit.round, visit.round == 0, False, "", size,
                              error=f"timed out after {timeout:.0f}s", failure=Failure.TIMED_OUT,
                              total_seconds=timeout)
            self.clock.now += step / PACE
            moved += step
            tick(step)
        seconds = size / PACE
        return Sample(visit.case.id, visit.round, visit.round == 0, True, "", size, bytes_received=size,
                      data_seconds=seconds, total_seconds=seconds + 0.3)


def _case() -> Case:
    return Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="chacha20-poly1305@openssh.com")


def test_a_slow_path_counts_after_one_timeout_at_most() -> None:
    clock = FakeClock()
    path = SlowPath(clock)
    options = RunOptions(time_budget_seconds=None, runs=3)  # fixed mode
    report = Report("test", "", 1, options=options, cases=[CaseRecord(_case())])
    run_loop(report, schedule_for(options, [_case()], 1), path, options, lambda _r: None, hooks=Hooks(clock=clock))
    counted = [s for s in report.samples if s.ok and not s.warmup]
    assert len(counted) == 3, [s.error for s in report.samples]
    assert len(path.timeouts) <= 1  # the 64 MiB warm-up's, and never again
    record = report.cases[0]
    assert record.size_bytes < 64 * MiB and record.size_bytes >= MIN_AUTO_SIZE
    assert record.reason is not None and "re-sized after a timeout" in record.reason


def test_a_resize_never_grows_a_case_nor_touches_a_fixed_size() -> None:
    clock = FakeClock()
    pace = Pace(lambda _n: None, clock)
    for _ in range(10):
        clock.now += 1.0
        pace.tick(400_000)
    timed_out = Sample("c", 0, True, False, "", 16 * MiB, error="timed out after 73s", failure=Failure.TIMED_OUT)
    small = CaseRecord(_case(), size_bytes=16 * MiB, size_source="warmup")
    assert resize_after_timeout(small, timed_out, pace, 2.0) is None  # the floor is 32 MiB: not smaller
    fixed = CaseRecord(_case(), size_bytes=256 * MiB, size_source="fixed")
    assert resize_after_timeout(fixed, timed_out, pace, 2.0) is None  # --size is the user's
    other = Sample("c", 0, True, False, "", 64 * MiB, error="the server did not report a byte count")
    assert resize_after_timeout(CaseRecord(_case(), size_bytes=64 * MiB, size_source="warmup"), other, pace,
                                2.0) is None  # only a timeout says the pace


def test_the_warmup_over_a_slow_link_is_what_its_line_carries_in_seconds() -> None:
    slow = RunOptions(links=(LinkSpec.from_text("rtt=20ms,rate=10mbit,loss=2%"),), data="random")
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", link=slow.links[0].label)
    assert warmup_bytes(case, slow) == 2 * STEADY_AFTER  # 10 Mbit/s x 8 s is under the steady floor
    fast = RunOptions(links=(LinkSpec.from_text("rtt=2ms,rate=1gbit"),), data="random")
    assert warmup_bytes(Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr",
                             link=fast.links[0].label), fast) == fast.warmup_bytes
    # the budget's guess uses the same size
    guess = visit_guess(case, slow, 0.02, True)
    assert guess < 64 * MiB / slow.links[0].payload_bytes_per_second()  # type: ignore[operator]
