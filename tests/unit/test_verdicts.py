"""The decision rule and its schedule on synthetic samples with a known truth (seeded, no machine involved).

Each simulated case draws throughput from a log-normal around its true
rate; the real summarize/verdict/schedule code decides who gets the next
samples, exactly as in a run. What must hold: clear differences are found
and sampling stops early; equivalent cases are called equivalent; under no
difference at all, a wrong "different" anywhere in a table is rare (the
correction's promise, at most 5%); samples go where the ranking is unsettled.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from sshbench.analysis.stats.robust import (
    holm,
    holm_thresholds,
    mann_whitney_greater,
    mann_whitney_p,
    shift_interval,
    smallest_p,
)
from sshbench.analysis.stats.stats import summarize
from sshbench.analysis.stats.verdicts import DecisionRule, look_points, verdicts
from sshbench.plan.base import round_state
from sshbench.plan.decision import DecisionSchedule
from sshbench.results.model import CaseRecord, CaseStatus, Report
from sshbench.vocabulary.case_terms import Relation
from tests.synthetic import case as _case
from tests.synthetic import counts, relations, simulate
from tests.synthetic import sample as _sample

# -- the statistics underneath ------------------------------------------------------------------------------


def test_one_sided_test_is_exact_for_small_samples() -> None:
    # 5 vs 5, completely separated: one arrangement of 252 is as extreme
    assert mann_whitney_greater([6.0, 7, 8, 9, 10], [1.0, 2, 3, 4, 5]) == pytest.approx(1 / 252)
    assert mann_whitney_greater([1.0, 2, 3, 4, 5], [6.0, 7, 8, 9, 10]) == pytest.approx(1.0)
    assert smallest_p(3, 3) == pytest.approx(0.1) and smallest_p(6, 6) == pytest.approx(2 / 924)


@pytest.mark.parametrize("n", [6, 9, 25])  # exact below n1*n2 = 400, normal approximation above
def test_the_shift_interval_agrees_with_the_test(n: int) -> None:
    rng = random.Random(n)
    for trial in range(60):
        a = [rng.gauss(0.3 * (trial % 3), 1) for _ in range(n)]
        b = [rng.gauss(0, 1) for _ in range(n)]
        estimate, low, high = shift_interval(a, b, 0.95) or (0.0, None, None)
        assert low is not None and high is not None and low <= estimate <= high
        excludes_zero = low > 0 or high < 0
        p = mann_whitney_p(a, b)
        if abs(p - 0.05) > 0.01:  # the normal approximation's interval and test differ only at the edge
            assert excludes_zero == (p < 0.05), (trial, p, low, high)


def test_holm_is_step_down() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005], 0.05) == [True, False, False, True]
    assert holm([0.001, 0.001, 0.001], 0.05) == [True, True, True]
    assert holm([], 0.05) == []


def test_look_points_grow_by_half_and_end_at_the_maximum() -> None:
    assert look_points(6, 30) == (6, 9, 14, 21, 30)
    assert look_points(6, 6) == (6,)
    assert look_points(2, 3) == (2, 3)


# -- verdicts on known truth ----------------------------------------------------------------------------------


def test_verdicts_on_known_truth() -> None:
    rng = random.Random(1)
    values = {"fast": [rng.lognormvariate(math.log(200), 0.02) for _ in range(20)],
              "twin": [rng.lognormvariate(math.log(200), 0.02) for _ in range(20)],
              "slow": [rng.lognormvariate(math.log(100), 0.02) for _ in range(20)],
              "blur": [rng.lognormvariate(math.log(95), 0.4) for _ in range(6)]}
    found = verdicts(["fast", "twin", "slow", "blur"], values, True, DecisionRule())
    assert [v.relation for v in found] == [Relation.EQUIVALENT, Relation.DIFFERENT, Relation.UNSETTLED]
    slow = found[1]
    assert slow.ratio_low is not None and slow.ratio_high is not None
    assert slow.ratio_low <= slow.ratio <= slow.ratio_high and slow.ratio == pytest.approx(2.0, rel=0.05)


def test_holm_thresholds_are_the_step_each_p_faces() -> None:
    assert holm_thresholds([0.01, 0.04, 0.03, 0.005], 0.05) == [0.05 / 3, 0.05, 0.05 / 2, 0.05 / 4]
    assert holm_thresholds([], 0.05) == []


@pytest.mark.parametrize("paired", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_each_interval_agrees_with_its_verdict(seed: int, paired: bool) -> None:
    """A pair called different has an interval without 1, an unsettled one an interval with it, an equivalent
    one an interval within the margin: the same numbers on one line never contradict each other. Found in a
    real run: "1.05 times as fast [0.98, 1.08]: significantly faster" (the verdict at its Holm step, the
    interval at the Bonferroni level for every pair)."""
    rng = random.Random(seed)
    names = [f"c{i}" for i in range(6)]
    centres = {name: math.log(1000) - i * rng.choice([0.0, 0.03, 0.06, 0.12]) for i, name in enumerate(names)}
    values = {name: [math.exp(rng.gauss(centre, 0.05)) for _ in range(16)] for name, centre in centres.items()}
    ratios = {(a, b): [math.log(x / y) for x, y in zip(values[a], values[b], strict=True)]
              for a, b in itertools.pairwise(names)} if paired else None
    rule = DecisionRule()
    for found in verdicts(names, values, True, rule, ratios):
        assert found.ratio_low is not None and found.ratio_high is not None
        if found.relation is Relation.DIFFERENT:
            assert not found.ratio_low <= 1 <= found.ratio_high
        elif found.relation is Relation.EQUIVALENT:
            assert 1 - rule.margin <= found.ratio_low and found.ratio_high <= 1 + rule.margin
        else:
            assert found.ratio_low <= 1 <= found.ratio_high
            assert not (1 - rule.margin <= found.ratio_low and found.ratio_high <= 1 + rule.margin)


def test_latency_tables_rank_smaller_first() -> None:
    found = verdicts(["quick", "slow"], {"quick": [0.10, 0.11, 0.10, 0.12, 0.11, 0.10, 0.11, 0.10, 0.12],
                                         "slow": [0.30, 0.31, 0.33, 0.30, 0.32, 0.31, 0.30, 0.32, 0.31]},
                     False, DecisionRule())
    assert found[0].relation is Relation.DIFFERENT and found[0].ratio == pytest.approx(2.8, rel=0.1)


# -- the stopping rule, run to the end ------------------------------------------------------------------------


def test_clear_differences_settle_early_and_in_the_true_order() -> None:
    rates = [1000.0 / 1.3**i for i in range(6)]  # each 1.3x slower than the one before
    report = simulate(rates, cv=0.10, seed=7)
    assert relations(report) == [Relation.DIFFERENT] * 5
    order = [s.case_id for s in sorted(report.summaries, key=lambda s: s.rank or 0)]
    assert order == [_case(i).id for i in range(6)]
    assert max(counts(report).values()) < 30, "settled pairs stop before max_runs"


def test_equivalent_cases_are_called_equivalent_and_stop() -> None:
    report = simulate([500.0, 500.0, 250.0], cv=0.01, seed=3)
    assert relations(report) == [Relation.EQUIVALENT, Relation.DIFFERENT]
    assert max(counts(report).values()) < 30


def test_samples_go_where_the_ranking_is_unsettled() -> None:
    # c0 is 15% faster than c1, which takes a few looks to show under 15% noise; c2 is 25x slower (think 3des-cbc)
    report = simulate([1000.0, 870.0, 40.0], cv=0.15, seed=2)  # (the real loop draws in its own order)
    n = counts(report)
    assert n[_case(2).id] <= 9, "a case settled against its only neighbour gets (almost) nothing beyond the minimum"
    assert n[_case(0).id] == n[_case(1).id] > n[_case(2).id], "the pair that needs samples gets them"
    assert relations(report) == [Relation.DIFFERENT, Relation.DIFFERENT]
    assert all(count >= 6 for count in n.values()), "every case gets an interval first"


def test_a_pair_that_cannot_settle_stops_spending() -> None:
    # 1% apart under 25% noise: neither different nor equivalent within +-5% is in reach of 30 samples
    report = simulate([1000.0, 990.0], cv=0.25, seed=1)
    second = max(report.summaries, key=lambda s: s.rank or 0)
    assert second.relation is Relation.UNSETTLED and second.futile
    assert max(counts(report).values()) < 30, "futile pairs stop before max_runs"


def test_a_difference_is_never_found_the_wrong_way_round() -> None:
    for seed in range(40):
        report = simulate([1000.0, 900.0], cv=0.15, seed=seed)
        ordered = sorted(report.summaries, key=lambda s: s.rank or 0)
        if ordered[1].relation is Relation.DIFFERENT:
            assert ordered[0].case_id == _case(0).id, seed


def test_skipped_cases_do_not_hold_the_schedule() -> None:
    cases = [_case(0), _case(1)]
    report = Report("test", "", 1, cases=[CaseRecord(cases[0]), CaseRecord(cases[1], status=CaseStatus.SKIPPED)])
    plan = DecisionSchedule(cases, 6, 30, 1)
    rng = random.Random(1)
    rounds = 0
    while (rnd := plan.next_round(round_state(report))) and rounds < 100:
        rounds += 1
        assert all(v.case.id == cases[0].id for v in rnd)
        report.samples += [_sample(v.case, rng, 100.0, 0.1, v.round) for v in rnd]
        report.summaries = summarize(report.cases, report.samples)
    assert rounds == 7  # the warm-up and six measured rounds: a lone case has no neighbour to settle


def test_after_the_pairs_settle_each_figure_is_sampled_to_its_precision() -> None:
    """The pairs of a 1.3x ladder settle in a few samples, but at 10% noise per sample a figure of 6 samples is
    good to +-10-20%; a real run then samples each case until its median's interval is within +-5%
    (RunOptions.figure_precision), up to max_runs, and the summaries say which got there."""
    rates = [1000.0 / 1.3**i for i in range(4)]
    settled = simulate(rates, cv=0.10, seed=7)
    refined = simulate(rates, cv=0.10, seed=7, figures=True)
    assert relations(refined) == [Relation.DIFFERENT] * 3
    before, after = counts(settled), counts(refined)
    assert all(after[case_id] >= n for case_id, n in before.items())
    assert sum(after.values()) > sum(before.values()), "the figures got samples after the pairs settled"
    for summary in refined.summaries:
        stat = summary.throughput_bytes_per_second
        assert stat is not None and summary.precise is not None
        assert summary.precise or after[summary.case_id] >= refined.options.max_runs
        assert summary.precise == (stat.relative_half_width is not None and stat.relative_half_width <= 0.05)
