"""Distribution-free statistics for noisy benchmark samples: median intervals, ties, outliers.

Benchmark samples on a shared machine are not normal: they are skewed (a
neighbour can only slow a sample down) and sometimes bimodal. Everything
here therefore avoids normality assumptions:

- median_interval: the order-statistic (binomial) confidence interval of the
  median. Exact coverage >= the level asked for, for any continuous
  distribution; needs at least 6 samples for 95% (with 5, (min, max) covers
  only 93.75%).
- mann_whitney_p / mann_whitney_greater: Mann-Whitney U test, two- and
  one-sided (exact null distribution for small untied samples, normal
  approximation with tie correction beyond), used to decide whether two
  cases really differ, and, shifted by a margin, whether they are
  equivalent (two one-sided tests).
- shift_interval: the Hodges-Lehmann estimate of a shift and its Moses
  interval, the interval that agrees with the Mann-Whitney test.
- holm: Holm's step-down correction for the many comparisons of one table.
- outliers: modified z-score of Iglewicz and Hoaglin (1993),
  M = 0.6745 (x - median) / MAD, flagged when |M| > 3.5.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from functools import cache

OUTLIER_THRESHOLD = 3.5
EXACT_LIMIT = 400  # n1 * n2 up to which U's exact null distribution is used


def _binomial_cdf_half(n: int, k: int) -> float:
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)


def median_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """(low, high) order statistics bracketing the median with coverage >= level; None if n is too small."""
    best = _interval_rank(len(values), level)
    if best is None:
        return None
    ordered = sorted(values)
    return ordered[best - 1], ordered[len(values) - best]


@cache
def _interval_rank(n: int, level: float) -> int | None:
    """The widest-coverage-enough k of the interval [x_(k), x_(n-k+1)] (1-based): made once per n, as a run
    describes every case after every sample."""
    best: int | None = None
    for k in range(1, n // 2 + 1):
        if 1 - 2 * _binomial_cdf_half(n, k - 1) >= level:
            best = k
        else:
            break
    return best


def min_samples_for_interval(level: float = 0.95) -> int:
    """Smallest n for which median_interval can reach `level` (6 for 95%)."""
    n = 1
    while 1 - 2 * _binomial_cdf_half(n, 0) < level:
        n += 1
    return n


def relative_half_width(median: float, interval: tuple[float, float] | None) -> float | None:
    """The larger distance from the median to an interval end, as a fraction of the median."""
    if interval is None or median == 0:
        return None
    return max(median - interval[0], interval[1] - median) / abs(median)


@cache
def _u_distribution(n1: int, n2: int) -> tuple[int, ...]:
    """Counts of each U value over all arrangements of n1 + n2 untied values (exact null distribution)."""
    # f(i, j, u): arrangements of i x's and j y's with U = u, built by the standard recurrence.
    table: dict[tuple[int, int], list[int]] = {}
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            if i == 0 or j == 0:
                table[(i, j)] = [1]
                continue
            a, b = table[(i - 1, j)], table[(i, j - 1)]
            size = i * j + 1
            row = [0] * size
            for u, count in enumerate(a):  # the largest value is an x: it beats all j y's
                row[u + j] += count
            for u, count in enumerate(b):
                row[u] += count
            table[(i, j)] = row
    return tuple(table[(n1, n2)])


def _u_statistic(a: Sequence[float], b: Sequence[float]) -> float:
    """Pairs (x in a, y in b) with x > y, ties counting one half (by bisection: n log n, not n1 * n2)."""
    ordered = sorted(b)
    return sum(bisect.bisect_left(ordered, x) + 0.5 * (bisect.bisect_right(ordered, x) - bisect.bisect_left(ordered, x))
               for x in a)


def _exact(n1: int, n2: int, tied: bool) -> bool:
    return n1 * n2 <= EXACT_LIMIT and not tied


def mann_whitney_greater(a: Sequence[float], b: Sequence[float]) -> float:
    """One-sided p-value against "a tends to be larger than b" (P(U >= u) under no difference)."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return 1.0
    u = _u_statistic(a, b)
    if _exact(n1, n2, len(set(a) | set(b)) < n1 + n2):
        counts = _u_distribution(n1, n2)
        return min(1.0, sum(counts[math.ceil(u):]) / math.comb(n1 + n2, n1))
    sigma = _sigma(a, b)
    if sigma == 0:
        return 1.0
    z = (u - n1 * n2 / 2 - 0.5) / sigma
    return min(1.0, 0.5 * math.erfc(z / math.sqrt(2)))


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value that samples a and b come from the same distribution."""
    if not a or not b:
        return 1.0
    return min(1.0, 2 * min(mann_whitney_greater(a, b), mann_whitney_greater(b, a)))


def _sigma(a: Sequence[float], b: Sequence[float]) -> float:
    """Standard deviation of U under no difference, corrected for ties (normal approximation)."""
    n1, n2 = len(a), len(b)
    tie_term = float(sum(t**3 - t for t in Counter([*a, *b]).values()))
    n = n1 + n2
    return math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))


def smallest_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value n1 against n2 untied samples can give (3 vs 3: 0.1)."""
    if n1 == 0 or n2 == 0:
        return 1.0
    return min(1.0, 2 / math.comb(n1 + n2, n1))


