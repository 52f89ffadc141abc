"""A simulated machine for the run loop: cases with a known truth, drift from other load, a fixed cost per connection.

`FakeSampler` is a sampler (measure/loop.py) that takes no SSH at all: each
case's data phase runs at its true rate, slowed by a load factor that
drifts slowly with (simulated) time, the way other jobs on a shared VM
slow everything for minutes at a time (samples seconds apart agree far
better than samples minutes apart); a fixed per-connection cost sits inside
the data phase (what regression over real runs found: ~0.1 s of server CPU
and 0.11-0.18 s of wall time per connection), plus per-sample noise. Time
is a `FakeClock` the sampler advances, so budgets and ETAs work as in a
real run, in microseconds of real time. `simulate` drives the real loop
with the real decision schedule: what a run would decide on such a machine.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from typing import Any

from sshbench.analysis.stats.verdicts import DecisionRule
from sshbench.measure.loop import Hooks, run_loop
from sshbench.options import RunOptions
from sshbench.plan.budget import STEADY_FROM
from sshbench.plan.decision import DecisionSchedule
from sshbench.plan.schedules import schedule_for
from sshbench.results.events import Visit
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.vocabulary.case_terms import Relation

BYTES = 100_000_000


def case(i: int, table: int = 0) -> Case:
    """Case i of table 0 (ciphers, upload), 1 (ciphers, download) or 2 (MACs, upload)."""
    if table == 2:
        return Case(CaseKind.MAC, Direction.UPLOAD, mac=f"m{i}")
    return Case(CaseKind.CIPHER, (Direction.UPLOAD, Direction.DOWNLOAD)[table], cipher=f"c{i}")


def sample(case: Case, rng: random.Random, rate: float, cv: float, round_no: int) -> Sample:
    measured = rate * rng.lognormvariate(0, cv)
    return Sample(case.id, round_no, round_no == 0, True, "", BYTES, bytes_received=BYTES,
                  data_seconds=BYTES / measured, total_seconds=BYTES / measured + 0.1)


@dataclass
class FakeClock:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeSampler:
    """Samples of a simulated machine (module docstring); deterministic for a seed."""

    rates: dict[str, float]  # case id -> true data-phase rate, bytes/s, on an idle machine (set-up cases: seconds)
    clock: FakeClock = field(default_factory=FakeClock)
    noise_cv: float = 0.0  # independent noise of each sample, from one connection to the next (log SD)
    # noise from inside one connection, which a longer sample averages away: its log SD for a data phase of
    # within_seconds, as 1/sqrt(length) for others (each steady state's two halves get theirs independently)
    within_cv: float = 0.0
    within_seconds: float = 0.3
    setup_noise_cv: float | None = None  # the same for handshake times (default: noise_cv)
    drift_sd: float = 0.0  # stationary log SD of the load factor
    drift_seconds: float = 120.0  # how slowly it drifts: the load's correlation time
    setup_seconds: float = 0.1  # handshake and login, before the data phase
    fixed_seconds: float = 0.0  # a per-connection cost inside the data phase
    server_cpu_per_byte: dict[str, float] = field(default_factory=dict)  # case id -> seconds per byte
    client_cpu_per_byte: dict[str, float] = field(default_factory=dict)
    cpu_noise_cv: float = 0.0  # the CPU a side spends per byte varies this much, and not with the load
    fixed_server_cpu: float = 0.0
    seed: int = 0
    fail: set[str] = field(default_factory=set)  # case ids whose every sample fails
    steady: bool = True  # time the steady state as the pipe does (False: the whole data phase only)
    # In free placement (place("free"), the placement trial's switch): per-sample noise and speed. None: the
    # machine does not care where its ends run.
    free_noise_cv: float | None = None
    free_speed: float = 1.0
    placement: str = "split"
    taken: list[tuple[str, str]] = field(default_factory=list)  # (case id, placement) of every sample, in order
    _rng: random.Random = field(init=False)
    _load: float = 0.0
    _at: float = 0.0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def load(self) -> float:
        """The load factor now (1 = idle), its log an Ornstein-Uhlenbeck process in simulated time."""
        elapsed, self._at = self.clock.now - self._at, self.clock.now
        keep = math.exp(-elapsed / self.drift_seconds) if self.drift_seconds > 0 else 0.0
        self._load = self._load * keep + self.drift_sd * math.sqrt(1 - keep * keep) * self._rng.gauss(0, 1)
        return math.exp(self._load)

    def place(self, kind: str) -> None:
        self.placement = kind

    def __call__(self, visit: Visit, size: int, timeout: float, tick: object) -> Sample:
        case_id = visit.case.id
        self.taken.append((case_id, self.placement))
        free = self.placement == "free" and self.free_noise_cv is not None
        result = Sample(case_id, visit.round, visit.round == 0, False, "", size)
        if case_id in self.fail:
            result.error = "simulated failure"
            self.clock.now += self.setup_seconds
            return result
        if not visit.case.moves_data:  # a set-up case: its truth is a handshake time (seconds), slowed by the load
            noise = self.noise_cv if self.setup_noise_cv is None else self.setup_noise_cv
            handshake = self.rates[case_id] * self.load() * self._rng.lognormvariate(0, noise)
            result.ok, result.phases = True, {"banner_sent": 0.0, "session_open": handshake}
            result.total_seconds = self.setup_seconds + handshake
            self.clock.now += result.total_seconds
            return result
        rate = self.rates[case_id] / self.load() * self._rng.lognormvariate(
            0, self.free_noise_cv if free and self.free_noise_cv is not None else self.noise_cv)
        rate *= self.free_speed if free else 1.0
        if visit.case.kind is CaseKind.CEILING:  # openssl speed: whole seconds, no connection
            result.ok, result.bytes_received, result.data_seconds = True, int(rate), 1.0
            result.total_seconds = 1.1
            self.clock.now += result.total_seconds
            return result
        if self.within_cv:  # each half (in time) of the steady state at its own rate
            half_cv = self.within_cv * math.sqrt(2 * self.within_seconds / (size / rate))
            first, second = (rate * self._rng.lognormvariate(0, half_cv) for _ in range(2))
            rate = (first + second) / 2
        else:
            first = second = rate
        data = self.fixed_seconds + size / rate
        result.ok, result.bytes_received, result.data_seconds = True, size, data
        if self.steady:  # the last three quarters, timed past the start-up: the fixed cost is not in it
            steady = size - size // STEADY_FROM
            result.steady_bytes, result.steady_seconds = steady, steady / rate
            result.steady_half_bytes = round(steady * first / (first + second))
        result.total_seconds = self.setup_seconds + data
        if case_id in self.server_cpu_per_byte:
            per_byte = self.server_cpu_per_byte[case_id] * self._rng.lognormvariate(0, self.cpu_noise_cv)
            result.server_cpu_user_seconds = self.fixed_server_cpu + size * per_byte
            result.server_cpu_sys_seconds = 0.0
            if self.steady:
                result.server_cpu_steady_seconds = (result.steady_bytes or 0) * per_byte
        if case_id in self.client_cpu_per_byte:
            per_byte = self.client_cpu_per_byte[case_id] * self._rng.lognormvariate(0, self.cpu_noise_cv)
            result.client_cpu_user_seconds, result.client_cpu_sys_seconds = size * per_byte, 0.0
            if self.steady:
                result.client_cpu_steady_seconds = (result.steady_bytes or 0) * per_byte
        self.clock.now += result.total_seconds
        return result


def simulate(rates: list[float] | list[list[float]], cv: float, seed: int, options: RunOptions | None = None,
             rule: DecisionRule | None = None, paired: bool = True, sizes: dict[str, int] | None = None,
             adapt: bool = True, builds: dict[str, float] | None = None, placed: bool = False,
             figures: bool = False, **machine: object) -> Report:
    """A decision-mode run, through the real loop and schedule, over cases with these true rates (bytes/s of
    BYTES-sized samples, unbudgeted unless `options` say otherwise; a list of lists is up to three tables);
    `machine` sets FakeSampler's drift and fixed costs (and may set noise_cv for `cv`); `paired=False` is the
    design without back-to-back runs, `adapt=False` the one that does not choose its sample length and pairing
    from the noise nor spend the time left by forecast; `builds`: every case on each of these builds, its true
    rate times the build's factor (the first is the baseline, like --build stock --build ...); `placed`: the run
    may try both placements (--placement auto), the machine's free_noise_cv and free_speed saying what free does;
    `figures`: after the pairs settle, sample each figure to its precision as a real run does (off: these
    simulations are of how pairs settle)."""
    options = options or RunOptions(time_budget_seconds=None, size_bytes=BYTES)
    tables = [list(t) for t in rates if isinstance(t, list)] or \
        [[float(r) for r in rates if not isinstance(r, list)]]
    cases = [case(i, t) for t, table in enumerate(tables) for i in range(len(table))]
    truth = [r for table in tables for r in table]
    if builds:
        cases = [dataclasses.replace(c, build=name) for name in builds for c in cases]
        truth = [r * factor for factor in builds.values() for r in truth]
    clock = FakeClock()
    sampler = FakeSampler({c.id: r for c, r in zip(cases, truth, strict=True)}, clock, seed=seed,
                          **{"noise_cv": cv, **machine})  # type: ignore[arg-type]
    report = Report("test", "", seed, options=options, cases=[CaseRecord(c) for c in cases])
    for record in report.cases:  # sizes set by hand, as the file methods' are: not resized after the warm-up
        if sizes and record.case.id in sizes:
            record.size_bytes, record.size_source = sizes[record.case.id], "file"
    plan = schedule_for(options, cases, seed) if options.mode != "decision" else \
        DecisionSchedule(cases, options.min_runs, options.max_runs, seed, paired=paired, figures=figures)
    hooks = Hooks(clock=clock, place=sampler.place if placed else None)
    return run_loop(report, plan, sampler, options, lambda _report: None, hooks=hooks, rule=rule, adapt=adapt)


# Two machines the design is tested on (tests/unit/test_design.py, bench/decision_calibration.py), each with a
# visit's fixed costs as measured (0.1 s of handshake, ~0.13 s of start-up inside the data phase):
# - drifting: a quiet Xeon VM's kind of noise: little per sample (log SD 0.03), a load that drifts over minutes
#   (log SD 0.08, correlation time 120 s);
# - white: a 2-vCPU AMD EPYC VM's (../shared/data/runs, 2026-11-25): no drift at all (its variogram is flat from
#   0-3 s to 200-400 s), per-sample log SD 0.2, of which part comes from inside a connection. How much is not in
#   that file (it predates the halves); WITHIN_SHARE is an assumption, and the design tests also run with none.
WITHIN_SHARE = 0.15  # of the white machine's per-sample variance (this machine, 2026-11-25: 0.13)
DRIFTING: dict[str, Any] = {"noise_cv": 0.03, "drift_sd": 0.08, "drift_seconds": 120.0, "fixed_seconds": 0.13}
WHITE: dict[str, Any] = {"noise_cv": 0.2 * math.sqrt(1 - WITHIN_SHARE), "within_cv": 0.2 * math.sqrt(WITHIN_SHARE),
         "fixed_seconds": 0.13}
WHITE_BETWEEN_ONLY: dict[str, Any] = {"noise_cv": 0.2, "fixed_seconds": 0.13}


def counts(report: Report) -> dict[str, int]:
    return {s.case_id: s.samples_ok for s in report.summaries}


def relations(report: Report) -> list[Relation]:
    return [s.relation for s in sorted(report.summaries, key=lambda s: s.rank or 0) if s.relation is not None]
