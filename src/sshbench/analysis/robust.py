"""Distribution-free statistics for noisy benchmark samples: median intervals, ties, outliers.

Benchmark samples on a shared machine are not normal: they are skewed (a
neighbour can only slow a sample down) and sometimes bimodal. Everything
here therefore avoids normality assumptions:

- median_interval: the order-statistic (binomial) confidence interval of the
  median. Exact coverage >= the level asked for, for any continuous
  distribution; needs at least 6 samples for 95% (with 5, (min, max) covers
  only 93.75%).
- mann_whitney_p: two-sided Mann-Whitney U test (exact distribution for small
  samples, normal approximation with tie correction beyond), used to decide
  whether two neighbours in a ranking really differ.
- outliers: modified z-score of Iglewicz and Hoaglin (1993),
  M = 0.6745 (x - median) / MAD, flagged when |M| > 3.5.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from functools import cache

OUTLIER_THRESHOLD = 3.5


def _binomial_cdf_half(n: int, k: int) -> float:
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)


def median_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """(low, high) order statistics bracketing the median with coverage >= level; None if n is too small."""
    n = len(values)
    ordered = sorted(values)
    best: int | None = None
    for k in range(1, n // 2 + 1):  # interval [x_(k), x_(n-k+1)], 1-based
        if 1 - 2 * _binomial_cdf_half(n, k - 1) >= level:
            best = k
        else:
            break
    if best is None:
        return None
    return ordered[best - 1], ordered[n - best]


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


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value that samples a and b come from the same distribution."""
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return 1.0
    u = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)
    tied = len(set(a) | set(b)) < n1 + n2
    if n1 * n2 <= 400 and not tied:
        counts = _u_distribution(n1, n2)
        total = math.comb(n1 + n2, n1)
        low = min(u, n1 * n2 - u)
        tail = sum(counts[: int(low) + 1]) / total
        return min(1.0, 2 * tail)
    pooled = sorted([*a, *b])
    tie_term = 0.0
    for value in set(pooled):
        t = pooled.count(value)
        tie_term += t**3 - t
    n = n1 + n2
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    if sigma == 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / sigma
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def outliers(values: Sequence[float], threshold: float = OUTLIER_THRESHOLD) -> list[bool]:
    """True for each value whose modified z-score exceeds the threshold (never for n < 3 or MAD = 0)."""
    if len(values) < 3:
        return [False] * len(values)
    median = statistics.median(values)
    mad = statistics.median([abs(v - median) for v in values])
    if mad == 0:
        return [False] * len(values)
    return [abs(0.6745 * (v - median) / mad) > threshold for v in values]
