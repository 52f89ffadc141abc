"""The decision schedule: every case to its minimum in back-to-back passes, then passes over unsettled pairs.

Why back to back, and how the verdicts that steer it are made: the
docstring of DecisionSchedule below, analysis/stats/verdicts.py and
analysis/stats/paired.py, and docs/methodology.md ("The schedule").
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sshbench.analysis.comparisons.dimensions import cross_pairs, families
from sshbench.analysis.stats.verdicts import SETUP_RUNS_FACTOR
from sshbench.plan.base import (
    REFERENCE_RUNS,
    UNRELIABLE_RUNS,
    RoundState,
    chains_of,
    is_reference,
    pair_look_points,
    short_of,
    shuffled,
)
from sshbench.results.events import Visit
from sshbench.results.model import Case


class DecisionSchedule:
    """Every case to min_runs in back-to-back passes over its table; then back-to-back runs of unsettled
    neighbours, look to look, each table on its own.

    The noise of a shared machine is partly slow drift (other load that comes
    and goes over minutes), so two samples taken seconds apart share most of
    it. Every visit after the warm-up is therefore part of a back-to-back run
    (a chain): first, min_runs passes over each table in its current order
    (by the medians so far, the warm-up's at first), so every case gets an
    interval and each pair of neighbours already gets min_runs paired
    visits; then only the neighbour pairs not yet settled (different or
    equivalent) go on, joined into chains (A-B-C when A-B and B-C are both
    unsettled). Each two passes of a chain go once each way (A-B-C and C-B-A,
    which first by a coin), so drift that changes steadily over a pass
    cancels, and the sign of each pair's ratio is as likely either way when
    the two are equally fast. Each pair's verdict is taken from those ratios
    (analysis/stats/paired.py).

    Tables are scheduled independently: each has its own look points (pairs
    visited back to back: PAIR_LOOKS_FROM, then x1.5, up to its cap) and at
    each of its looks only its pairs still unsettled go on. Within a round a
    table gets as many passes as fit in the time of the slowest table's one
    pass (at most MAX_PASSES): a handshake costs about a tenth of a
    throughput sample, so the handshake tables settle in the time one pass
    of the throughput tables takes. Handshake cases may reach
    SETUP_RUNS_FACTOR times max_runs. Verdicts are corrected for every
    planned look of their table (analysis/stats/verdicts.py), so stopping early does
    not make a difference easier to "find". References get REFERENCE_RUNS
    samples, and min_runs when those spread.
    """

    def __init__(self, cases: Sequence[Case], min_runs: int, max_runs: int, seed: int, paired: bool = True,
                 figures: bool = True) -> None:
        """`paired=False` visits every case in shuffled rounds instead, one by one (the design before 0.3, kept
        for the simulations that compare the two: tests/unit/test_paired.py, bench/time_to_decision.py);
        `figures=False` ends where the pairs settle, without sampling the figures to their precision (the
        simulations of how pairs settle)."""
        self.cases = [c for c in cases if not is_reference(c)]
        self.references = [c for c in cases if is_reference(c)]
        self.min_runs = min_runs
        self.max_runs = max_runs
        self.paired = paired
        self.figures = figures
        self._rng = random.Random(seed)
        self._round = -1
        self._ids = {c.id: c for c in self.cases}
        self._tables: dict[str, _Table] = {}
        for case in self.cases:
            table = self._tables.setdefault(case.group, _Table(case.group, pair_look_points(
                max_runs * (1 if case.moves_data else SETUP_RUNS_FACTOR))))
            table.members.append(case.id)
        for (dimension, moves_data), pairs in families(cross_pairs(self.cases)).items():
            self._tables[f"across {dimension}" + ("" if moves_data else " (set-up)")] = _Table(
                dimension, pair_look_points(max_runs * (1 if moves_data else SETUP_RUNS_FACTOR)),
                sorted({i for p in pairs for i in (p.base, p.other)}), cross=True)
        moving = sorted(c.id for c in self.cases if c.moves_data)
        if moving:  # the link answer's headline: its pick against its nearest rivals (analysis/answers/remedies.py)
            self._tables["headline"] = _Table("headline", pair_look_points(max_runs), moving, cross=True,
                                              headline=True)
        self._next_chain = 0

    def next_round(self, state: RoundState) -> list[Visit]:
        self._round += 1
        if self._round == 0:
            return shuffled(self._rng, [c for c in [*self.cases, *self.references] if c.id not in state.out], 0)
        if not self.paired:
            return self._unpaired_round(state)
        blocks: list[list[Visit]] = [[Visit(c, self._round)] for c in self._references_due(state)]
        # no table looks for pairs until every case of every table has its minimum: the run's promise of an
        # interval for each comes first, whatever the budget
        minimum = any(t.short_of_minimum(state, self.min_runs) > 0 for t in self._tables.values())
        runs = {name: table.due(state, self.min_runs) if not minimum or table.short_of_minimum(state, self.min_runs)
                else [] for name, table in self._tables.items()}
        runs = {name: chains for name, chains in runs.items() if chains}
        pass_seconds = {name: sum(state.seconds.get(i, 1.0) for chain in chains for i in chain)
                        for name, chains in runs.items()}
        slowest = max(pass_seconds.values(), default=0.0)
        for name, chains in runs.items():
            table = self._tables[name]
            passes = max(1, min(MAX_PASSES, int(slowest / pass_seconds[name]) if pass_seconds[name] else 1))
            if table.minimum:  # a pass of the minimum is the whole table: no more passes than it still needs
                passes = min(passes, max(1, table.short_of_minimum(state, self.min_runs)))
            for _ in range(passes):
                for chain in chains:
                    self._next_chain += 1
                    ordered = chain if table.forward(self._rng) else chain[::-1]
                    blocks.append([Visit(self._ids[i], self._round, self._next_chain) for i in ordered])
        if not blocks and not minimum and self.figures:
            blocks = self._figures(state)
        self._rng.shuffle(blocks)
        return [visit for block in blocks for visit in block]

    def _figures(self, state: RoundState) -> list[list[Visit]]:
        """Once no table has a pair to visit: the cases whose figure is not yet within the precision target
        (RunOptions.figure_precision), one pass back to back, up to their table's cap. The verdicts were settled
        in far fewer samples than a figure needs (6 samples each: 390.7 ms +-16.4% and 126.5 ms +-52.7%), and the
        user reads the figure too. The run loop's time budget ends this phase where the figures never get there."""
        loose = [c for c in self.cases if c.id not in state.out and state.precise.get(c.id) is False
                 and state.visits.get(c.id, 0) < self.max_runs * (1 if c.moves_data else SETUP_RUNS_FACTOR)]
        if not loose:
            return []
        self._next_chain += 1
        ordered = sorted(loose, key=lambda c: (state.order.get(c.id, math.inf), c.id))
        if self._rng.random() < 0.5:
            ordered.reverse()
        return [[Visit(c, self._round, self._next_chain) for c in ordered]]

    def _unpaired_round(self, state: RoundState) -> list[Visit]:
        """The design before 0.3: every case to min_runs in shuffled rounds, then the cases of unsettled pairs,
        one by one, to the pair look points (counted as visits beyond the minimum)."""
        wanted: dict[str, Case] = {}  # a case of a neighbour pair and a cross pair is visited once
        for table in self._tables.values():
            wanted |= {i: self._ids[i] for i in table.due_unpaired(state, self.min_runs)}
        return shuffled(self._rng, [*wanted.values(), *self._references_due(state)], self._round)

    def _references_due(self, state: RoundState) -> list[Case]:
        due = []
        for case in self.references:
            n = state.visits.get(case.id, 0)
            if case.id not in state.out and (n < REFERENCE_RUNS or (n < self.min_runs and case.id not in state.steady)
                                             or (n < UNRELIABLE_RUNS and case.id in state.unreliable)):
                due.append(case)
        return due

    def required(self, state: RoundState) -> dict[str, int]:
        needed = short_of(self.cases, self.min_runs, state)
        for table in self._tables.values():
            for case_id, more in table.pending(state).items():
                needed[case_id] = needed.get(case_id, 0) + more
        return {**needed, **short_of(self.references, REFERENCE_RUNS, state)}


@dataclass
class _Table:
    """One table's progress in the decision schedule: the minimum, then its looks at unsettled pairs."""

    group: str
    points: tuple[int, ...]  # back-to-back pairs at which this table looks
    members: list[str] = field(default_factory=list)
    look: int = -1  # -1: the minimum; then the index of the look point being worked towards
    active: set[tuple[str, str]] = field(default_factory=set)
    # a table of cross pairs (analysis/comparisons/dimensions.py): its cases get their minimum in their own tables,
    # and its pairs are stars (one case on the first build against each other build), visited as chains of two
    cross: bool = False
    headline: bool = False  # the headline's pairs (RoundState.headline), not the dimensions' cross pairs
    _coin: bool = True
    _passes: int = 0

    @property
    def minimum(self) -> bool:
        return self.look == -1

    def forward(self, rng: random.Random) -> bool:
        """Each two passes go once each way; which first, by a coin."""
        if self._passes % 2 == 0:
            self._coin = rng.random() < 0.5
        self._passes += 1
        return self._coin if self._passes % 2 else not self._coin

    def _live(self, state: RoundState) -> list[str]:
        return [i for i in self.members if i not in state.out]

    def due(self, state: RoundState, min_runs: int) -> list[list[str]]:
        """The chains to visit this round (each once; passes are the caller's): the whole table in its current
        order while a case is short of the minimum, then the active unsettled pairs' chains."""
        live = self._live(state)
        if self.minimum and self.short_of_minimum(state, min_runs):
            return [] if self.cross else [sorted(live, key=lambda i: (state.order.get(i, math.inf), i))]
        if self.minimum:
            self.look = 0
            self.active = self._unsettled(state)
        pairs = self._advance(state, lambda p: state.paired.get(frozenset(p), 0))
        return [list(p) for p in sorted(pairs)] if self.cross else chains_of(pairs)

    def short_of_minimum(self, state: RoundState, min_runs: int) -> int:
        """Passes this table still needs for its minimum (0: it has it)."""
        return max(0, max((min_runs - state.visits.get(i, 0) for i in self._live(state)), default=0))

    def due_unpaired(self, state: RoundState, min_runs: int) -> list[str]:
        live = self._live(state)
        short = [i for i in live if state.visits.get(i, 0) < min_runs]
        if self.minimum and short:
            return [] if self.cross else short
        if self.minimum:
            self.look = 0
            self.active = self._unsettled(state)
        pairs = self._advance(state, lambda p: min(state.visits.get(i, 0) for i in p) - min_runs)
        return sorted({i for p in pairs for i in p})

    def _unsettled(self, state: RoundState) -> set[tuple[str, str]]:
        return {p for p in state.unsettled_pairs if self._mine(p, state) and not set(p) & state.out}

    def _mine(self, pair: tuple[str, str], state: RoundState) -> bool:
        """A neighbour pair of this table, or (a cross table) a cross pair of its cases."""
        if self.headline:
            return pair in state.headline
        if self.cross:
            return pair in state.cross and pair[0] in self.members and pair[1] in self.members
        return pair not in state.cross and pair not in state.headline and pair[0] in self.members

    def _advance(self, state: RoundState, progress: Callable[[tuple[str, str]], int]) -> set[tuple[str, str]]:
        """The pairs still short of the current look point; at a look (all reached it), the next point with the
        pairs still unsettled."""
        while self.look < len(self.points):
            live = {p for p in self.active if not set(p) & state.out}
            due = {p for p in live if progress(p) < self.points[self.look]}
            if due:
                return due
            fresh = self._unsettled(state)
            if self.headline and (not fresh or not live):
                # the headline's pick and rivals change as the medians do: never finished while the run goes on;
                # pairs that appear start at the current look point
                self.active = fresh
                if not fresh:
                    return set()
                continue
            if not fresh and any(self._mine(p, state) for p in state.waiting):
                self.active = set()  # its open pairs wait for time another table's may free: not finished
                return set()
            if not fresh:
                self.look = len(self.points)  # nothing open, nothing waiting: the table is done
                return set()
            self.look += 1  # a look: every active pair has reached the look point
            self.active = fresh
        return set()

    def pending(self, state: RoundState) -> dict[str, int]:
        """Visits per case certain to come before this table's next look (for progress counts and the ETA)."""
        if self.minimum or self.look >= len(self.points):
            return {}
        out: dict[str, int] = {}
        for chain in [list(p) for p in sorted(self.active)] if self.cross else chains_of(self.active):
            left = max(self.points[self.look] - state.paired.get(frozenset(pair), 0)
                       for pair in itertools.pairwise(chain))
            for case_id in chain:
                out[case_id] = out.get(case_id, 0) + max(0, left)
        return out


MAX_PASSES = 8  # passes of one table's chains in one round (the cheap handshake tables)
