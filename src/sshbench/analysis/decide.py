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
ratios instead (analysis/paired.py: Wilcoxon signed-rank, its interval and
its two one-sided tests): the slow drift of a shared machine cancels within
a pair, so the same difference needs several times fewer samples.

Tests run on the logarithm of each sample's cost (time per byte for
throughput, seconds for a handshake), so a shift is a ratio. A table holds
many pairs, and a run looks at its verdicts several times (the decision
schedule stops sampling a pair once it is settled), so each verdict is
corrected twice: Holm's step-down over the table's pairs, at alpha divided
by the number of planned looks (Bonferroni over looks). The chance that a
table holds any wrong "different" (or any wrong "equivalent") is then at
most alpha over the whole run, however many rounds it took.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from sshbench.analysis.paired import paired_interval, paired_tests
from sshbench.analysis.robust import holm, holm_thresholds, mann_whitney_greater, mann_whitney_p, shift_interval
from sshbench.kinds import Relation
from sshbench.options import RunOptions

ALPHA = 0.05
DEFAULT_MARGIN = 0.05
LOOK_GROWTH = 1.5  # each look after the first comes at ~1.5x the samples of the one before
FUTILITY = 0.10  # an unsettled pair whose chance to settle by max_runs is below this gets no more samples
MIN_PAIRED = 12  # back-to-back visits of a pair from which its verdict is taken from them (schedule.py's first
# paired look: fewer can never pass the corrections)
FUTILITY_PAIRED = 6  # back-to-back pairs from which futility is judged on their spread (what more pairs would
# give), not on the unpaired spread that drift inflates
Paired = Mapping[tuple[str, str], Sequence[float]]  # (case, case) -> log(value_first / value_second) per visit


@dataclass(frozen=True)
class DecisionRule:
    margin: float = DEFAULT_MARGIN  # equivalent: the ratio's interval lies within 1 +- margin
    alpha: float = ALPHA  # family-wise error per table and kind of verdict, over all looks
    looks: int = 1  # planned looks at the verdicts (Bonferroni over looks)
    max_runs: int | None = None  # samples a case can still reach: pairs that cannot settle by then are futile
    setup: DecisionRule | None = None  # the handshake tables' own rule, where it differs (more looks, a higher cap)
    paired: bool = True  # pairs visited back to back are decided on their ratios (files before 0.3: never)

    def for_table(self, bigger_better: bool) -> DecisionRule:
        """The rule of a throughput table (bigger is better), or of a handshake table."""
        return self if bigger_better or self.setup is None else self.setup

    @property
    def per_look(self) -> float:
        return self.alpha / self.looks

    def describe(self) -> str:
        """The rule in the words a caption uses."""
        looks = "" if self.looks == 1 else f", and Bonferroni over the table's {self.looks} looks"
        paired = f", or Wilcoxon signed-rank on back-to-back pairs where there are {MIN_PAIRED}" if self.paired else ""
        return (f"different: Mann-Whitney U{paired}, p < {self.alpha:g} after Holm's correction over the table's "
                f"pairs{looks}; equivalent: the same correction on two one-sided tests of a "
                f"±{self.margin * 100:g}% ratio")


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
    pairs = list(itertools.pairwise(ordered))
    logs = {case_id: costs(values.get(case_id, ()), bigger_better) for case_id in ordered}
    ratios = {pair: paired_costs(paired, *pair, bigger_better) for pair in pairs}
    use = {pair: len(ratios[pair]) >= MIN_PAIRED for pair in pairs}
    tests = [paired_tests(ratios[(f, s)], rule.margin) if use[(f, s)] else
             pair_tests(logs[s], logs[f], rule.margin) for f, s in pairs]
    different = holm([p for p, _ in tests], rule.per_look)
    equivalent = holm([p for _, p in tests], rule.per_look)
    # Each pair's interval at the level of the test that settled it, so the two never disagree on screen: a
    # difference at its Holm step (two-sided), an equivalence at its step as two one-sided tests; an unsettled
    # pair at the widest step, where it includes 1 and reaches past the margin.
    step_diff = holm_thresholds([p for p, _ in tests], rule.per_look)
    step_eq = holm_thresholds([p for _, p in tests], rule.per_look)
    out = []
    for index, ((faster, slower), (p_diff, p_eq), is_diff, is_eq) in enumerate(
            zip(pairs, tests, different, equivalent, strict=True)):
        d = ratios[(faster, slower)]
        level = 1 - step_diff[index] if is_diff else 1 - 2 * step_eq[index] if is_eq else \
            1 - rule.per_look / len(pairs)
        found = paired_interval(d, level) if use[(faster, slower)] else \
            shift_interval(logs[slower], logs[faster], level)
        estimate, low, high = found or (math.nan, None, None)
        relation = Relation.DIFFERENT if is_diff else Relation.EQUIVALENT if is_eq else Relation.UNSETTLED
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
    normal = NormalDist()
    differ = normal.cdf(abs(estimate) / se_max - normal.inv_cdf(1 - rule.per_look / 2))
    match = normal.cdf((math.log(1 + rule.margin) - abs(estimate)) / se_max - normal.inv_cdf(1 - rule.per_look))
    return max(differ, match) < FUTILITY


def _futile_paired(d: Sequence[float], rule: DecisionRule) -> bool:
    """As _futile, for a pair with back-to-back visits: their log ratios' own estimate and spread."""
    if rule.max_runs is None or len(d) < 3 or len(d) >= rule.max_runs:
        return False
    estimate = statistics.median(d)
    se_max = _spread(d) / math.sqrt(rule.max_runs)
    if se_max == 0:
        return False
    normal = NormalDist()
    differ = normal.cdf(abs(estimate) / se_max - normal.inv_cdf(1 - rule.per_look / 2))
    match = normal.cdf((math.log(1 + rule.margin) - abs(estimate)) / se_max - normal.inv_cdf(1 - rule.per_look))
    return max(differ, match) < FUTILITY


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
        looks = 1 + len(look_points(MIN_PAIRED, max(MIN_PAIRED, cap)))
        return DecisionRule(margin=options.tie_margin, looks=looks, max_runs=cap)

    return dataclasses.replace(capped(options.max_runs), setup=capped(options.max_runs * SETUP_RUNS_FACTOR))


LEGACY_LOOKS = 5  # what decision mode planned before each table had its own looks (files without `looks`)


def recorded_rule(options: RunOptions, looks: Mapping[str, int]) -> DecisionRule:
    """The rule a saved run's verdicts were made with, from the looks it recorded (Report.looks); files from
    before it did (sshbench < 0.3) had one rule for every table, unpaired."""
    if looks:
        return DecisionRule(margin=options.tie_margin, looks=looks.get("throughput", 1),
                            setup=DecisionRule(margin=options.tie_margin, looks=looks.get("handshake", 1)))
    return DecisionRule(margin=options.tie_margin, looks=LEGACY_LOOKS if options.mode == "decision" else 1,
                        paired=False)
