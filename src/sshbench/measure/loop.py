"""The run loop: a schedule's visits through a sampler, within a budget, saved after every sample.

Everything a run decides between samples lives here, and nothing that
touches a server: the sampler (one sample of one visit) and the clock are
injected. The real run gives it measure/runner.py's TargetSampler and
time.monotonic; the unit tests and tests/synthetic.py give it a seeded fake
sampler with drift and a fixed per-connection cost and a fake clock, and
drive this same loop.

What it owns: the size of each case (the warm-up sizes it to last about
--sample-seconds), the time budget and the byte cap, the "the minimum cannot
fit" refusal after the warm-up, the ETA and progress counts, the check that
every later sample would fail the same way, summaries after every sample,
saving, and the report's final status (complete, interrupted, failed) with
its time use.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sshbench.analysis.stats.noise import MAX_SAMPLE_SECONDS, choose, measure
from sshbench.analysis.stats.stats import summarize
from sshbench.analysis.stats.verdicts import DecisionRule, rule_for
from sshbench.measure import physics, placing
from sshbench.measure.accounting import bytes_moved, time_use
from sshbench.measure.failures import nothing_measured, stop_if_same_failure
from sshbench.measure.fitting import fit_after_warmup
from sshbench.measure.pace import ALLOWANCE_FACTOR, Pace, resize_after_timeout, unknown_allowance
from sshbench.options import RunOptions
from sshbench.plan.base import Schedule, round_state
from sshbench.plan.budget import (
    MAX_AUTO_SIZE,
    auto_size,
    sized,
    sweep_seconds,
    target_seconds,
    warmup_bytes,
)
from sshbench.results.events import NullReporter, Progress, Reporter, Sampler, Visit
from sshbench.results.kinds import Failure, ReasonKind, StopCause
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Report, Sample, Summary
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.errors import NothingMeasured

CEILING_SECONDS = 1.1  # openssl speed takes whole seconds only (-seconds 1 is its least), plus its start-up
# Before any measurement: a guess only used for the first ETA.
_GUESS_RATE = 500e6
_GUESS_SETUP = 0.25
_SLOWEST_RATE = 5e6
SAVE_EVERY = 1.0  # seconds between saves of the results file during a run (a SIGKILL loses at most this much)
SAVE_COST_SHARE = 0.05  # ... and saving takes at most this share of the run's time
MINIMUM_SHARE = 0.5  # a longer sample is chosen only while min_runs more of every case fit in this share of the rest


@dataclass
class Hooks:
    """What the loop asks of the world between samples; the defaults are a quiet machine's answers."""

    clock: Callable[[], float] = time.monotonic
    check_alive: Callable[[], None] = lambda: None  # RunStopped when the way to the server is gone
    doomed: Callable[[list[Sample]], None] = lambda failures: stop_if_same_failure(failures)
    # Moves both ends to "split" or "free" placement (--placement auto, measure/placing.py); None: no trial
    place: Callable[[str], None] | None = None


@dataclass
class Estimates:
    """Expected seconds per visit of each case, refined as samples arrive (for the ETA and the budget)."""

    seconds: dict[str, float] = field(default_factory=dict)
    rates: dict[str, float] = field(default_factory=dict)

    def of(self, case: Case, size: int) -> float:
        if case.id in self.seconds:
            return self.seconds[case.id]
        if case.kind is CaseKind.CEILING:
            return CEILING_SECONDS
        return _GUESS_SETUP + (size / _GUESS_RATE if case.moves_data else 0.0)

    def transfer_allowance(self, case: Case, size: int, options: RunOptions) -> float:
        """Hang guard, not a precision tool: ten times the expected transfer; when unknown, 5 MB/s or ten times
        the link's line time (measure/pace.py)."""
        rate = self.rates.get(case.id)
        return ALLOWANCE_FACTOR * size / rate if rate else unknown_allowance(case, size, options, _SLOWEST_RATE)

    def learn(self, sample: Sample, next_size: int) -> None:
        if not sample.ok or sample.total_seconds is None:
            return
        if sample.throughput_bytes_per_second:
            setup = sample.total_seconds - (sample.data_seconds or 0.0) + (sample.fixed_seconds or 0.0)
            self.seconds[sample.case_id] = setup + next_size / sample.throughput_bytes_per_second
            self.rates[sample.case_id] = sample.throughput_bytes_per_second
        else:
            self.seconds[sample.case_id] = sample.total_seconds


class _BudgetSpent(Exception):
    """The next visit would not fit in the time budget (or the byte cap)."""


