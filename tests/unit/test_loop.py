"""The run loop (measure/loop.py) with a fake sampler and a fake clock: no sshd, no time spent.

Budget, byte cap, the warm-up's sizing, the minimum-fits refusal, progress
counts and ETA, the stop rules and the final status are the loop's; the
sampler is tests/synthetic.py's simulated machine (drift, fixed costs).
"""

from __future__ import annotations

import itertools

import pytest

from sshbench.measure.failures import DOOMED_AFTER
from sshbench.measure.loop import SAVE_EVERY, Hooks, run_loop
from sshbench.options import RunOptions
from sshbench.plan.decision import DecisionSchedule
from sshbench.plan.schedules import schedule_for
from sshbench.results.events import NullReporter, Progress, Visit
from sshbench.results.kinds import StopCause
from sshbench.results.model import Case, CaseRecord, Report, Sample
from sshbench.vocabulary.case_terms import CaseKind, Direction
from sshbench.vocabulary.errors import BudgetTooSmall, NothingMeasured, RunStopped
from sshbench.vocabulary.units import MiB
from tests.synthetic import FakeClock, FakeSampler, case

RATE = 200 * MiB  # bytes/s of each simulated case


class Recorder(NullReporter):
    """Every progress the loop reported, and how many reports were saved."""

    def __init__(self) -> None:
        self.progress: list[tuple[str, Progress]] = []
        self.total = 0

    def started(self, report: Report, total: int) -> None:
        self.total = total

    def sample_started(self, visit: Visit, progress: Progress) -> None:
        self.progress.append(("start", progress))

    def sample_finished(self, sample: Sample, progress: Progress) -> None:
        self.progress.append(("end", progress))


Saves = list[tuple[float, int]]  # (simulated time, samples in the file) at each save


def _run(n: int, options: RunOptions, **machine: object) -> tuple[Report, FakeSampler, Recorder, Saves]:
    cases = [case(i) for i in range(n)]
    clock = FakeClock()
    sampler = FakeSampler({c.id: RATE * (1 - 0.2 * i) for i, c in enumerate(cases)}, clock, seed=1,
                          **machine)  # type: ignore[arg-type]
    report = Report("test", "", 1, options=options, cases=[CaseRecord(c) for c in cases])
    saves: Saves = []
    recorder = Recorder()
    run_loop(report, schedule_for(options, cases, 1), sampler, options,
             lambda r: saves.append((clock.now, len(r.samples))), recorder, Hooks(clock=clock))
    return report, sampler, recorder, saves


def test_every_case_gets_its_interval_and_the_warm_up_sizes_it() -> None:
    options = RunOptions(time_budget_seconds=None, sample_seconds=1.0)
    report, _, _, saves = _run(3, options, noise_cv=0.02)
    assert report.status == "complete"
    for record in report.cases:
        rate = RATE * (1 - 0.2 * int((record.case.cipher or "c0")[1:]))
        assert record.size_source == "auto" and record.size_bytes % MiB == 0
        assert abs(record.size_bytes - rate) <= 0.08 * rate  # ~1 s of data at the warm-up's (noisy) rate
        measured = [s for s in report.samples if s.case_id == record.case.id and not s.warmup]
        assert len(measured) >= options.min_runs
    assert saves[0][1] == 1 and saves[-1][1] == len(report.samples), "saved at the first sample and at the end"
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(saves[:-1])]
    assert gaps and min(gaps) >= SAVE_EVERY, "at most once per SAVE_EVERY while running"
    assert max(gaps) <= SAVE_EVERY + max(s.total_seconds or 0 for s in report.samples), "and at least that often"
    assert report.time_use is not None and report.time_use.wall_seconds > 0


def test_the_time_budget_stops_starting_samples_and_the_run_is_still_complete() -> None:
    options = RunOptions(time_budget_seconds=30.0, runs=50, size_bytes=RATE)  # fixed mode: no minimum check
    report, sampler, _, _ = _run(2, options, setup_seconds=0.1)
    assert report.status == "complete" and report.stop_reason == "time budget of 30 s reached"
    assert report.stopped_by is StopCause.TIME_BUDGET
    assert sampler.clock.now <= 30.0 + 1.2, "no sample started that the budget could not hold"


def test_the_byte_cap_is_never_passed() -> None:
    options = RunOptions(time_budget_seconds=None, runs=50, size_bytes=64 * MiB, max_bytes=1000 * MiB)
    report, _, _, _ = _run(2, options)
    moved = sum(s.bytes_received or 0 for s in report.samples)
    assert moved <= 1000 * MiB and "byte cap" in (report.stop_reason or "") and report.stopped_by is StopCause.BYTE_CAP


def test_a_budget_that_cannot_hold_the_minimum_is_refused_after_the_warm_up() -> None:
    options = RunOptions(time_budget_seconds=20.0, size_bytes=RATE)  # 6 x 3 cases x ~1.1 s > 20 s
    with pytest.raises(BudgetTooSmall):
        _run(3, options)


def test_progress_counts_and_eta_stay_true() -> None:
    """What the progress bar says: done never passes total, and the ETA is never past the budget."""
    options = RunOptions(time_budget_seconds=400.0, size_bytes=RATE)
    report, _, recorder, _ = _run(4, options, noise_cv=0.2, drift_sd=0.3, drift_seconds=30.0)
    assert recorder.progress
    for _, progress in recorder.progress:
        assert 0 <= progress.done <= progress.total
        assert progress.eta_seconds <= 400.0
    final = recorder.progress[-1][1]
    assert final.done == len(report.samples)


