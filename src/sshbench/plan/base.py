"""What every schedule shares: the state a round is planned from, references, passes and pairs.

A schedule (plan/schedules.py, plan/decision.py) hands the run loop one
round at a time, planned from a RoundState: what a report has measured so
far (visits per case, the verdicts' unsettled pairs, back-to-back visits per
pair, each case's place in its table and the wall time of its visits).
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sshbench.analysis.answers.contest import headline_verdicts
from sshbench.analysis.comparisons.dimensions import cross_verdicts
from sshbench.analysis.physics.references import unreliable
from sshbench.analysis.stats.stats import headline_value
from sshbench.analysis.stats.verdicts import look_points, run_rule
from sshbench.plan.funding import funded
from sshbench.results.events import Visit
from sshbench.results.model import Case, CaseKind, CaseStatus, Report, Stat
from sshbench.vocabulary.case_terms import Relation


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
    order: Mapping[str, float] = field(default_factory=dict)  # position in its table so far (by the medians)
    seconds: Mapping[str, float] = field(default_factory=dict)  # a visit's typical wall time, per case
    # open pairs the time left is not spent on yet (plan/funding.py): they wait, neither settled nor futile
    waiting: frozenset[tuple[str, str]] = frozenset()
    # references whose figure is too noisy to compare with yet (analysis/physics/references.reliable): they get more
    unreliable: frozenset[str] = frozenset()
    # the unsettled pairs that are cross pairs (analysis/comparisons/dimensions.py: one case on two builds, stream
    # counts or compressions), not neighbours of a table: the schedule visits them in tables of their own
    cross: frozenset[tuple[str, str]] = frozenset()
    # the unsettled pairs of the link answer's headline: its pick against its nearest rivals (any stream count,
    # compressor or combination; analysis/answers/remedies.headline_pairs), visited in a table of their own
    headline: frozenset[tuple[str, str]] = frozenset()


class Schedule(Protocol):
    """Hands the runner one round at a time, so later rounds can depend on what was measured."""

    def next_round(self, state: RoundState) -> list[Visit]:
        """The next round (empty when finished)."""
        ...

    def required(self, state: RoundState) -> dict[str, int]:
        """Measured visits per case still certain to come, the current round's included (for estimates)."""
        ...


# References (the raw TCP control, crypto ceilings) are not ranked: they need only the samples their own noise
# needs. REFERENCE_RUNS each, and up to the cases' min_runs (an interval) while their spread is wider than this;
# then, while that interval is wider than analysis/physics/references.RELIABLE, up to UNRELIABLE_RUNS.
REFERENCE_RUNS = 3
REMEASURED = 3  # samples a case may have set aside (measure/physics.py) that do not count as its visits
REFERENCE_SPREAD = 0.05
UNRELIABLE_RUNS = 15


def is_reference(case: Case) -> bool:
    return case.kind in (CaseKind.CONTROL, CaseKind.CEILING)


def shuffled(rng: random.Random, cases: Sequence[Case], round_no: int) -> list[Visit]:
    order = [c for c in cases if round_no > 0 or c.kind is not CaseKind.CEILING]
    rng.shuffle(order)
    return [Visit(c, round_no) for c in order]


def short_of(cases: Sequence[Case], wanted: int, state: RoundState) -> dict[str, int]:
    return {c.id: max(0, wanted - state.visits.get(c.id, 0)) for c in cases if c.id not in state.out}


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