@dataclass
class _Run:
    """One loop's state: what it needs between visits."""

    report: Report
    plan: Schedule
    options: RunOptions
    hooks: Hooks
    records: dict[str, CaseRecord]
    estimates: Estimates = field(default_factory=Estimates)
    started: float = 0.0
    done: int = 0
    failures: list[Sample] = field(default_factory=list)  # the failed samples since the last good one
    rule: DecisionRule = field(default_factory=DecisionRule)
    save: Callable[[Report], None] = lambda _report: None
    adapt: bool = True  # choose the design from the noise, and spend the time left where it settles most
    _saved_at: float | None = None
    _save_cost: float = 0.0

    def summarize(self) -> None:
        self.report.summaries = _summaries(self.report, self.options, self.rule)

    def checkpoint(self, force: bool = False) -> None:
        """Summaries and the results file brought up to date: always at the end, else at most once per
        SAVE_EVERY (and never oftener than SAVE_COST_SHARE of the time allows): both grow with the samples
        (70 ms for 600 samples measured), and short samples would otherwise spend a third of the run saving."""
        now = self.hooks.clock()
        if not force and self._saved_at is not None and \
                now - self._saved_at < max(SAVE_EVERY, self._save_cost / SAVE_COST_SHARE):
            return
        started = time.perf_counter()
        self.summarize()
        self.save(self.report)
        self._save_cost = time.perf_counter() - started
        self._saved_at = now

    def spendable(self) -> float | None:
        """The seconds left that decision mode hands out among open pairs (plan/funding.py); None otherwise."""
        return self.left() if self.options.mode == "decision" and self.adapt else None

    def left(self) -> float | None:
        budget = self.options.time_budget_seconds
        return None if budget is None else budget - (self.hooks.clock() - self.started)

    def progress(self, remaining: list[Visit]) -> Progress:
        """Counts and ETA that stay true in decision mode: what is left of this round, plus the visits the
        schedule is certain to need later, at the rate seen so far; never past the budget."""
        later = _later(self.plan, self.report, remaining)
        eta = sum(self.estimates.of(v.case, self.records[v.case.id].size_bytes) for v in remaining)
        # each later visit at its own case's cost: a fixed run's last thousand visits are handshakes at a tenth
        # of a throughput sample each, and the mean over all cases made its ETA twice the truth
        eta += sum(n * self.estimates.of(self.records[i].case, self.records[i].size_bytes) for i, n in later.items())
        left = self.left()
        total = self.done + len(remaining) + sum(later.values())
        if left is not None and self.options.mode == "decision" and self.adapt and eta < left and any(
                s.relation is Relation.UNSETTLED and not s.futile for s in self.report.summaries):
            return Progress(self.done, total, left, by_budget=True)  # open pairs take what is left, not the round
        return Progress(self.done, total, eta if left is None else min(eta, left))


def run_loop(report: Report, plan: Schedule, sampler: Sampler, options: RunOptions,
             save: Callable[[Report], None], reporter: Reporter | None = None, hooks: Hooks | None = None,
             rule: DecisionRule | None = None, adapt: bool = True) -> Report:
    """Visit rounds until the schedule is done, the budget or byte cap would be overrun, or a stop rule fires.

    On Ctrl-C the report is marked interrupted, saved and the interrupt re-raised; a stop rule or any other
    failure marks it failed with the reason. Cases that move data and have no size yet get --size, or the
    warm-up size (and then the size the warm-up's rate calls for). `rule` decides between neighbours (default:
    the options' own, rule_for; bench/decision_calibration.py compares others). `adapt=False` keeps the design
    the options give whatever the noise (the simulations that compare designs).
    """
    reporter = reporter or NullReporter()
    hooks = hooks or Hooks()
    for record in report.cases:
        if record.case.moves_data and record.case.kind is not CaseKind.CEILING and not record.size_bytes:
            record.size_bytes = options.size_bytes or warmup_bytes(record.case, options)
            record.size_source = "fixed" if options.size_bytes else "warmup"
    run = _Run(report, plan, options, hooks, {r.case.id: r for r in report.cases}, started=hooks.clock(),
               rule=rule or rule_for(options), save=save, adapt=adapt)
    report.looks = {"throughput": run.rule.looks, "handshake": run.rule.for_table(False).looks}
    report.look_points = {"throughput": list(run.rule.points), "handshake": list(run.rule.for_table(False).points)}
    reporter.started(report, sum(plan.required(round_state(report)).values()))
    try:
        while rnd := _live(plan.next_round(round_state(report, run.spendable())), run.records):
            spare = None
            if rnd[0].round == 1:
                physics.check_sizes(report, run.records)  # the warm-up is done: can a --size sample count?
            if rnd[0].round == 1 and options.time_budget_seconds is not None and options.mode != "fixed":
                spare = _check_minimum_fits(run)  # ... and can every case still get its interval?
            if rnd[0].round == 1 and hooks.place is not None and report.placement_trial is None:
                _try_placements(run, sampler, hooks.place, spare)  # the warm-up sized every case: which placement?
            for position, visit in enumerate(rnd):
                if run.records[visit.case.id].status is not CaseStatus.SKIPPED:
                    _visit(run, visit, rnd[position:], sampler, reporter)
            run.summarize()  # the next round is planned from the verdicts so far
            if run.adapt:
                _calibrate(run)
        report.status = "complete"
    except _BudgetSpent:
        report.status = "complete"
    except KeyboardInterrupt:
        report.status = "interrupted"
        raise
    except BaseException as exc:
        report.status = "failed"
        report.error = str(exc) or type(exc).__name__
        raise
    finally:
        _finish(run)
        run.checkpoint(force=True)
    if report.error and _failed(report):
        raise NothingMeasured(report.error)
    return report


