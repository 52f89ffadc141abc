"""The comparisons a run exists for across its dimensions: the same case on each build, stream count, compression
and link.

A run with `--build stock --build hpn-ssh` asks "does HPN-SSH help here?",
one with `--streams 1,4` "do 4 streams move more?". Those cases sit in
tables of their own (one per build, stream count, compression), so no
ranking ever puts them side by side, and before this module a run ended
once each table's own neighbours were settled, with the comparison it was
started for left at its minimum (a README example stopped after 27 s of
its 6 minutes, the two builds "not separable", 1.01x [0.73, 1.71]).

Here every such case is paired with the same case at its dimension's
first value (the first build given, the fewest streams, no compression
where measured, the first link given): a cross pair. The schedule visits cross pairs back to back
like neighbours (plan/decision.py), and funds them first with the answer's
own pairs (plan/funding.py); their verdicts use the same tests, looks and
boundaries, Holm over the pairs of one dimension. Those of the remedies
(builds, streams, compression) are funded first; a link's like a
neighbour's. What the reports show of
them (analysis/answers/build_ratios.py, analysis/answers/remedies.py, analysis/answers/servers.py)
is these verdicts, read through analysis/comparisons/stated.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from sshbench.analysis.stats.stats import counted, headline_value, paired_ratios
from sshbench.analysis.stats.verdicts import DecisionRule, PairVerdict, pair_verdicts
from sshbench.results.axes import CROSS, base_value
from sshbench.results.model import Case, CaseKind, CaseStatus, Report

# A build, more streams, a compressor are remedies a user can choose: their cross pairs are funded first, with the
# answer's own (plan/base.py). A link is where the transfer runs, not a choice: its cross pairs (the same case on
# rtt=0 and on rtt=80ms) are sampled like neighbours, where a forecast says they can settle.
DIMENSIONS = CROSS  # results/axes.py: build, streams, compression, link
REFERENCES = (CaseKind.CONTROL, CaseKind.CEILING)


@dataclass(frozen=True)
class CrossPair:
    """A case at its dimension's first value (`base`) and the same case at another value (`other`)."""

    dimension: str
    base: str
    other: str
    moves_data: bool


def cross_pairs(cases: list[Case]) -> list[CrossPair]:
    """Every cross pair among these cases (references and file-less duplicates aside), in a stable order."""
    measured = [c for c in cases if c.kind not in REFERENCES]
    present = set(measured)  # whole cases, not ids: an id leaves the MAC of a cipher case out, and two servers
    out = []                 # whose sweeps chose different MACs measured two cases, never one case twice
    for dimension in DIMENSIONS:
        values: list[object] = []
        for case in measured:
            if case.value_of(dimension) not in values:
                values.append(case.value_of(dimension))
        if len(values) < 2:
            continue
        first = base_value(dimension, values)
        for case in measured:
            if case.value_of(dimension) != first:
                continue
            for value in values:
                other = case.at(dimension, value)
                if value != first and other in present:
                    out.append(CrossPair(dimension, case.id, other.id, case.moves_data))
    return out


def families(pairs: list[CrossPair]) -> dict[tuple[str, bool], list[CrossPair]]:
    """The cross pairs by dimension and kind of figure (rates or handshake times): each family is corrected
    together, and the schedule visits each as one table."""
    out: dict[tuple[str, bool], list[CrossPair]] = {}
    for pair in pairs:
        out.setdefault((pair.dimension, pair.moves_data), []).append(pair)
    return out


def cross_verdicts(report: Report, rule: DecisionRule) -> list[PairVerdict]:
    """The verdict of every cross pair whose two cases have samples, faster first by their medians."""
    out: list[PairVerdict] = []
    for (_, moves_data), members in families(cross_pairs([r.case for r in report.cases])).items():
        out += judged(report, rule, [(p.base, p.other) for p in members], moves_data)
    return out


Evidence = tuple[dict[str, list[float]], dict[tuple[str, str], list[float]]]  # per case its values; pairs' ratios
_STILL: ContextVar[dict[int, tuple[Report, Evidence]] | None] = ContextVar("still_reports", default=None)


@contextmanager
def still_reports() -> Iterator[None]:
    """Within it the reports judged do not change (a conclusion is drawn from finished evidence: conclude()), so
    each report's counted values and back-to-back ratios are read once, not again for every pair asked (the
    three-server recording asked 57 times, each a pass over every sample). Outside it, as while a run measures
    and sets samples aside, every call reads the samples afresh."""
    token = _STILL.set({})
    try:
        yield
    finally:
        _STILL.reset(token)


def _evidence(report: Report) -> Evidence:
    """The counted values of each case and the back-to-back pairs' ratios, from the memo where still_reports()
    holds one for this very report."""
    memo = _STILL.get()
    if memo is not None and (hit := memo.get(id(report))) is not None and hit[0] is report:
        return hit[1]
    values: dict[str, list[float]] = {}
    for sample in counted(report.samples):
        if (value := headline_value(sample)) is not None and value > 0:
            values.setdefault(sample.case_id, []).append(value)
    found = values, paired_ratios(report.samples)
    if memo is not None:
        memo[id(report)] = (report, found)  # the report is kept too, so its id is never another's meanwhile
    return found


def judged(report: Report, rule: DecisionRule, pairs: list[tuple[str, str]], moves_data: bool) -> list[PairVerdict]:
    """The verdicts of one family of pairs (corrected together), each faster first by the medians; pairs whose
    cases are skipped or have no counted samples yet are left out."""
    live = {r.case.id for r in report.cases if r.status is not CaseStatus.SKIPPED}
    values, ratios = _evidence(report)
    ordered = []
    for one, two in pairs:
        if one not in live or two not in live or not values.get(one) or not values.get(two):
            continue
        first, second = sorted(values[one]), sorted(values[two])
        one_first = (first[len(first) // 2] >= second[len(second) // 2]) == moves_data
        ordered.append((one, two) if one_first else (two, one))
    return pair_verdicts(ordered, values, moves_data, rule.for_table(moves_data), ratios)
