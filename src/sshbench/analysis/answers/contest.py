"""The link answer's pick against its nearest rivals: settled, or forecast, before the headline names it.

The headline names the change that moved the most payload
(analysis/answers/remedies.py). That claim rests on the pick against the next-fastest
contenders - another stream count, another compressor, a combination, or
the plain transfer itself - and the cross pairs never make those
comparisons: they set each change against the plain case only (1 vs 4 and
1 vs 8 streams, never 4 vs 8). A run with `--streams 1,4,8` over a lossy
link therefore stopped after 94 s of its 480 with "4 streams ... (not
separable from 8 streams)", and one with `--streams 1,4,16` ranked 16
first on a difference it never tested.

Here the pick is paired with its RIVALS nearest contenders; the pairs are
judged like one dimension's cross pairs (the same tests, looks and
boundaries, Holm over the headline's pairs), visited back to back in a
table of their own and funded first with the answer's pairs
(plan/base.py, plan/funding.py), until they settle or reach their cap; an
open one carries its forecast.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sshbench.analysis.answers.remedies import PathAnswer, change_of, path_answers
from sshbench.analysis.comparisons.dimensions import judged
from sshbench.analysis.comparisons.pairs import PairData
from sshbench.analysis.stats.forecast import Forecast
from sshbench.analysis.stats.stats import counted
from sshbench.analysis.stats.verdicts import PairVerdict, run_rule
from sshbench.results.model import Case, Report
from sshbench.vocabulary.case_terms import Relation

RIVALS = 2  # the headline's pick is compared with this many next-fastest contenders


@dataclass(frozen=True)
class Rival:
    """One contender against the pick: how many times as fast the pick moved its payload, and the verdict."""

    case: Case
    change: str  # as the answer names it: "4 streams", "zstd -3", "the plain transfer"
    ratio: float  # the pick's payload rate over the rival's (Hodges-Lehmann; < 1 when the rival leads so far)
    low: float | None
    high: float | None
    relation: Relation
    pairs: int = 0  # back-to-back pairs behind the verdict (0: all samples, unpaired; or, before the first look,
    # the samples the sparser side has)
    forecast: Forecast | None = None  # open: what settling it would take at this noise
    # open because its pairs have not reached the rule's first look (the verdicts are read only at the planned
    # looks): the pairs that look needs; None when it was looked at and is truly not yet separable
    first_look: int | None = None


def contenders(answer: PathAnswer) -> list[Case]:
    """Every case of a path answer, the plain one included, fastest first by its ratio to the plain case."""
    ranked = [(r.ratio, r.case) for r in answer.remedies] + [(1.0, answer.plain)]
    return [case for _, case in sorted(ranked, key=lambda item: -item[0])]


def _pairs(answers: list[PathAnswer]) -> list[tuple[str, str]]:
    out = []
    for answer in answers:
        ranked = contenders(answer)
        if ranked[0] != answer.plain:  # nothing beats the plain transfer so far: its cross pairs say so
            out += [(ranked[0].id, rival.id) for rival in ranked[1:1 + RIVALS]]
    return out


def headline_verdicts(report: Report, answers: list[PathAnswer] | None = None) -> list[PairVerdict]:
    """The verdicts of every path answer's pick against its rivals, corrected together."""
    return judged(report, run_rule(report), _pairs(path_answers(report) if answers is None else answers), True)


def rivals(report: Report, answers: list[PathAnswer]) -> dict[str, tuple[Rival, ...]]:
    """Per pick (its case id), its rivals with their verdicts, nearest first; open ones with their forecast."""
    verdicts = {frozenset((v.faster, v.slower)): v for v in headline_verdicts(report, answers)}
    points = run_rule(report).points
    data: PairData | None = None
    out: dict[str, tuple[Rival, ...]] = {}
    for answer in answers:
        ranked = contenders(answer)
        if ranked[0] == answer.plain:
            continue
        pick = ranked[0]
        found = []
        for other in ranked[1:1 + RIVALS]:
            verdict = verdicts.get(frozenset((pick.id, other.id)))
            if verdict is None:
                continue
            if verdict.relation is Relation.UNSETTLED:
                data = data or PairData(report)
            rival = _rival(verdict, pick, other, answer.plain, data, len(verdicts))
            seen = verdict.pairs or min(len(counted(report.samples_of(c.id))) for c in (pick, other))
            if verdict.relation is Relation.UNSETTLED and points and seen < points[0]:
                rival = dataclasses.replace(rival, first_look=points[0], pairs=seen)
            found.append(rival)
        out[pick.id] = tuple(found)
    return out


def _rival(verdict: PairVerdict, pick: Case, other: Case, plain: Case, data: PairData | None,
           competing: int) -> Rival:
    """The verdict read from the pick's side: its ratio over the rival, whichever led by the medians."""
    leads = verdict.faster == pick.id
    ratio = verdict.ratio if leads else 1 / verdict.ratio
    low, high = verdict.ratio_low, verdict.ratio_high
    if not leads:
        low, high = (None if high is None else 1 / high), (None if low is None else 1 / low)
    ahead = data.forecast(verdict.faster, verdict.slower, True, competing) \
        if data is not None and verdict.relation is Relation.UNSETTLED else None
    change = "the plain transfer" if other == plain else change_of(other, plain)[0]
    return Rival(other, change, ratio, low, high, verdict.relation, verdict.pairs, ahead)
