"""Paired statistics for back-to-back samples: the Wilcoxon signed-rank test and its interval.

On a shared machine the noise is slow drift (other load that comes and goes
over minutes), not per-connection noise: two samples taken seconds apart see
nearly the same load, two taken minutes apart do not. So where two cases
are visited back to back (the decision schedule's pairs), the log ratio of
the two samples of each visit cancels the load they shared, and the pair's
verdict is decided on those ratios:

- signed_rank_greater / signed_rank_p: the Wilcoxon signed-rank test of
  "the median log ratio is 0" (exact null distribution up to EXACT_N
  pairs, normal approximation with tie correction beyond). Valid under
  drift because each difference's sign is exchangeable under the null when
  the visit order alternates (A-B, then B-A): the drift a pair shares
  cancels, and what is left is symmetric about the true ratio.
- paired_interval: the Hodges-Lehmann estimate (the median of the Walsh
  averages) and the interval between two of their order statistics, chosen
  from the same null distribution, so it excludes 0 exactly when the test
  rejects.
- paired_tests: a difference (two-sided) and an equivalence within
  1 +- margin (two one-sided tests), as verdicts.py asks of every pair.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from functools import cache

EXACT_N = 60  # pairs up to which the signed-rank distribution is computed exactly


@cache
def _w_counts(n: int) -> tuple[int, ...]:
    """How many of the 2^n sign assignments give each rank sum W+ = 0 .. n(n+1)/2."""
    counts = [1]
    for rank in range(1, n + 1):
        grown = counts + [0] * rank
        for w in range(len(counts)):
            grown[w + rank] += counts[w]
        counts = grown
    return tuple(counts)


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def signed_rank_greater(d: Sequence[float]) -> float:
    """One-sided p of "the median of d is 0" against "it is greater" (zeros dropped; 1.0 without data)."""
    nonzero = [x for x in d if x != 0]
    n = len(nonzero)
    if n == 0:
        return 1.0
    magnitudes = [abs(x) for x in nonzero]
    ranks = _ranks(magnitudes)
    w_plus = sum(r for r, x in zip(ranks, nonzero, strict=True) if x > 0)
    tied = len(set(magnitudes)) < n
    if n <= EXACT_N and not tied:
        counts = _w_counts(n)
        return float(sum(counts[int(w_plus):]) / 2**n)
    mean = n * (n + 1) / 4
    ties = sum(c**3 - c for c in _tie_sizes(magnitudes))
    variance = n * (n + 1) * (2 * n + 1) / 24 - ties / 48
    if variance <= 0:
        return 1.0
    z = (w_plus - mean - 0.5) / math.sqrt(variance)  # continuity correction
    return 1 - statistics.NormalDist().cdf(z)


def _tie_sizes(values: Sequence[float]) -> list[int]:
    seen: dict[float, int] = {}
    for v in values:
        seen[v] = seen.get(v, 0) + 1
    return [c for c in seen.values() if c > 1]


def signed_rank_p(d: Sequence[float]) -> float:
    """Two-sided p of "the median of d is 0"."""
    return min(1.0, 2 * min(signed_rank_greater(d), signed_rank_greater([-x for x in d])))


def smallest_paired_p(n: int) -> float:
    """The smallest two-sided p that n pairs can give (all signs alike): 2 / 2^n."""
    return min(1.0, 2 / 2**n) if n else 1.0


def paired_interval(d: Sequence[float], level: float) -> tuple[float, float | None, float | None] | None:
    """Hodges-Lehmann estimate of the median of d and its distribution-free interval at `level`.

    The estimate is the median of the n(n+1)/2 Walsh averages (d_i + d_j)/2,
    i <= j; the interval runs between the k-th smallest and k-th largest of
    them, k from the signed-rank null distribution. Ends are None when this
    few pairs cannot give one at that level; all is None without pairs.
    """
    n = len(d)
    if n == 0:
        return None
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    total = len(walsh)
    tail = (1 - level) / 2
    if n <= EXACT_N:
        counts = _w_counts(n)
        k, cumulative = 0, 0  # k = the largest count with P(W <= k - 1) <= tail
        while k < len(counts) and (cumulative + counts[k]) / 2**n <= tail:
            cumulative += counts[k]
            k += 1
    else:
        z = statistics.NormalDist().inv_cdf(1 - tail)
        k = math.floor(n * (n + 1) / 4 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24))
    if k < 1:
        return statistics.median(walsh), None, None
    return statistics.median(walsh), walsh[k - 1], walsh[total - k]


def paired_tests(d: Sequence[float], margin: float) -> tuple[float, float]:
    """(two-sided p of a difference, TOST p of equivalence within 1 +- margin) for log ratios d."""
    low, high = math.log(1 - margin), math.log(1 + margin)
    p_above_low = signed_rank_greater([x - low for x in d])  # rejects: ratio <= 1 - margin
    p_below_high = signed_rank_greater([high - x for x in d])  # rejects: ratio >= 1 + margin
    return signed_rank_p(d), max(p_above_low, p_below_high)
