"""What it would take to settle an open comparison: samples and minutes at this machine's noise.

A pair not yet separable after a run is not a failure of the run but a
question of time: with the difference the samples so far estimate, and the
spread they show, the standard error of the log ratio shrinks as 1/sqrt(n),
and the pair settles once the estimate stands z standard errors from 1 (a
difference) or z inside the tie margin (an equivalence), z being the
threshold its test faces at the run's last look. Solving for n gives the
samples each case needs in all: a forecast with the estimate taken as the
truth (half the time it takes longer), said as "about".

The schedule uses the same figure to spend the budget where it settles
most (plan/base.py: the pairs that need the fewest more seconds first,
the answer's own comparisons before all), and the answer shows it for each
comparison it leaves open, with the wider margin that would settle sooner.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from sshbench.vocabulary.case_terms import Relation

WIDER_MARGIN = 0.10  # the looser tie margin a forecast offers when the run's own would take long
MAX_SAMPLES = 100_000  # beyond this a pair is "out of reach" (a difference too small for this noise)
_MAD_SD = 1.4826


@dataclass(frozen=True)
class Forecast:
    """Samples per case (in all) and wall time (still to spend) to settle one comparison."""

    samples: int | None  # None: out of reach at this noise
    seconds: float | None  # the visits still needed, both cases, at their present cost
    outcome: Relation  # what it would most likely settle as: different, or equivalent within the margin
    wider_samples: int | None = None  # equivalent within WIDER_MARGIN instead (None: not in reach, or no sooner)
    wider_seconds: float | None = None


def spread(logs: Sequence[float]) -> float:
    """A robust SD (1.4826 x the median absolute deviation; the plain SD where that is 0)."""
    if len(logs) < 2:
        return math.nan
    centre = statistics.median(logs)
    mad = statistics.median(abs(x - centre) for x in logs)
    return _MAD_SD * mad if mad > 0 else statistics.stdev(logs)


def needed(estimate: float, variance: float, margin: float, two_sided: float, one_sided: float) \
        -> tuple[float, Relation]:
    """Samples (per case, or pairs) at which the log-ratio `estimate` would settle, with `variance` the variance
    of one sample's (or pair's) contribution, and the p thresholds its tests face: (n, what it settles as)."""
    if not math.isfinite(estimate) or not math.isfinite(variance) or variance <= 0:
        return math.inf, Relation.UNSETTLED
    normal = NormalDist()
    size = abs(estimate)
    differ = math.inf if size == 0 or two_sided <= 0 else variance * (normal.inv_cdf(1 - two_sided / 2) / size) ** 2
    room = math.log(1 + margin) - size
    match = math.inf if room <= 0 else variance * (normal.inv_cdf(1 - one_sided) / room) ** 2
    return (differ, Relation.DIFFERENT) if differ <= match else (match, Relation.EQUIVALENT)


def forecast(fast: Sequence[float], slow: Sequence[float], paired: Sequence[float], visit_seconds: float,
             margin: float, two_sided: float, one_sided: float) -> Forecast:
    """The forecast for a pair from its log costs (`fast`, `slow`: one per sample) or, where it is decided on
    back-to-back pairs, their log ratios (`paired`); `visit_seconds`: one visit of each of the two."""
    if paired:
        estimate, variance, now = statistics.median(paired), spread(paired) ** 2, len(paired)
    else:
        estimate = statistics.median(slow) - statistics.median(fast) if fast and slow else math.nan
        variance, now = spread(fast) ** 2 + spread(slow) ** 2, min(len(fast), len(slow))
    # the estimate, shrunk toward "no difference" by one standard error: a pair that looks far apart after a few
    # samples by luck is not forecast to settle cheaply (the schedule would spend on it and find it was not)
    shrunk = math.copysign(max(0.0, abs(estimate) - math.sqrt(variance / max(1, now))), estimate) \
        if math.isfinite(estimate) and math.isfinite(variance) else estimate
    n, outcome = needed(shrunk, variance, margin, two_sided, one_sided)
    samples, seconds = _in_reach(n, now, visit_seconds)
    wider_samples = wider_seconds = None
    if margin < WIDER_MARGIN:
        n_wide, settles = needed(estimate, variance, WIDER_MARGIN, 0.0, one_sided)
        if settles is Relation.EQUIVALENT and now < n_wide < n / 2:  # worth saying only where it is much sooner
            wider_samples, wider_seconds = _in_reach(n_wide, now, visit_seconds)
    return Forecast(samples, seconds, outcome, wider_samples, wider_seconds)


def _in_reach(n: float, now: int, visit_seconds: float) -> tuple[int | None, float | None]:
    """(samples in all, seconds more) for a forecast of n; a pair still open at or past its forecast is on the
    edge of its threshold: half as many again is the figure then (a look's worth)."""
    if not math.isfinite(n) or n > MAX_SAMPLES:
        return None, None
    samples = math.ceil(n) if n > now else max(now + 1, math.ceil(now * 1.5))
    return samples, (samples - now) * visit_seconds


def visit_seconds(samples: Sequence[float]) -> float:
    """A case's typical visit (the median wall time of its samples; 1 s before it has any)."""
    return statistics.median(samples) if samples else 1.0


# Per-sample noise (log SD of one throughput sample) of the machines a plan forecasts for: a quiet one (a Xeon VM,
# and this project's EPYC VM when quiet: 2-3%) and a noisy one (a busy 2-vCPU AMD EPYC VM: ~20%).
QUIET_NOISE = 0.03
NOISY_NOISE = 0.20


@dataclass(frozen=True)
class Resolution:
    """What n samples of each of two cases can settle at a per-sample noise."""

    noise: float
    different_from: float  # the smallest ratio - 1 it can call different
    equivalent_below: float | None  # pairs closer than this can be shown equivalent within the margin (None: none)
    margin_needed: float  # the tie margin at which an identical pair could be shown equivalent


def resolution(samples: int, noise: float, margin: float, two_sided: float, one_sided: float) -> Resolution:
    """The differences n samples per case resolve at `noise`, with the run's thresholds (a forecast for --plan)."""
    normal = NormalDist()
    se = noise * math.sqrt(2 / max(1, samples))
    differ = se * normal.inv_cdf(1 - two_sided / 2)
    shown = se * normal.inv_cdf(1 - one_sided)
    room = math.log(1 + margin) - shown
    return Resolution(noise, math.exp(differ) - 1, math.exp(room) - 1 if room > 0 else None, math.exp(shown) - 1)
