"""From cases to a seeded, interleaved schedule: which case to visit next, round by round.

Rounds visit every case once in a shuffled order, so slow drift of the machine
(thermal, a neighbour's load) spreads evenly over all cases instead of
landing on whichever ran last. Round 0 is the warm-up: kept, flagged, not
counted, and it sizes each throughput case (crypto ceilings skip it: nothing
to size, and each costs a whole second).

Three schedules, one per mode (RunOptions.mode):
- DecisionSchedule (default): min_runs rounds of every case, so every case
  has an interval; then, at look points (x1.5 apart, analysis/decide.py),
  only the cases not yet settled against a ranking neighbour continue.
  References (control, ceilings) take the samples their own noise needs.
- PrecisionSchedule (--precision): rounds continue for the cases whose
  median interval is still wider than the target.
- FixedSchedule (--runs): exactly so many samples per case.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sshbench.analysis.decide import look_points
from sshbench.kinds import Relation
from sshbench.options import RunOptions
from sshbench.results.events import Visit
from sshbench.results.model import Case, CaseKind, CaseStatus, Report, Stat


@dataclass(frozen=True)
class RoundState:
    """What has been measured so far, as a schedule needs it to plan the next round."""

    visits: Mapping[str, int] = field(default_factory=dict)  # measured visits per case id (failures count)
    precise: Mapping[str, bool] = field(default_factory=dict)  # median interval within the precision target
    unsettled: frozenset[str] = frozenset()  # cases not yet settled against a neighbour, and not futile to sample
    out: frozenset[str] = frozenset()  # cases that cannot be measured (the server refused them)
    steady: frozenset[str] = frozenset()  # references whose samples all lie within REFERENCE_SPREAD of their median
    # neighbours not yet settled against each other (and not futile), as (faster, slower) case ids
    unsettled_pairs: frozenset[tuple[str, str]] = frozenset()
    paired: Mapping[frozenset[str], int] = field(default_factory=dict)  # back-to-back visits made per pair


class Schedule(Protocol):
    """Hands the runner one round at a time, so later rounds can depend on what was measured."""

    def next_round(self, state: RoundState) -> list[Visit]:
        """The next round (empty when finished)."""
        ...

    def required(self, state: RoundState) -> dict[str, int]:
        """Measured visits per case still certain to come, the current round's included (for estimates)."""
        ...


# References (the raw TCP control, crypto ceilings) are not ranked: they need only the samples their own noise
# needs. REFERENCE_RUNS each, and up to the cases' min_runs (an interval) while their spread is wider than this.
REFERENCE_RUNS = 3
REFERENCE_SPREAD = 0.05


def is_reference(case: Case) -> bool:
    return case.kind in (CaseKind.CONTROL, CaseKind.CEILING)


def _shuffled(rng: random.Random, cases: Sequence[Case], round_no: int) -> list[Visit]:
    order = [c for c in cases if round_no > 0 or c.kind is not CaseKind.CEILING]
    rng.shuffle(order)
    return [Visit(c, round_no) for c in order]


def _short_of(cases: Sequence[Case], wanted: int, state: RoundState) -> dict[str, int]:
    return {c.id: max(0, wanted - state.visits.get(c.id, 0)) for c in cases if c.id not in state.out}


