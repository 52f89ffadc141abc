"""From cases to a seeded, interleaved schedule: which case to visit next, round by round.

Rounds visit every case once in a shuffled order, so slow drift of the machine
(thermal, a neighbour's load) spreads evenly over all cases instead of
landing on whichever ran last. Round 0 is the warm-up: kept, flagged, not
counted, and it sizes each throughput case.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from sshbench.results.model import Case


@dataclass(frozen=True)
class Visit:
    case: Case
    round: int  # 0 = warm-up


class Schedule(Protocol):
    """Hands the runner one round at a time, so later rounds can depend on what was measured."""

    def next_round(self, visits_done: Mapping[str, int], precise: Mapping[str, bool]) -> list[Visit]:
        """The next round (empty when finished); visits_done counts measured visits per case id."""
        ...

    def minimum_left(self, visits_done: Mapping[str, int]) -> int:
        """Visits still certain to come after the current round (for the progress estimate)."""
        ...


def _shuffled(rng: random.Random, cases: Sequence[Case], round_no: int) -> list[Visit]:
    order = list(cases)
    rng.shuffle(order)
    return [Visit(c, round_no) for c in order]


class FixedSchedule:
    """Warm-up, then `runs` measured visits per throughput case and `setup_runs` per set-up case."""

    def __init__(self, cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> None:
        self.cases, self.runs, self.setup_runs = list(cases), runs, setup_runs
        self._rng = random.Random(seed)
        self._round = -1

    def _wanted(self, case: Case) -> int:
        return self.runs if case.moves_data else self.setup_runs

    def next_round(self, visits_done: Mapping[str, int], precise: Mapping[str, bool]) -> list[Visit]:
        self._round += 1
        return _shuffled(self._rng, [c for c in self.cases if self._round <= self._wanted(c)], self._round)

    def minimum_left(self, visits_done: Mapping[str, int]) -> int:
        return sum(max(0, self._wanted(c) - max(self._round, 0)) for c in self.cases)


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

    def next_round(self, visits_done: Mapping[str, int], precise: Mapping[str, bool]) -> list[Visit]:
        self._round += 1
        if self._round == 0:
            return _shuffled(self._rng, self.cases, 0)
        wanted = [c for c in self.cases
                  if visits_done.get(c.id, 0) < self.min_runs
                  or (visits_done.get(c.id, 0) < self.max_runs and not precise.get(c.id, False))]
        return _shuffled(self._rng, wanted, self._round)

    def minimum_left(self, visits_done: Mapping[str, int]) -> int:
        return sum(max(0, self.min_runs - max(self._round, 0)) for c in self.cases)


def schedule(cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> list[list[Visit]]:
    """All rounds of a fixed schedule at once (for tests and benchmarks)."""
    fixed = FixedSchedule(cases, runs, setup_runs, seed)
    rounds = []
    while rnd := fixed.next_round({}, {}):
        rounds.append(rnd)
    return rounds