def round_state(report: Report, left: float | None = None) -> RoundState:
    """A report's progress as a schedule sees it.

    Visits count failures too, so a failing case cannot loop; the unsettled
    cases come from the verdicts in the report's summaries. With the seconds
    `left` in a budget, only the open pairs that time is spent on count as
    unsettled (plan/funding.py); the others wait their turn.
    """
    visits: dict[str, int] = {}
    set_aside: dict[str, int] = {}
    for sample in report.samples:
        if not sample.warmup:
            visits[sample.case_id] = visits.get(sample.case_id, 0) + 1
        if sample.unusable is not None and not sample.warmup:  # measured again, up to REMEASURED times
            set_aside[sample.case_id] = set_aside.get(sample.case_id, 0) + 1
    for case_id, count in set_aside.items():
        visits[case_id] -= min(REMEASURED, count)
    ranked = sorted((s for s in report.summaries if s.rank is not None), key=lambda s: (s.group, s.rank or 0))
    pairs: set[tuple[str, str]] = set()
    for above, below in itertools.pairwise(ranked):
        if below.group == above.group and below.relation is Relation.UNSETTLED and not below.futile:
            pairs.add((above.case_id, below.case_id))
    cross = _open_cross_pairs(report)
    headline = _open_headline_pairs(report) - cross - {(b, a) for a, b in cross}
    pairs |= cross | headline
    waiting: set[tuple[str, str]] = set()
    if left is not None:
        links = {r.case.id: r.case.link for r in report.cases}
        chosen = funded(report, pairs, left, {p for p in cross if links.get(p[0]) == links.get(p[1])} | headline)
        pairs, waiting = chosen, pairs - chosen
    unsettled = {case_id for pair in pairs for case_id in pair}
    steady = frozenset(s.case_id for s in report.summaries if _within(s.throughput_bytes_per_second, REFERENCE_SPREAD))
    noisy = frozenset(case.id for case, _ in unreliable(report))
    # a case with no counted sample has no figure to refine (its failures must not loop it to the cap), and one
    # summarised without a precision target (precise None) has none to reach
    precise = {s.case_id: s.precise for s in report.summaries if s.samples_ok and s.precise is not None}
    return RoundState(visits, precise, frozenset(unsettled),
                      frozenset(r.case.id for r in report.cases if r.status is CaseStatus.SKIPPED), steady,
                      frozenset(pairs), _paired_visits(report), *_order_and_seconds(report), frozenset(waiting),
                      noisy, frozenset(cross), frozenset(headline))


def _open_cross_pairs(report: Report) -> set[tuple[str, str]]:
    """The cross pairs (faster, slower) not yet settled, nor futile: decision mode only (the other modes take a
    fixed number of samples of every case)."""
    if report.options.mode != "decision":
        return set()
    return {(v.faster, v.slower) for v in cross_verdicts(report, run_rule(report))
            if v.relation is Relation.UNSETTLED and not v.futile}


def _open_headline_pairs(report: Report) -> set[tuple[str, str]]:
    """The link answer's headline pairs (analysis/answers/remedies.py) not yet settled, nor futile: decision mode
    only."""
    if report.options.mode != "decision" or not report.summaries:
        return set()
    return {(v.faster, v.slower) for v in headline_verdicts(report)
            if v.relation is Relation.UNSETTLED and not v.futile}


def _order_and_seconds(report: Report) -> tuple[dict[str, float], dict[str, float]]:
    """Per case: its place in its table so far (the median log cost of its good samples, the warm-up's too:
    only the order of visits depends on it), and the median wall time of a visit."""
    values: dict[str, list[float]] = {}
    seconds: dict[str, list[float]] = {}
    for sample in report.samples:
        if sample.total_seconds is not None:
            seconds.setdefault(sample.case_id, []).append(sample.total_seconds)
        if sample.ok and (value := headline_value(sample)) is not None and value > 0:
            values.setdefault(sample.case_id, []).append(
                -math.log(value) if sample.throughput_bytes_per_second is not None else math.log(value))
    return ({case_id: statistics.median(v) for case_id, v in values.items()},
            {case_id: statistics.median(v) for case_id, v in seconds.items()})


def _paired_visits(report: Report) -> dict[frozenset[str], int]:
    """Passes that visited both cases of a pair so far, per pair (failed samples count: no endless loop)."""
    runs: dict[int, set[str]] = {}
    for sample in report.samples:
        if sample.chain is not None:
            runs.setdefault(sample.chain, set()).add(sample.case_id)
    counts: dict[frozenset[str], int] = {}
    for ids in runs.values():
        for one, two in itertools.combinations(sorted(ids), 2):
            key = frozenset((one, two))
            counts[key] = counts.get(key, 0) + 1
    return counts


def _within(stat: Stat | None, spread: float) -> bool:
    return stat is not None and stat.median > 0 and max(stat.median - stat.min, stat.max - stat.median) \
        <= spread * stat.median