def _failed(report: Report) -> bool:
    """Whether _finish found the run empty (a status the try block above never set)."""
    return report.status == "failed"


def _visit(run: _Run, visit: Visit, rest: list[Visit], sampler: Sampler, reporter: Reporter) -> None:
    """One visit (rest: the round from it on): the budget and byte cap first, then the sample, its
    consequences, and a save when due."""
    record, options, report = run.records[visit.case.id], run.options, run.report
    size = record.size_bytes if visit.case.moves_data else 0
    left, cost = run.left(), run.estimates.of(visit.case, size)
    if left is not None and cost > left:
        report.stop_reason, report.stopped_by = f"time budget of {options.time_budget_seconds:.0f} s reached", \
            StopCause.TIME_BUDGET
        raise _BudgetSpent
    if options.max_bytes is not None and bytes_moved(report) + size > options.max_bytes:
        report.stop_reason, report.stopped_by = f"byte cap of {options.max_bytes:,} bytes (--max-bytes) reached", \
            StopCause.BYTE_CAP
        raise _BudgetSpent
    progress = run.progress([v for v in rest if run.records[v.case.id].status is not CaseStatus.SKIPPED])
    reporter.sample_started(visit, progress)
    run.hooks.check_alive()
    pace = Pace(reporter.data_moved, run.hooks.clock)
    sample = sampler(visit, size, options.timeout_seconds + run.estimates.transfer_allowance(visit.case, size, options),
                     pace.tick)
    sample.chain = visit.chain
    report.samples.append(sample)
    run.hooks.check_alive()  # a sample that failed because the link died says so, not "timed out"
    physics.set_aside(record, sample, report, MAX_AUTO_SIZE, target_seconds(visit.case, options))
    physics.give_up_if_never_counted(record, report)
    _update_case(record, sample, options)
    if (rate := resize_after_timeout(record, sample, pace, target_seconds(visit.case, options))) is not None:
        run.estimates.rates[record.case.id] = rate  # its next timeout and the budget follow the pace
        run.estimates.seconds[record.case.id] = (sample.setup_seconds or 0.0) + record.size_bytes / rate
    run.failures = [] if sample.ok or _refused(sample) else [*run.failures, sample]
    run.hooks.doomed(run.failures)
    run.estimates.learn(sample, record.size_bytes)
    run.checkpoint()
    run.done += 1
    # the same counts, less this visit's expected time: it is done (no second pass over the report)
    reporter.sample_finished(sample, Progress(run.done, progress.total, max(0.0, progress.eta_seconds - cost),
                                              progress.by_budget))


def _try_placements(run: _Run, sampler: Sampler, place: Callable[[str], None], spare: float | None) -> None:
    """The placement trial, where it is cheap beside the run and the minimum leaves room for it
    (measure/placing.py); its choice in force after."""
    found = placing.decide(run.report.cases, run.estimates.rates,
                           lambda r: run.estimates.of(r.case, r.size_bytes), run.options.time_budget_seconds,
                           run.options.mode == "decision", spare)
    if isinstance(found, CaseRecord):
        timeout = run.options.timeout_seconds + run.estimates.transfer_allowance(found.case, found.size_bytes,
                                                                                 run.options)
        found = placing.run_trial(found, sampler, place, timeout, run.hooks.clock)
    run.report.placement_trial = found
    run.checkpoint(force=True)


