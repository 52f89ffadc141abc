"""Which placement of the embedded ends is steadier on this machine, from a short trial of both.

Placement decides how much one sample varies, and machines differ: on a
2-vCPU Xeon VM, split placement (client and server on their own CPUs)
spread a sample 8.4x less than free placement; on a 2-vCPU EPYC VM 1.2x,
within noise (docs/methodology.md). So a run with `--placement auto` (the
default) measures it: one fast case, alternately split and free, a few
samples each (measure/placing.py), before the minimum begins. Those samples
count for no verdict: a case's samples must all share one placement, since
free placement moved up to 2x slower on one of these machines.

The test is on spread, not speed: Brown-Forsythe's deviations from each
placement's median log rate, compared by an exact permutation test (every
split of the pooled deviations into two groups of the trial's sizes; 12,870
for 8 and 8). Free is chosen only where it is significantly steadier;
otherwise split stays, as it is nearest to a real transfer's two machines.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Sequence
from typing import Literal

from sshbench.results.design import PlacementTrial

ALPHA = 0.05  # one-sided, for "free is steadier": a wrong switch to free costs little, a run's steadiness
MIN_EACH = 5  # ok samples of each placement below which nothing is chosen (split stays)
MAX_EXACT = 20_000  # splits enumerated exactly; beyond, a seeded random sample of this many


def _deviations(rates: Sequence[float]) -> list[float]:
    logs = [math.log(r) for r in rates]
    centre = statistics.median(logs)
    return [abs(v - centre) for v in logs]


def _splits(pooled: list[float], first: int) -> list[float]:
    """The mean deviation of the second group minus the first's, for every split of `pooled`."""
    total, n, m = sum(pooled), first, len(pooled) - first
    index = range(len(pooled))
    combos = itertools.combinations(index, first)
    if math.comb(len(pooled), first) > MAX_EXACT:
        rng = random.Random(len(pooled))
        combos = (tuple(rng.sample(index, first)) for _ in range(MAX_EXACT))  # type: ignore[assignment]
    out = []
    for combo in combos:
        one = sum(pooled[i] for i in combo)
        out.append((total - one) / m - one / n)
    return out


def steadier(split: Sequence[float], free: Sequence[float]) -> tuple[float, float]:
    """(p that free is steadier, p that split is): one-sided permutation p-values of the deviations' means."""
    dx, dy = _deviations(split), _deviations(free)
    observed = statistics.fmean(dy) - statistics.fmean(dx)  # > 0: free spreads more
    null = _splits(dx + dy, len(dx))
    tolerance = 1e-12
    return (sum(v <= observed + tolerance for v in null) / len(null),
            sum(v >= observed - tolerance for v in null) / len(null))


def choose_placement(case_id: str, split: Sequence[float], free: Sequence[float], seconds: float) -> PlacementTrial:
    """The placement for the rest of the run from each placement's trial rates (bytes/s), with why."""
    def mbs(rates: Sequence[float]) -> str:
        return f"{statistics.median(rates) / 1e6:,.0f} MB/s"

    counts = f"{len(split)} split and {len(free)} free samples of {case_id}"
    if min(len(split), len(free)) < MIN_EACH:
        return PlacementTrial(case_id, list(split), list(free), "split", seconds,
                              f"split kept: the trial gave too few samples to compare ({counts})")
    ratio = _log_sd(free) / _log_sd(split) if _log_sd(split) > 0 else math.inf
    p_free, p_split = steadier(split, free)
    figures = (f"free samples spread {ratio:.2f}x as much as split ones ({counts}; medians {mbs(split)} split, "
               f"{mbs(free)} free)")
    if p_free < ALPHA:
        why = f"free chosen: {figures}, significantly less (p={p_free:.3f})"
        chosen: Literal["split", "free"] = "free"
    elif p_split < ALPHA:
        why = f"split chosen: {figures}, significantly more (p={p_split:.3f})"
        chosen = "split"
    else:
        why = (f"split kept: {figures}, not a significant difference (p={min(p_free, p_split) * 2:.2f}, two-sided); "
               "split is nearest to a transfer between two machines")
        chosen = "split"
    return PlacementTrial(case_id, list(split), list(free), chosen, seconds, why)


def _log_sd(rates: Sequence[float]) -> float:
    return statistics.stdev(math.log(r) for r in rates)