def shift_interval(a: Sequence[float], b: Sequence[float],
                   level: float) -> tuple[float, float | None, float | None] | None:
    """Hodges-Lehmann estimate of the shift a - b and its distribution-free (Moses) interval at `level`.

    The estimate is the median of all n1*n2 differences; the interval runs
    between two order statistics of those differences, chosen from the null
    distribution of U, so it excludes 0 exactly when the two-sided
    Mann-Whitney test at 1 - level rejects (untied data). The interval's ends
    are None when this few samples cannot give one at that level; all is
    None without samples.
    """
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return None
    diffs = sorted(x - y for x in a for y in b)
    tail = (1 - level) / 2
    if n1 * n2 <= EXACT_LIMIT:
        counts, total = _u_distribution(n1, n2), math.comb(n1 + n2, n1)
        k, cumulative = 0, 0  # k = the largest count with P(U <= k - 1) <= tail
        while k < len(counts) and (cumulative + counts[k]) / total <= tail:
            cumulative += counts[k]
            k += 1
    else:
        # the normal approximation's k with the test's continuity correction (mann_whitney_greater: u - 0.5), so
        # the interval excludes 0 exactly where that test rejects: without it the two parted by one order
        # statistic (hypothesis: "different" at p 0.0024 under Holm's 0.01 beside [0.9974, 3.650], 24 vs 56)
        z = _normal_quantile(1 - tail)
        k = math.floor(n1 * n2 / 2 - z * math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12) - 0.5) + 1
    if k < 1:
        return statistics.median(diffs), None, None
    return statistics.median(diffs), diffs[k - 1], diffs[n1 * n2 - k]


def _normal_quantile(p: float) -> float:
    return statistics.NormalDist().inv_cdf(p)


def holm(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down correction: which hypotheses are rejected, family-wise error at most alpha."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for step, i in enumerate(order):
        if p_values[i] > alpha / (len(p_values) - step):
            break
        rejected[i] = True
    return rejected


def holm_thresholds(p_values: Sequence[float], alpha: float) -> list[float]:
    """The level each hypothesis faces in Holm's procedure: alpha / (m - its step), steps by ascending p.

    A rejected hypothesis's interval at 1 - its threshold is the one that
    agrees with its verdict (it excludes the null exactly when the dual test
    rejects at that step); a Bonferroni interval (alpha / m for every one)
    could still include the null for a pair Holm rejected at a later step."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    out = [alpha / max(1, len(p_values))] * len(p_values)
    for step, i in enumerate(order):
        out[i] = alpha / (len(p_values) - step)
    return out


def outliers(values: Sequence[float], threshold: float = OUTLIER_THRESHOLD) -> list[bool]:
    """True for each value whose modified z-score exceeds the threshold (never for n < 3 or MAD = 0)."""
    if len(values) < 3:
        return [False] * len(values)
    median = statistics.median(values)
    mad = statistics.median([abs(v - median) for v in values])
    if mad == 0:
        return [False] * len(values)
    return [abs(0.6745 * (v - median) / mad) > threshold for v in values]