def _calibrate(run: _Run) -> None:
    """Once every pipe throughput case has its minimum (decision mode): measure the machine's noise and choose the
    sample length and pairing for the rest of the run (analysis/stats/noise.py). Not sooner: two samples a case gave
    estimates too rough to act on (the length flipped between 0.3 and 3 s from one seed to the next in
    simulation), and every case's minimum is measured at the one length anyway."""
    report, options = run.report, run.options
    if report.design is not None or options.mode != "decision":
        return
    ids = {r.case.id for r in report.cases if r.case.kind in (CaseKind.CIPHER, CaseKind.MAC) and r.case.is_pipe
           and r.status is not CaseStatus.SKIPPED}
    done: dict[str, int] = {}
    for sample in report.samples:
        if sample.ok and not sample.warmup and sample.case_id in ids:
            done[sample.case_id] = done.get(sample.case_id, 0) + 1
    if not ids or min(done.get(i, 0) for i in ids) < options.min_runs:
        return
    noise = measure(report.samples, ids)
    adapt = options.adapt_length and options.size_bytes is None
    design = choose(noise, sweep_seconds(options), _longest(run, noise.fixed_seconds) if adapt else None)
    report.design = design
    if not design.paired:
        run.rule = dataclasses.replace(run.rule, paired=False)
    if design.sample_seconds != options.sample_seconds:
        run.options = dataclasses.replace(options, sample_seconds=design.sample_seconds)
        for record in run.records.values():
            rate = run.estimates.rates.get(record.case.id)
            if record.size_source == "auto" and rate:
                before = record.size_bytes
                record.size_bytes = sized(rate, target_seconds(record.case, run.options), record.case.streams)
                if record.case.id in run.estimates.seconds:
                    run.estimates.seconds[record.case.id] += (record.size_bytes - before) / rate


def _longest(run: _Run, fixed: float | None) -> float:
    """The longest data phase (at most MAX_SAMPLE_SECONDS) with which every throughput case could still get
    min_runs more samples in MINIMUM_SHARE of the time left: room for the looks after the minimum."""
    left = run.left()
    cases = sum(1 for r in run.records.values() if r.size_source == "auto" and r.status is not CaseStatus.SKIPPED)
    if left is None or not cases:
        return MAX_SAMPLE_SECONDS
    visits = cases * run.options.min_runs
    return min(MAX_SAMPLE_SECONDS, max(0.0, (MINIMUM_SHARE * left - visits * (fixed or 0.25)) / visits))


def _summaries(report: Report, options: RunOptions, rule: DecisionRule) -> list[Summary]:
    mhz = report.environment.host.cpu_mhz
    return summarize(report.cases, report.samples, options.figure_precision, mhz * 1e6 if mhz else None, rule)


def _finish(run: _Run) -> None:
    report = run.report
    if report.status == "complete" and not any(s.ok and not s.warmup for s in report.samples):
        report.status = "failed"  # an empty run is not a complete one (e.g. a budget shorter than the warm-up)
        report.error = nothing_measured(report, run.options.time_budget_seconds)
    for record in report.cases:  # measured, then given up (physics.give_up_if_never_counted): a failure, not a skip
        if record.status is CaseStatus.SKIPPED and record.reason_kind is ReasonKind.SET_ASIDE:
            record.status = CaseStatus.FAILED
    report.finished_at = datetime.now(UTC).isoformat(timespec="milliseconds")
    report.time_use = time_use(report, run.hooks.clock() - run.started)


def _later(plan: Schedule, report: Report, remaining: list[Visit]) -> dict[str, int]:
    """Visits per case certain to come after the current round's remaining ones."""
    in_round: dict[str, int] = {}
    for visit in remaining:
        in_round[visit.case.id] = in_round.get(visit.case.id, 0) + 1
    needed = plan.required(round_state(report)).items()
    return {case_id: n - in_round.get(case_id, 0) for case_id, n in needed if n > in_round.get(case_id, 0)}


def _check_minimum_fits(run: _Run) -> float:
    """After the warm-up, on the visit times it measured: the budget's fit (measure/fitting.py); the seconds it
    leaves beyond the minimum."""
    left = run.left()
    assert left is not None
    required = run.plan.required(round_state(run.report))
    needed = {run.records[case_id].case: count * run.estimates.of(run.records[case_id].case,
                                                                   run.records[case_id].size_bytes)
              for case_id, count in required.items() if count}
    return fit_after_warmup(run.report, run.records, needed, left, run.hooks.clock() - run.started, run.options)


def _live(rnd: list[Visit], records: dict[str, CaseRecord]) -> list[Visit]:
    return [v for v in rnd if records[v.case.id].status is not CaseStatus.SKIPPED]


def _refused(sample: Sample) -> bool:
    """The server does not offer what the case asks: the case is skipped, nothing is wrong with the run."""
    return sample.failure is Failure.REFUSED


def _update_case(record: CaseRecord, sample: Sample, options: RunOptions) -> None:
    if _refused(sample):
        record.status = CaseStatus.SKIPPED
        record.set_reason(sample.error, ReasonKind.REFUSED)
        return
    if sample.warmup and record.case.moves_data and record.case.kind is not CaseKind.CEILING \
            and options.size_bytes is None and record.size_source != "file":
        sized = auto_size(sample, target_seconds(record.case, options), record.case.streams)
        if sized is not None:
            record.size_bytes = sized
            record.size_source = "auto"
        else:
            record.set_reason(f"warm-up failed ({sample.error}); kept the probe size")
