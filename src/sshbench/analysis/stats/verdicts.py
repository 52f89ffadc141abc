"""Is each pair of neighbours in a ranking settled? Different, equivalent within a margin, or not yet separable.

The question a ranking answers is "which one, and by how much", so each
pair of neighbours (by median) gets one of three verdicts:

- different: a two-sided Mann-Whitney test rejects "no difference";
- equivalent: two one-sided Mann-Whitney tests (TOST) reject "the slower
  one takes more than 1 + margin times as long" and "less than 1 - margin
  times", i.e. the interval of their ratio lies within 1 +- margin;
- unsettled: neither, yet: more samples may settle it.

Where the two were visited back to back at least MIN_PAIRED times (the
decision schedule's pairs), the verdict is decided on those visits' log
ratios instead (analysis/stats/paired.py: Wilcoxon signed-rank, its interval and
its two one-sided tests): the slow drift of a shared machine cancels within
a pair, so the same difference needs several times fewer samples.

Tests run on the logarithm of each sample's cost (time per byte for
throughput, seconds for a handshake), so a shift is a ratio. A table holds
many pairs, and a run looks at its verdicts several times (the decision
schedule stops sampling a pair once it is settled), so each verdict is
corrected twice: Holm's step-down over the table's pairs, and at each look a
group-sequential boundary (analysis/stats/sequential.py: alpha spent over the
table's planned looks as the information grows, the looks' shared data
accounted for). The chance that a table holds any wrong "different" (or any
wrong "equivalent") is then at most alpha over the whole run, however many
rounds it took. Files from before 0.4 were decided with Bonferroni over
looks (alpha / looks at every look), and are re-read that way.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from sshbench.analysis.stats.paired import paired_interval, paired_tests
from sshbench.analysis.stats.robust import mann_whitney_greater, mann_whitney_p, shift_interval
from sshbench.analysis.stats.sequential import threshold
from sshbench.options import RunOptions
from sshbench.results.model import Report
from sshbench.vocabulary.case_terms import Relation

ALPHA = 0.05
DEFAULT_MARGIN = 0.05
LOOK_GROWTH = 1.5  # each look after the first comes at ~1.5x the samples of the one before
FUTILITY = 0.10  # an unsettled pair whose chance to settle by max_runs is below this gets no more samples
# back-to-back visits of a pair from which its verdict is taken from them (the decision schedule's first paired look:
# fewer can never pass the corrections)
MIN_PAIRED = 12
FUTILITY_PAIRED = 6  # back-to-back pairs from which futility is judged on their spread (what more pairs would
# give), not on the unpaired spread that drift inflates
Paired = Mapping[tuple[str, str], Sequence[float]]  # (case, case) -> log(value_first / value_second) per visit


@dataclass(frozen=True)
class DecisionRule:
    margin: float = DEFAULT_MARGIN  # equivalent: the ratio's interval lies within 1 +- margin
    alpha: float = ALPHA  # family-wise error per table and kind of verdict, over all looks
    looks: int = 1  # planned looks at the verdicts (Bonferroni over looks, where `points` is empty)
    max_runs: int | None = None  # samples a case can still reach: pairs that cannot settle by then are futile
    setup: DecisionRule | None = None  # the handshake tables' own rule, where it differs (more looks, a higher cap)
    paired: bool = True  # pairs visited back to back are decided on their ratios (files before 0.3: never)
    # The planned looks as sample counts (pairs' back-to-back visits, or each case's samples): group-sequential
    # boundaries over them (analysis/stats/sequential.py). Empty: Bonferroni over `looks` (files before 0.4).
    points: tuple[int, ...] = ()

    def for_table(self, bigger_better: bool) -> DecisionRule:
        """The rule of a throughput table (bigger is better), or of a handshake table."""
        return self if bigger_better or self.setup is None else self.setup

    def level(self, share: float, n: int, two_sided: bool = True) -> float:
        """The p-value below which a test of `n` samples (or pairs) rejects, at `share` of alpha (Holm's step)."""
        if self.points:
            return threshold(share, self.points, n, two_sided)
        return share / self.looks

    @property
    def per_look(self) -> float:
        """The most lenient threshold a lone test can face: at the last planned look, the whole alpha."""
        return self.level(self.alpha, self.points[-1] if self.points else 0)



def step_down(p_values: Sequence[float], samples: Sequence[int], rule: DecisionRule, two_sided: bool) \
        -> list[float | None]:
    """Holm's step-down with each test at its own look: the threshold each rejected hypothesis passed (None:
    not rejected).

    With m hypotheses left, each faces the boundary for alpha / m at the look
    its sample count has reached; rejecting one raises the others' share
    (Maurer and Bretz's sequentially rejective group-sequential tests, 2013,
    of which Holm is the simplest graph). Without looks it is plain Holm.
    """
    left = set(range(len(p_values)))
    passed: list[float | None] = [None] * len(p_values)
    while left:
        share = rule.alpha / len(left)
        found = [(p_values[i], i) for i in left if p_values[i] <= rule.level(share, samples[i], two_sided)]
        if not found:
            break
        _, index = min(found)
        passed[index] = rule.level(share, samples[index], two_sided)
        left.discard(index)
    return passed


def look_points(min_runs: int, max_runs: int) -> tuple[int, ...]:
    """Sample counts at which the decision schedule looks at its verdicts: min_runs, then x1.5 up to max_runs."""
    points = [min_runs]
    while points[-1] < max_runs:
        points.append(min(max_runs, max(points[-1] + 1, round(points[-1] * LOOK_GROWTH))))
    return tuple(points)


@dataclass(frozen=True)
class PairVerdict:
    faster: str  # case id ranked above
    slower: str  # case id ranked just below
    relation: Relation
    ratio: float  # Hodges-Lehmann estimate: the slower one takes this many times as long (>= 1 in rank order)
    ratio_low: float | None  # its interval at the level of the test that settled it (None: too few samples)
    ratio_high: float | None
    p_different: float  # uncorrected, two-sided
    p_equivalent: float  # uncorrected, the larger of the two one-sided tests
    futile: bool = False  # unsettled, and would stay so at max_runs samples even on an optimistic projection
    pairs: int = 0  # back-to-back visits it was decided on (0: all samples, unpaired)


def costs(values: Sequence[float], bigger_better: bool) -> list[float]:
    """Log cost per sample: -log(rate) for throughput, log(seconds) for a latency; larger is slower."""
    return [-math.log(v) if bigger_better else math.log(v) for v in values if v > 0]


def pair_tests(slower: Sequence[float], faster: Sequence[float], margin: float) -> tuple[float, float]:
    """(two-sided p of a difference, TOST p of equivalence within 1 +- margin) for two sets of log costs."""
    low, high = math.log(1 - margin), math.log(1 + margin)
    p_above_low = mann_whitney_greater([x - low for x in slower], faster)  # rejects: ratio <= 1 - margin
    p_below_high = mann_whitney_greater(faster, [x - high for x in slower])  # rejects: ratio >= 1 + margin
    return mann_whitney_p(slower, faster), max(p_above_low, p_below_high)


def paired_costs(paired: Paired | None, faster: str, slower: str, bigger_better: bool) -> list[float]:
    """Per back-to-back visit of the two: log(cost of the slower / cost of the faster)."""
    if not paired:
        return []
    sign = 1.0 if bigger_better else -1.0  # a rate's cost is its inverse
    if (faster, slower) in paired:
        return [sign * r for r in paired[(faster, slower)]]
    return [-sign * r for r in paired.get((slower, faster), ())]


def verdicts(ordered: Sequence[str], values: Mapping[str, Sequence[float]], bigger_better: bool,
             rule: DecisionRule, paired: Paired | None = None) -> list[PairVerdict]:
    """Verdicts for each neighbour pair of `ordered` (fastest first), corrected over the table's pairs."""
    return pair_verdicts(list(itertools.pairwise(ordered)), values, bigger_better, rule, paired)


def pair_verdicts(pairs: Sequence[tuple[str, str]], values: Mapping[str, Sequence[float]], bigger_better: bool,
                  rule: DecisionRule, paired: Paired | None = None) -> list[PairVerdict]:
    """Verdicts for these pairs (faster, slower), corrected over all of them: a table's neighbours, or the
    comparisons across one dimension of a run (analysis/comparisons/dimensions.py)."""
    if not pairs:
        return []
    logs = {case_id: costs(values.get(case_id, ()), bigger_better) for pair in pairs for case_id in pair}
    ratios = {pair: paired_costs(paired, *pair, bigger_better) for pair in pairs}
    use = {pair: len(ratios[pair]) >= MIN_PAIRED for pair in pairs}
    tests = [paired_tests(ratios[(f, s)], rule.margin) if use[(f, s)] else
             pair_tests(logs[s], logs[f], rule.margin) for f, s in pairs]
    counts = [len(ratios[(f, s)]) if use[(f, s)] else min(len(logs[f]), len(logs[s])) for f, s in pairs]
    # Each pair's interval at the level of the test that settled it, so the two never disagree on screen: a
    # difference at its step's threshold (two-sided), an equivalence at its step as two one-sided tests; an
    # unsettled pair at the strictest step, where it includes 1 and reaches past the margin.
    different = step_down([p for p, _ in tests], counts, rule, two_sided=True)
    equivalent = step_down([p for _, p in tests], counts, rule, two_sided=False)
    out = []
    for (faster, slower), (p_diff, p_eq), at_diff, at_eq, n in zip(
            pairs, tests, different, equivalent, counts, strict=True):
        d = ratios[(faster, slower)]
        level = 1 - at_diff if at_diff is not None else 1 - 2 * at_eq if at_eq is not None else \
            1 - rule.level(rule.alpha / len(pairs), n)
        found = paired_interval(d, level) if use[(faster, slower)] else \
            shift_interval(logs[slower], logs[faster], level)
        estimate, low, high = found or (math.nan, None, None)
        relation = Relation.DIFFERENT if at_diff is not None else Relation.EQUIVALENT if at_eq is not None else \
            Relation.UNSETTLED
        futile = relation is Relation.UNSETTLED and (
            _futile_paired(d, rule) if len(d) >= FUTILITY_PAIRED else
            _futile(estimate, logs[slower], logs[faster], rule))
        out.append(PairVerdict(faster, slower, relation, math.exp(estimate), _exp(low), _exp(high), p_diff, p_eq,
                               futile, len(d) if use[(faster, slower)] else 0))
    return out


def _exp(value: float | None) -> float | None:
    return None if value is None else math.exp(value)


def _spread(logs: Sequence[float]) -> float:
    """A robust standard deviation: 1.4826 x the median absolute deviation (the stdev when that is 0)."""
    centre = statistics.median(logs)
    mad = statistics.median(abs(x - centre) for x in logs)
    return 1.4826 * mad if mad > 0 else statistics.stdev(logs)


def _futile(estimate: float, slower: Sequence[float], faster: Sequence[float], rule: DecisionRule) -> bool:
    """Could this pair still settle by max_runs samples each? No, when the chance is below FUTILITY.

    Conditional power, with the present estimate taken as the truth: the
    standard error of the log ratio comes from each side's robust spread and
    shrinks as 1/sqrt(n); the test is taken at Holm's most lenient step.
    Stopping a pair for futility declares nothing, so it cannot add a wrong
    verdict; it only stops spending samples where they would hardly ever
    change the table.
    """
    n_slow, n_fast = len(slower), len(faster)
    if rule.max_runs is None or min(n_slow, n_fast) < 3 or min(n_slow, n_fast) >= rule.max_runs \
            or math.isnan(estimate):
        return False
    se_max = math.sqrt((_spread(slower) ** 2 + _spread(faster) ** 2) / rule.max_runs)
    if se_max == 0:
        return False
    return _power(estimate, se_max, rule) < FUTILITY


def _power(estimate: float, se_max: float, rule: DecisionRule) -> float:
    """The chance, with `estimate` as the truth, that a test of standard error se_max settles the pair at the
    last look (at Holm's most lenient step): a difference, or an equivalence within the margin."""
    normal = NormalDist()
    last = rule.max_runs or 0
    differ = normal.cdf(abs(estimate) / se_max - normal.inv_cdf(1 - rule.level(rule.alpha, last) / 2))
    match = normal.cdf((math.log(1 + rule.margin) - abs(estimate)) / se_max
                       - normal.inv_cdf(1 - rule.level(rule.alpha, last, two_sided=False)))
    return max(differ, match)


def _futile_paired(d: Sequence[float], rule: DecisionRule) -> bool:
    """As _futile, for a pair with back-to-back visits: their log ratios' own estimate and spread."""
    if rule.max_runs is None or len(d) < 3 or len(d) >= rule.max_runs:
        return False
    estimate = statistics.median(d)
    se_max = _spread(d) / math.sqrt(rule.max_runs)
    if se_max == 0:
        return False
    return _power(estimate, se_max, rule) < FUTILITY


def unsettled_cases(found: Sequence[PairVerdict]) -> set[str]:
    """Cases with a neighbour they are not yet settled against, where more samples may still settle it."""
    return {case_id for v in found if v.relation is Relation.UNSETTLED and not v.futile
            for case_id in (v.faster, v.slower)}


SETUP_RUNS_FACTOR = 4  # handshake cases may reach this many times --max-runs: each costs about a tenth of a
# throughput visit (0.07-0.4 s against 0.6-1.5 s measured), and their close pairs need many samples to settle


def rule_for(options: RunOptions) -> DecisionRule:
    """The rule a run's verdicts use: looks are only planned in decision mode (one final look otherwise).

    In decision mode each table looks once when every case has its minimum, then at each of its paired look
    points (MIN_PAIRED back-to-back pairs, then x1.5 up to its cap: --max-runs, and SETUP_RUNS_FACTOR times that
    for the handshake tables), and corrects for all of them.
    """
    if options.mode != "decision":
        return DecisionRule(margin=options.tie_margin)

    def capped(cap: int) -> DecisionRule:
        points = planned_looks(options.min_runs, cap)
        return DecisionRule(margin=options.tie_margin, looks=len(points), max_runs=cap, points=points)

    return dataclasses.replace(capped(options.max_runs), setup=capped(options.max_runs * SETUP_RUNS_FACTOR))


def planned_looks(min_runs: int, cap: int) -> tuple[int, ...]:
    """The sample counts a table looks at: when every case has its minimum, then at MIN_PAIRED back-to-back
    pairs and x1.5 up to its cap (plan/decision.py visits pairs to exactly these)."""
    return tuple(sorted({min(min_runs, cap), *look_points(MIN_PAIRED, max(MIN_PAIRED, cap))}))


LEGACY_LOOKS = 5  # what decision mode planned before each table had its own looks (files without `looks`)


def recorded_rule(options: RunOptions, looks: Mapping[str, int],
                  points: Mapping[str, Sequence[int]] | None = None, paired: bool = True) -> DecisionRule:
    """The rule a saved run's verdicts were made with, from the looks it recorded (Report.looks, and since 0.4
    Report.look_points: group-sequential boundaries, and `paired`: whether the design it chose decided the
    throughput tables on back-to-back pairs); files from before 0.3 had one rule for every table, unpaired, and
    files from before 0.4 Bonferroni over looks."""
    if points:
        throughput, handshake = tuple(points.get("throughput", ())), tuple(points.get("handshake", ()))
        return DecisionRule(margin=options.tie_margin, looks=len(throughput) or 1, points=throughput,
                            max_runs=throughput[-1] if throughput else None, paired=paired,
                            setup=DecisionRule(margin=options.tie_margin, looks=len(handshake) or 1, points=handshake,
                                               max_runs=handshake[-1] if handshake else None))
    if looks:
        return DecisionRule(margin=options.tie_margin, looks=looks.get("throughput", 1),
                            setup=DecisionRule(margin=options.tie_margin, looks=looks.get("handshake", 1)))
    return DecisionRule(margin=options.tie_margin, looks=LEGACY_LOOKS if options.mode == "decision" else 1,
                        paired=False)


def run_rule(report: Report) -> DecisionRule:
    """The rule a report's verdicts were made with: its recorded looks, and whether its design paired samples. The
    schedule, the tables, the answers and every "X vs Y" read it here, so none of them judges by another rule."""
    design = report.design
    return recorded_rule(report.options, report.looks, report.look_points, design is None or design.paired)