class FixedSchedule:
    """Warm-up, then `runs` measured visits per throughput case and `setup_runs` per set-up case."""

    def __init__(self, cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> None:
        self.cases, self.runs, self.setup_runs = list(cases), runs, setup_runs
        self._rng = random.Random(seed)
        self._round = -1

    def _wanted(self, case: Case) -> int:
        return self.runs if case.moves_data else self.setup_runs

    def next_round(self, state: RoundState) -> list[Visit]:
        self._round += 1
        return _shuffled(self._rng, [c for c in self.cases if self._round <= self._wanted(c)
                                     and c.id not in state.out], self._round)

    def required(self, state: RoundState) -> dict[str, int]:
        return {c.id: max(0, self._wanted(c) - state.visits.get(c.id, 0)) for c in self.cases
                if c.id not in state.out}


class PrecisionSchedule:
    """Rounds continue until each case's median interval is within the target or it hits max_runs.

    Every case gets min_runs measured visits (6 is the least that gives a 95%
    order-statistic interval); after that a round holds only the cases still
    short of the target, so the time goes where the uncertainty is.
    """

    def __init__(self, cases: Sequence[Case], min_runs: int, max_runs: int, seed: int) -> None:
        self.cases, self.min_runs, self.max_runs = list(cases), min_runs, max_runs
        self._rng = random.Random(seed)
        self._round = -1

    def next_round(self, state: RoundState) -> list[Visit]:
        self._round += 1
        live = [c for c in self.cases if c.id not in state.out]
        if self._round == 0:
            return _shuffled(self._rng, live, 0)
        wanted = [c for c in live
                  if state.visits.get(c.id, 0) < self.min_runs
                  or (state.visits.get(c.id, 0) < self.max_runs and not state.precise.get(c.id, False))]
        return _shuffled(self._rng, wanted, self._round)

    def required(self, state: RoundState) -> dict[str, int]:
        return _short_of(self.cases, self.min_runs, state)


class DecisionSchedule:
    """Every case to min_runs, interleaved; then back-to-back runs of unsettled neighbours, look to look.

    First every case gets min_runs visits in shuffled rounds, so each has an
    interval (a look). From then on the samples go only to neighbour pairs
    not yet settled (different or equivalent). Unsettled neighbours of one
    table form chains (A-B-C when A-B and B-C are both unsettled), and each
    round visits each chain back to back, one case right after the other,
    in alternating directions (A-B-C, then C-B-A): the slow drift of a
    shared machine, which dominates its noise, cancels between consecutive
    visits, and each pair's verdict is taken from those ratios
    (analysis/paired.py); a chain of k cases gives k - 1 such ratios for k
    visits. Pairs are visited up to the pair look points (PAIR_LOOKS_FROM,
    then x1.5, up to max_runs); at each look only the pairs still unsettled
    go on. Verdicts are corrected for every planned look, so stopping early
    does not make a difference easier to "find" (analysis/decide.py).
    References get REFERENCE_RUNS samples, and min_runs when those spread.
    """

    def __init__(self, cases: Sequence[Case], min_runs: int, max_runs: int, seed: int, paired: bool = True) -> None:
        """`paired=False` visits the cases of unsettled pairs one by one in shuffled rounds instead of back to
        back (the design before 0.3, kept for bench/time_to_decision.py and the tests that compare them)."""
        self.cases = [c for c in cases if not is_reference(c)]
        self.references = [c for c in cases if is_reference(c)]
        self.min_runs = min_runs
        self.paired = paired
        self.points = pair_look_points(max_runs)
        self._rng = random.Random(seed)
        self._round = -1
        self._look = -1  # -1: the interleaved minimum; then the index of the pairs' look point
        self._active: set[tuple[str, str]] = set()
        self._ids = {c.id: c for c in self.cases}
        self._next_chain = 0

    def next_round(self, state: RoundState) -> list[Visit]:
        self._round += 1
        if self._round == 0:
            return _shuffled(self._rng, [c for c in [*self.cases, *self.references] if c.id not in state.out], 0)
        minimum = [c for c in self.cases if c.id not in state.out and state.visits.get(c.id, 0) < self.min_runs]
        if minimum or (self._look == -1 and not self._start_pairs(state)):
            return _shuffled(self._rng, [*minimum, *self._references_due(state)], self._round)
        return [*self._chains_due(state), *_shuffled(self._rng, self._references_due(state), self._round)]

    def _start_pairs(self, state: RoundState) -> bool:
        """The first look: every case has its minimum; the unsettled neighbours become the active pairs."""
        self._look = 0
        self._active = set(state.unsettled_pairs)
        return bool(self._active)

    def _chains_due(self, state: RoundState) -> list[Visit]:
        if self._look >= len(self.points):
            return []
        live = {p for p in self._active if not set(p) & state.out}
        if all(self._progress(p, state) >= self.points[self._look] for p in live):
            self._look += 1  # a look: every active pair has reached the look point
            if self._look >= len(self.points):
                return []
            self._active = live = {p for p in state.unsettled_pairs if not set(p) & state.out}
        target = self.points[self._look]
        due = {p for p in live if self._progress(p, state) < target}
        if not self.paired:
            return _shuffled(self._rng, [self._ids[i] for i in sorted({i for p in due for i in p})], self._round)
        chains = chains_of(due)
        self._rng.shuffle(chains)
        visits = []
        for chain in chains:
            self._next_chain += 1
            ordered = chain if self._round % 2 else chain[::-1]  # alternate the direction: A-B-C, then C-B-A
            visits += [Visit(self._ids[case_id], self._round, self._next_chain) for case_id in ordered]
        return visits

    def _references_due(self, state: RoundState) -> list[Case]:
        due = []
        for case in self.references:
            n = state.visits.get(case.id, 0)
            if case.id not in state.out and (n < REFERENCE_RUNS or (n < self.min_runs and case.id not in state.steady)):
                due.append(case)
        return due

    def _progress(self, pair: tuple[str, str], state: RoundState) -> int:
        """How far a pair is towards the next look: its back-to-back visits (unpaired: its cases' visits beyond
        the minimum)."""
        if self.paired:
            return state.paired.get(frozenset(pair), 0)
        return min(state.visits.get(i, 0) for i in pair) - self.min_runs

    def required(self, state: RoundState) -> dict[str, int]:
        needed = _short_of(self.cases, self.min_runs, state)
        if 0 <= self._look < len(self.points):  # the active pairs' visits up to their next look
            for chain in chains_of(self._active):
                left = max(self.points[self._look] - state.paired.get(frozenset(pair), 0)
                           for pair in itertools.pairwise(chain))
                for case_id in chain:
                    needed[case_id] = needed.get(case_id, 0) + max(0, left)
        return {**needed, **_short_of(self.references, REFERENCE_RUNS, state)}


PAIR_LOOKS_FROM = 12  # back-to-back pairs at the first paired look: 12 all one way give p = 2/4096, which can
# pass Holm's correction over a large table's pairs and every look; fewer never could


def pair_look_points(max_runs: int) -> tuple[int, ...]:
    """Pair counts at which the decision schedule looks at the paired verdicts: 12, 18, 27 ... up to max_runs."""
    return look_points(PAIR_LOOKS_FROM, max(PAIR_LOOKS_FROM, max_runs))


def chains_of(pairs: set[tuple[str, str]] | frozenset[tuple[str, str]]) -> list[list[str]]:
    """Neighbour pairs (faster, slower) joined into runs: (a, b) and (b, c) make a-b-c. Sorted, for a seeded
    schedule that does not depend on set order."""
    after = dict(sorted(pairs))
    heads = sorted(set(after) - set(after.values()))
    chains = []
    for head in heads:
        chain = [head]
        while chain[-1] in after and len(chain) <= len(pairs):
            chain.append(after[chain[-1]])
        chains.append(chain)
    return chains


def round_state(report: Report) -> RoundState:
    """A report's progress as a schedule sees it.

    Visits count failures too, so a failing case cannot loop; the unsettled
    cases come from the verdicts in the report's summaries.
    """
    visits: dict[str, int] = {}
    for sample in report.samples:
        if not sample.warmup:
            visits[sample.case_id] = visits.get(sample.case_id, 0) + 1
    ranked = sorted((s for s in report.summaries if s.rank is not None), key=lambda s: (s.group, s.rank or 0))
    unsettled, pairs = set(), set()
    for above, below in itertools.pairwise(ranked):
        if below.group == above.group and below.relation is Relation.UNSETTLED and not below.futile:
            unsettled |= {above.case_id, below.case_id}
            pairs.add((above.case_id, below.case_id))
    steady = frozenset(s.case_id for s in report.summaries if _within(s.throughput_bytes_per_second, REFERENCE_SPREAD))
    return RoundState(visits, {s.case_id: bool(s.precise) for s in report.summaries}, frozenset(unsettled),
                      frozenset(r.case.id for r in report.cases if r.status is CaseStatus.SKIPPED), steady,
                      frozenset(pairs), _paired_visits(report))


def _paired_visits(report: Report) -> dict[frozenset[str], int]:
    """Back-to-back visits made so far, per pair of cases (failed samples count: no endless loop)."""
    runs: dict[int, list[str]] = {}
    for sample in report.samples:
        if sample.chain is not None:
            runs.setdefault(sample.chain, []).append(sample.case_id)
    counts: dict[frozenset[str], int] = {}
    for ids in runs.values():
        for one, two in itertools.pairwise(ids):
            key = frozenset((one, two))
            counts[key] = counts.get(key, 0) + 1
    return counts


def _within(stat: Stat | None, spread: float) -> bool:
    return stat is not None and stat.median > 0 and max(stat.median - stat.min, stat.max - stat.median) \
        <= spread * stat.median


def schedule_for(options: RunOptions, cases: Sequence[Case], seed: int) -> Schedule:
    """The schedule of the run's mode."""
    if options.runs is not None:
        return FixedSchedule(cases, options.runs, options.setup_runs, seed)
    if options.precision is not None:
        return PrecisionSchedule(cases, options.min_runs, options.max_runs, seed)
    return DecisionSchedule(cases, options.min_runs, options.max_runs, seed)


def schedule(cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> list[list[Visit]]:
    """All rounds of a fixed schedule at once (for tests and benchmarks)."""
    fixed = FixedSchedule(cases, runs, setup_runs, seed)
    rounds = []
    while rnd := fixed.next_round(RoundState()):
        rounds.append(rnd)
    return rounds
