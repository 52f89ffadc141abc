"""The statistics that decide precision and ties, checked on known distributions with fixed seeds."""

import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.analysis.stats.robust import (
    mann_whitney_p,
    median_interval,
    min_samples_for_interval,
    outliers,
    relative_half_width,
)


def test_six_samples_is_the_least_for_a_95_percent_interval() -> None:
    assert min_samples_for_interval(0.95) == 6
    assert median_interval([1.0, 2, 3, 4, 5]) is None
    assert median_interval([1.0, 2, 3, 4, 5, 6]) == (1.0, 6.0)  # coverage 1 - 2/64 = 96.9%


def test_interval_ranks_for_larger_samples() -> None:
    # n = 20: [x_(6), x_(15)] covers 95.9%; [x_(7), x_(14)] would cover only 88.5%.
    assert median_interval([float(i) for i in range(1, 21)]) == (6.0, 15.0)


@pytest.mark.parametrize("draw", [
    lambda r: r.gauss(100, 10),
    lambda r: r.expovariate(1 / 100),  # skewed, like a benchmark slowed down by neighbours
    lambda r: 100 if r.random() < 0.7 else 140,  # bimodal, like the 40 ms Nagle stall
])
def test_coverage_is_at_least_95_percent_on_known_distributions(draw: object) -> None:
    rng = random.Random(1234)
    true_median = statistics.median([draw(rng) for _ in range(200_000)])  # type: ignore[operator]
    trials, hits = 2000, 0
    for _ in range(trials):
        sample = [draw(rng) for _ in range(12)]  # type: ignore[operator]
        low, high = median_interval(sample) or (0, 0)
        hits += low <= true_median <= high
    assert hits / trials >= 0.94  # 95% nominal, 96.1% exact for n=12; allow simulation error


def test_relative_half_width() -> None:
    assert relative_half_width(100.0, (97.0, 104.0)) == pytest.approx(0.04)
    assert relative_half_width(100.0, None) is None


def test_mann_whitney_exact_small_samples() -> None:
    # Fully separated groups of 5: p = 2 / C(10, 5) = 2/252
    assert mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / 252)
    assert mann_whitney_p([1, 3, 5, 7, 9], [2, 4, 6, 8, 10]) > 0.5
    assert mann_whitney_p([], [1.0]) == 1.0


def test_mann_whitney_false_alarm_rate_and_power() -> None:
    rng = random.Random(99)
    same = sum(mann_whitney_p([rng.gauss(0, 1) for _ in range(10)], [rng.gauss(0, 1) for _ in range(10)]) < 0.05
               for _ in range(1000))
    assert same / 1000 <= 0.07  # about 5% false alarms
    shifted = sum(mann_whitney_p([rng.gauss(0, 1) for _ in range(10)], [rng.gauss(1.5, 1) for _ in range(10)])
                  < 0.05 for _ in range(300))
    assert shifted / 300 >= 0.8  # a 1.5-sigma difference is found most of the time


def test_mann_whitney_with_ties_and_large_samples() -> None:
    a = [1.0] * 30 + [2.0] * 30
    assert mann_whitney_p(a, list(a)) == pytest.approx(1.0)
    assert mann_whitney_p(list(range(40)), [x + 20 for x in range(40)]) < 0.001


@given(st.lists(st.floats(min_value=0, max_value=1e9), min_size=1, max_size=15),
       st.lists(st.floats(min_value=0, max_value=1e9), min_size=1, max_size=15))
def test_mann_whitney_is_a_symmetric_probability(a: list[float], b: list[float]) -> None:
    p = mann_whitney_p(a, b)
    assert 0.0 <= p <= 1.0
    assert p == pytest.approx(mann_whitney_p(b, a))


def test_outliers_by_modified_z_score() -> None:
    values = [100.0, 101, 99, 100, 102, 98, 100, 60]
    assert outliers(values) == [False] * 7 + [True]
    assert outliers([1.0, 1.0, 1.0, 5.0]) == [False] * 4  # MAD 0: nothing can be called an outlier
    assert outliers([1.0, 100.0]) == [False, False]
