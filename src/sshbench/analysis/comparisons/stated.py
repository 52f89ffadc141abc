"""Every "X vs Y" a report states, from one place: the run's own decision rule, with the correction its verdicts use.

Before this module the servers answer (`--server a,b`), the builds side by
side (`--build`), the streams and compression table and the window variants
stated their ratios as one uncorrected 95% comparison each (Hodges-Lehmann,
Moses interval), while the link answer's rivals and the short commands
used the schedule's corrected cross-pair verdicts. The same pair could be
printed "significantly faster" on one line and "not yet separable" on
another, and an interval beside a verdict could exclude 1 where the
verdict (corrected over the run's looks) did not.

Here a pair is judged as the schedule judged it (analysis/stats/verdicts.py
pair_verdicts): a cross pair of the run (analysis/comparisons/dimensions.py: the same
case at its dimension's first value and at another) takes its verdict
within its dimension's family, Holm over that family, at the group-
sequential boundary of the look its samples reached; back-to-back visits
decide it where there are MIN_PAIRED of them (Wilcoxon signed-rank), else
all samples (Mann-Whitney). A pair no family holds (two servers' fastest
safe ciphers, which may be two ciphers) is judged alone under the same
rule. The interval is the Hodges-Lehmann ratio's at the level of the test
that decided the verdict, so the two can never disagree on screen.

The streams and compression table states each variant of a pipe cipher
against its plain variant (one stream, no compression): against_plain draws
those once for the whole run (analysis/conclude.py), so a table drawn per
link or side states each pair within its dimension's whole family, as the
schedule and the link answer judged it, not within the view's cases alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sshbench.analysis.comparisons.dimensions import cross_pairs, families, judged
from sshbench.analysis.stats.verdicts import DecisionRule, PairVerdict, run_rule
from sshbench.compressors import OFF
from sshbench.results.model import Report, Summary
from sshbench.results.views import Variant, variant_of
from sshbench.vocabulary.case_terms import CaseKind, Relation


@dataclass(frozen=True)
class Stated:
    """How many times as fast one case is as another (a rate's ratio, or a handshake's inverse time ratio), as the
    run's rule decided it."""

    ratio: float  # > 1: `other` is faster than `base` (Hodges-Lehmann)
    low: float | None  # the interval at the level of the test that decided the verdict (None: too few samples)
    high: float | None
    relation: Relation  # DIFFERENT, EQUIVALENT (within the run's tie margin) or UNSETTLED
    pairs: int = 0  # back-to-back visits it was decided on (0: all samples, unpaired)
    family: int = 1  # pairs corrected together with it (Holm): its dimension's cross pairs, or 1 alone


def oriented(verdict: PairVerdict, other: str, family: int = 1) -> Stated:
    """A verdict read as "how many times as fast `other` is as the pair's other case"."""
    if verdict.faster == other:
        return Stated(verdict.ratio, verdict.ratio_low, verdict.ratio_high, verdict.relation, verdict.pairs, family)
    low, high = verdict.ratio_low, verdict.ratio_high
    return Stated(1 / verdict.ratio, None if high is None else 1 / high, None if low is None else 1 / low,
                  verdict.relation, verdict.pairs, family)


class Statements:
    """A report's pairs as its rule judges them: a cross pair with its family (judged once, when one of its pairs
    is first asked for), any other pair alone; each kept."""

    def __init__(self, report: Report, rule: DecisionRule | None = None) -> None:
        self.report = report
        self.rule = rule or run_rule(report)
        self._families = families(cross_pairs([r.case for r in report.cases]))
        self._family_of = {(frozenset((p.base, p.other)), key[1]): key
                           for key, members in self._families.items() for p in members}
        self._found: dict[tuple[frozenset[str], bool], tuple[PairVerdict, int]] = {}

    def of(self, base: str, other: str, moves_data: bool = True) -> Stated | None:
        """How many times as fast `other` is as `base` (case ids), as the rule decides it; None where either has
        no counted sample (or is skipped)."""
        key = (frozenset((base, other)), moves_data)
        if key not in self._found:
            family = self._family_of.get(key)
            pairs = [(p.base, p.other) for p in self._families[family]] if family else [(base, other)]
            found = judged(self.report, self.rule, pairs, moves_data)
            for verdict in found:  # Holm over the family's pairs that have samples, as the schedule judged them
                self._found[(frozenset((verdict.faster, verdict.slower)), moves_data)] = (verdict, len(found))
        if key not in self._found:
            return None
        verdict, family_size = self._found[key]
        return oriented(verdict, other, family_size)


PLAIN: Variant = (1, OFF, ())  # one stream, no compression, every declared axis at its plain value


def against_plain(report: Report) -> Mapping[str, Stated]:
    """Case id -> how many times as fast that pipe cipher case is as its plain variant (the same cipher, direction,
    side and link at one stream, no compression), as the run's rule decides it; none for the plain cases, nor
    where either has no counted sample."""
    views = report.joined()
    groups: dict[tuple[object, ...], dict[Variant, Summary]] = {}
    for summary in report.summaries:
        case = views[summary.case_id].case
        if case.kind is CaseKind.CIPHER and case.is_pipe and summary.throughput_bytes_per_second and case.cipher:
            groups.setdefault((case.cipher, case.direction, case.build, case.link), {})[variant_of(case)] = summary
    statements = Statements(report)
    out = {}
    for by_variant in groups.values():
        plain = by_variant.get(PLAIN)
        for summary in by_variant.values():
            if plain is not None and summary is not plain and \
                    (found := statements.of(plain.case_id, summary.case_id)) is not None:
                out[summary.case_id] = found
    return out
