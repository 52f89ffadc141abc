"""Group-sequential boundaries: how small a p-value must be at each look, so that looking often costs little.

A run looks at each pair's verdict several times (analysis/stats/verdicts.py), and
stops sampling a pair once it is settled. Testing every look at alpha/K
(Bonferroni over K looks) keeps the chance of any wrong verdict within
alpha, but ignores that the looks share their data: the statistic at look
4 is mostly look 3's, so the looks' chances of a false alarm overlap, and
the K slices of alpha it hands out sum to far more protection than needed.

Lan and DeMets' alpha spending (Biometrika 70, 1983) hands the error out
look by look, and chooses each look's boundary so that, under "no
difference", the chance of first crossing it at that look is exactly what
that look may spend, given that the earlier looks were not crossed (the
statistics at two looks correlate as sqrt(n_i / n_j)). Each of K planned
looks may spend alpha / K, as Bonferroni gives it: the first look's
threshold is then Bonferroni's, and every later one is higher, since part
of what it could have wrongly found, an earlier look already had its
chance at and did not. So no look is stricter than before, and the last
looks, where a noisy machine's close pairs are decided, get up to about
2.6 times Bonferroni's threshold (alpha = 0.05, five looks at 6, 12, 18, 27
and 30 samples: 0.010, 0.013, 0.016, 0.017, 0.026 against 0.010 each).

The boundaries come from the recursive numerical integration of Armitage,
McPherson and Rowe (1969), as in Jennison and Turnbull, "Group Sequential
Methods" (2000), chapter 19: the density of the score statistic over the
region not yet crossed, carried from look to look on a grid with
Simpson's weights. tests/unit/test_sequential.py checks them against a
simulated Brownian motion; bench/decision_calibration.py checks the error
rate of whole simulated runs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from functools import cache
from statistics import NormalDist

_NORMAL = NormalDist()


def spent(alpha: float, look: int, looks: int) -> float:
    """The error allowed up to and including look `look` (1-based) of `looks`: an equal share per look."""
    return alpha * min(look, looks) / looks


def _grid(low: float, high: float) -> tuple[list[float], list[float]]:
    """Points and Simpson weights over [low, high] (an odd number of points, about 8 per SD unit, at least 33)."""
    intervals = max(32, 2 * math.ceil((high - low) * 4))
    step = (high - low) / intervals
    points = [low + i * step for i in range(intervals + 1)]
    weights = [step / 3 * (1 if i in (0, intervals) else 4 if i % 2 else 2) for i in range(intervals + 1)]
    return points, weights


def _crossing(points: Sequence[float], density: Sequence[float], weights: Sequence[float], spread: float,
              bound: float, two_sided: bool) -> float:
    """P(the next score lies beyond `bound` (and below -bound if two-sided), having not crossed before)."""
    total = 0.0
    for s, f, w in zip(points, density, weights, strict=True):
        upper = 1 - _NORMAL.cdf((bound - s) / spread)
        lower = _NORMAL.cdf((-bound - s) / spread) if two_sided else 0.0
        total += w * f * (upper + lower)
    return total


def _crossing_at(points: Sequence[float], density: Sequence[float], weights: Sequence[float], spread: float,
                 two_sided: bool, bound: float) -> float:
    return _crossing(points, density, weights, spread, bound, two_sided)


def _solve(target: float, cross: Callable[[float], float]) -> float:
    """The bound (in score units) at which crossing has probability `target` (bisection; inf for none)."""
    if target <= 0:
        return math.inf
    low, high = 0.0, 40.0
    for _ in range(60):
        middle = (low + high) / 2
        if cross(middle) > target:
            low = middle
        else:
            high = middle
    return high


@cache
def boundaries(alpha: float, fractions: tuple[float, ...], two_sided: bool = True) -> tuple[float, ...]:
    """Nominal p-value thresholds, one per look at these information fractions (increasing, the last <= 1).

    A test at look k rejects when its p-value (two-sided, or one-sided when
    not `two_sided`) is below the k-th threshold. Under "no difference" the
    chance that any look rejects is at most `alpha`, for statistics that
    behave as a sum of independent increments (rank tests do, for the
    sample sizes here; the calibration bench checks it).
    """
    thresholds: list[float] = []
    points: list[float] = []
    density: list[float] = []
    weights: list[float] = []
    previous = 0.0
    for k, t in enumerate(fractions):
        budget = spent(alpha, k + 1, len(fractions)) - spent(alpha, k, len(fractions))
        if k == 0:
            z = _NORMAL.inv_cdf(1 - budget / (2 if two_sided else 1)) if budget > 0 else math.inf
            bound = z * math.sqrt(t)
        else:
            bound = _solve(budget, functools.partial(_crossing_at, points, density, weights, math.sqrt(t - previous),
                                                     two_sided))
        z = bound / math.sqrt(t)
        thresholds.append(0.0 if math.isinf(z) else (1 - _NORMAL.cdf(z)) * (2 if two_sided else 1))
        # the density of the score over what was not crossed, carried to this look
        sd = math.sqrt(t)
        low = -bound if two_sided else -8 * sd
        high = bound
        low, high = max(low, -8 * sd), min(high, 8 * sd)
        new_points, new_weights = _grid(low, high)
        if k == 0:
            new_density = [_NORMAL.pdf(u / sd) / sd for u in new_points]
        else:
            step = math.sqrt(t - previous)
            new_density = [sum(w * f * _NORMAL.pdf((u - s) / step) / step
                               for s, f, w in zip(points, density, weights, strict=True)) for u in new_points]
        points, density, weights, previous = new_points, new_density, new_weights, t
    return tuple(thresholds)


def threshold(alpha: float, looks: Sequence[int], n: int, two_sided: bool = True) -> float:
    """The p-value threshold for a test with `n` samples, in a table that looks at these sample counts.

    The look is the last planned one at or below `n` (the first, when n is
    below it: there the threshold is the first look's share alone, valid at
    any n).
    """
    if not looks:
        return alpha
    fractions = tuple(point / looks[-1] for point in looks)
    k = max(0, sum(1 for point in looks if point <= n) - 1)
    return boundaries(round(alpha, 12), fractions, two_sided)[k]