def test_the_eta_prices_each_later_visit_at_its_own_case() -> None:
    """A fixed run whose later visits are mostly handshakes (a tenth of a throughput sample each): priced at the
    mean of all cases, the reference run of bench/time_to_decision.py said "14:49 left" with 8 minutes to go."""
    throughput = [case(0), case(1)]
    handshakes = [Case(CaseKind.KEX, Direction.SETUP, kex=f"k{i}") for i in range(4)]
    cases = [*throughput, *handshakes]
    clock = FakeClock()
    rates = {**{c.id: RATE for c in throughput}, **{c.id: 0.05 for c in handshakes}}  # handshakes: 0.05 s
    sampler = FakeSampler(rates, clock, seed=1, setup_seconds=0.05)
    options = RunOptions(time_budget_seconds=None, runs=10, setup_runs=100, size_bytes=RATE)
    report = Report("test", "", 1, options=options, cases=[CaseRecord(c) for c in cases])
    recorder = Recorder()
    run_loop(report, schedule_for(options, cases, 1), sampler, options, lambda r: None, recorder,
             Hooks(clock=clock))
    ends = [p for kind, p in recorder.progress if kind == "end"]
    assert ends[-1].done == len(report.samples) and ends[-1].eta_seconds == 0
    start = len(cases) * 2  # past the warm-up and first round: every case has its own estimate
    times = [s.total_seconds or 0.0 for s in report.samples]
    for done in range(start, len(ends) - 1, 37):
        truth = sum(times[done + 1:])
        assert abs(ends[done].eta_seconds - truth) <= 0.2 * truth + 1.0, (done, ends[done].eta_seconds, truth)


def test_the_same_failure_again_and_again_stops_the_run_with_the_reason() -> None:
    options = RunOptions(time_budget_seconds=None, size_bytes=RATE)
    ids = {case(i).id for i in range(4)}
    with pytest.raises(RunStopped, match=f"the last {DOOMED_AFTER} samples"):
        _run(4, options, fail=ids)


def test_a_run_where_nothing_was_measured_is_failed_not_complete() -> None:
    options = RunOptions(time_budget_seconds=None, runs=1, size_bytes=RATE)
    with pytest.raises(NothingMeasured):
        _run(2, options, fail={case(0).id, case(1).id})


def test_an_interrupt_from_the_sampler_leaves_the_report_interrupted_and_saved() -> None:
    cases = [case(0), case(1)]
    options = RunOptions(time_budget_seconds=None, size_bytes=RATE)
    report = Report("test", "", 1, options=options, cases=[CaseRecord(c) for c in cases])
    clock = FakeClock()
    inner = FakeSampler({c.id: RATE for c in cases}, clock)
    calls = []

    def sampler(visit: Visit, size: int, timeout: float, tick: object) -> Sample:
        calls.append(visit)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return inner(visit, size, timeout, tick)

    saved: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        run_loop(report, DecisionSchedule(cases, 6, 30, 1), sampler, options, lambda r: saved.append(r.status),
                 hooks=Hooks(clock=clock))
    assert report.status == "interrupted" and saved[-1] == "interrupted" and len(report.samples) == 4


def test_a_dead_path_stops_the_run_at_once() -> None:
    cases = [case(0)]
    options = RunOptions(time_budget_seconds=None, size_bytes=RATE)
    report = Report("test", "", 1, options=options, cases=[CaseRecord(c) for c in cases])
    clock = FakeClock()
    alive = {"ok": True}

    def check() -> None:
        if not alive["ok"]:
            raise RunStopped("the link died")

    inner = FakeSampler({cases[0].id: RATE}, clock)

    def sampler(visit: Visit, size: int, timeout: float, tick: object) -> Sample:
        alive["ok"] = len(report.samples) < 2
        return inner(visit, size, timeout, tick)

    with pytest.raises(RunStopped, match="the link died"):
        run_loop(report, DecisionSchedule(cases, 6, 30, 1), sampler, options, lambda r: None,
                 hooks=Hooks(clock=clock, check_alive=check))
    assert report.status == "failed" and len(report.samples) == 3


def test_drift_and_a_fixed_cost_are_what_the_fake_machine_says() -> None:
    """The simulated machine itself: samples close in time agree better than samples far apart (drift), and a
    fixed cost lengthens every data phase by the same seconds."""
    import math
    import statistics

    clock = FakeClock()
    drifting = FakeSampler({"a": 1.0}, clock, drift_sd=0.4, drift_seconds=100.0, seed=3, setup_seconds=1.0)
    visit = Visit(case(0), 1)
    drifting.rates = {visit.case.id: 1e8}
    rates = []
    for _ in range(400):
        sample = drifting(visit, 10**8, 60, None)
        assert sample.data_seconds is not None
        rates.append(math.log(1e8 / sample.data_seconds))
    near = statistics.pstdev([b - a for a, b in itertools.pairwise(rates)])
    far = statistics.pstdev([b - a for a, b in zip(rates, rates[200:], strict=False)])
    assert near < 0.5 * far
    fixed = FakeSampler({visit.case.id: 1e8}, FakeClock(), fixed_seconds=0.15)
    sample = fixed(visit, 10**8, 60, None)
    assert sample.data_seconds == pytest.approx(1.0 + 0.15)
