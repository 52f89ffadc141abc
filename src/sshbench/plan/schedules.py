"""From cases to a seeded schedule: which case to visit next, round by round, in each mode.

Round 0 is the warm-up: kept, flagged, not counted, and it sizes each
throughput case (crypto ceilings skip it: nothing to size, and each costs a
whole second). Then one schedule per mode (RunOptions.mode):
- DecisionSchedule (default, plan/decision.py): every case to min_runs in
  back-to-back passes over its table, so every case has an interval; then
  passes over the neighbour pairs not yet settled, each table with its own
  look points (analysis/stats/verdicts.py). References (control, ceilings) take the
  samples their own noise needs.
- PrecisionSchedule (--precision): shuffled rounds continue for the cases
  whose median interval is still wider than the target.
- FixedSchedule (--runs): so many counted samples per case, in shuffled
  rounds, so slow drift of the machine spreads evenly over all cases; a
  sample set aside (measure/physics.py, a file set no longer than its
  1-byte run) is measured again in a later round, up to REMEASURED times.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from sshbench.options import RunOptions
from sshbench.plan.base import REMEASURED, short_of, shuffled
from sshbench.plan.base import RoundState as RoundState
from sshbench.plan.base import Schedule as Schedule
from sshbench.plan.base import pair_look_points as pair_look_points
from sshbench.plan.base import round_state as round_state
from sshbench.plan.decision import DecisionSchedule as DecisionSchedule
from sshbench.results.events import Visit
from sshbench.results.model import Case


class FixedSchedule:
    """Warm-up, then `runs` counted visits per throughput case and `setup_runs` per set-up case.

    Rounds 1..wanted visit every case; a case short of its count after them
    (samples set aside: RoundState.visits does not count them, up to
    REMEASURED) gets one more visit per round until it has its count or
    REMEASURED extra rounds are spent. Without the extra rounds `--runs 6`
    could report 4 counted samples as if 6 had been asked for and got.
    """

    def __init__(self, cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> None:
        self.cases, self.runs, self.setup_runs = list(cases), runs, setup_runs
        self._rng = random.Random(seed)
        self._round = -1

    def _wanted(self, case: Case) -> int:
        return self.runs if case.moves_data else self.setup_runs

    def next_round(self, state: RoundState) -> list[Visit]:
        self._round += 1
        return shuffled(self._rng, [c for c in self.cases if self._due(c, state) and c.id not in state.out],
                        self._round)

    def _due(self, case: Case, state: RoundState) -> bool:
        wanted = self._wanted(case)
        return self._round <= wanted or (self._round <= wanted + REMEASURED and state.visits.get(case.id, 0) < wanted)

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
            return shuffled(self._rng, live, 0)
        wanted = [c for c in live
                  if state.visits.get(c.id, 0) < self.min_runs
                  # short of its precision: a case with no counted sample has none to reach (round_state)
                  or (state.visits.get(c.id, 0) < self.max_runs and state.precise.get(c.id) is False)]
        return shuffled(self._rng, wanted, self._round)

    def required(self, state: RoundState) -> dict[str, int]:
        return short_of(self.cases, self.min_runs, state)


def schedule_for(options: RunOptions, cases: Sequence[Case], seed: int) -> Schedule:
    """The schedule of the run's mode."""
    if options.runs is not None:
        return FixedSchedule(cases, options.runs, options.setup_runs, seed)
    if options.precision is not None:
        return PrecisionSchedule(cases, options.min_runs, options.max_runs, seed)
    return DecisionSchedule(cases, options.min_runs, options.max_runs, seed)


def schedule(cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> list[list[Visit]]:
    """All rounds of a fixed schedule at once, every sample counting (for tests and benchmarks)."""
    fixed = FixedSchedule(cases, runs, setup_runs, seed)
    rounds: list[list[Visit]] = []
    visits: dict[str, int] = {}
    while rnd := fixed.next_round(RoundState(visits=dict(visits))):
        rounds.append(rnd)
        for visit in rnd:
            if visit.round > 0:
                visits[visit.case.id] = visits.get(visit.case.id, 0) + 1
    return rounds
