"""Group-sequential boundaries (analysis/stats/sequential.py) against a simulated Brownian motion, and the step-down
that uses them (analysis/stats/verdicts.step_down)."""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import pytest

from sshbench.analysis.stats.sequential import boundaries, threshold
from sshbench.analysis.stats.verdicts import DecisionRule, planned_looks, rule_for, step_down
from sshbench.options import RunOptions

FRACTIONS = (0.2, 0.4, 0.6, 0.9, 1.0)  # a default run's throughput looks: 6, 12, 18, 27 and 30 samples


def crossing_rate(thresholds: tuple[float, ...], fractions: tuple[float, ...], runs: int, seed: int,
                  two_sided: bool = True) -> float:
    """The share of simulated null score paths that cross a look's boundary: what the boundaries must hold to
    alpha."""
    rng = random.Random(seed)
    normal = NormalDist()
    zs = [normal.inv_cdf(1 - p / (2 if two_sided else 1)) for p in thresholds]
    crossed = 0
    for _ in range(runs):
        score, before = 0.0, 0.0
        for t, z in zip(fractions, zs, strict=True):
            score += rng.gauss(0, math.sqrt(t - before))
            before = t
            if (abs(score) if two_sided else score) / math.sqrt(t) >= z:
                crossed += 1
                break
    return crossed / runs


@pytest.mark.parametrize("two_sided", [True, False])
def test_the_boundaries_spend_alpha_and_no_more(two_sided: bool) -> None:
    thresholds = boundaries(0.05, FRACTIONS, two_sided)
    rate = crossing_rate(thresholds, FRACTIONS, 40_000, seed=3, two_sided=two_sided)
    assert 0.045 <= rate <= 0.0525, rate  # alpha, within the simulation's error (sd 0.0011)


def test_no_look_is_stricter_than_bonferroni_and_later_looks_are_more_lenient() -> None:
    for alpha in (0.05, 0.05 / 12, 0.05 / 40):
        thresholds = boundaries(alpha, FRACTIONS)
        assert thresholds[0] == pytest.approx(alpha / len(FRACTIONS))
        assert all(t >= alpha / len(FRACTIONS) * 0.999 for t in thresholds)
        assert thresholds[-1] > 1.8 * alpha / len(FRACTIONS)  # 2.6x at 0.05, 1.9x at 0.05 / 40


def test_a_test_is_held_to_the_last_look_its_samples_reached() -> None:
    looks = (6, 12, 18, 27, 30)
    first, third = boundaries(0.05, FRACTIONS)[0], boundaries(0.05, FRACTIONS)[2]
    assert threshold(0.05, looks, 4) == threshold(0.05, looks, 6) == pytest.approx(first)
    assert threshold(0.05, looks, 20) == pytest.approx(third)


def test_the_default_rule_plans_its_looks_and_old_files_keep_bonferroni() -> None:
    rule = rule_for(RunOptions())
    assert rule.points == planned_looks(6, 30) == (6, 12, 18, 27, 30)
    assert rule.looks == len(rule.points) and rule.setup is not None and rule.setup.points[-1] == 120
    old = DecisionRule(looks=5)
    assert old.level(0.05, 30) == pytest.approx(0.01)
    assert rule.level(0.05, 30) > 2 * old.level(0.05, 30)


def test_step_down_rejects_what_holm_would_and_more_at_later_looks() -> None:
    rule = rule_for(RunOptions())
    bonferroni = DecisionRule(looks=rule.looks)
    p_values = [1e-6, 0.004, 0.012, 0.5]
    early = step_down(p_values, [6, 6, 6, 6], rule, two_sided=True)
    late = step_down(p_values, [30, 30, 30, 30], rule, two_sided=True)
    plain = step_down(p_values, [30, 30, 30, 30], bonferroni, two_sided=True)
    assert [x is not None for x in plain] == [True, False, False, False]  # 0.004 > 0.05 / 5 / 3
    assert [x is not None for x in early] == [True, False, False, False]
    assert [x is not None for x in late] == [True, True, True, False]  # the last look's boundary is 2.6x wider
    assert all(t is None or p <= t for p, t in zip(p_values, late, strict=True))
