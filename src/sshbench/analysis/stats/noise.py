"""The machine's noise, measured from a run's own samples, and the design it calls for.

How fast a run can settle its pairs depends on the kind of noise more than
on its size, and machines differ (the methodology's figures: a Xeon VM whose
noise was slow drift, an EPYC VM whose noise was per sample, four times as
large, with no drift at all). From the throughput samples so far:

- per-sample noise: the log SD of one sample of a case, from the spread of
  the differences between samples of the same case (unbiased from two
  samples each, unlike residuals around a median of two);
- within a connection: each sample's steady state is split in two halves
  in time (Sample.steady_half_bytes); their log ratio varies only with what
  changes inside one connection, which a longer sample averages away. The
  rest is between connections (where the processes land, what else runs),
  which no sample length changes;
- drift: whether two cases visited back to back differ by less than the
  same two visited passes apart. Pairing (analysis/stats/paired.py) is worth its
  constraints only where it cancels a real share of the noise;
- the fixed cost of a visit: its wall time beyond the steady state (start,
  handshake, the first quarter of the bytes).

From these, `choose` picks the sample length that buys the most
information per second of wall time (the variance sigma_b^2 + sigma_w^2 *
T0 / T of a sample whose data phase lasts T, against its cost c + T), and
whether verdicts are taken on back-to-back pairs. The choice and the
figures that made it are kept in the results (Report.design).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Sequence

from sshbench.results.design import Design, Noise
from sshbench.results.model import Sample

MIN_DIFFERENCES = 8  # pairs of samples below which a figure is not estimated (None)
# Back-to-back pairs are dropped only where they cancel nothing: their log ratios spread at least this much of the
# same cases' passes apart. Within the minimum, passes are seconds apart, so slow drift shows only partly (a
# simulated drift over 120 s: 0.85); a 2-vCPU EPYC VM without drift measured 0.88, this project's EPYC VM 0.63, a
# white simulated machine 0.95-1.05. Where in doubt pairs stay: on white noise they cost next to nothing.
PAIRING_GAIN = 0.9
LENGTH_GAIN = 0.85  # a new sample length is taken only if it cuts the variance per second of wall time this much
MAX_SAMPLE_SECONDS = 3.0  # longer samples are never chosen: every case still needs its minimum in the budget
DATA_PER_STEADY = 4 / 3  # a sample's data phase against its steady state (the last three quarters of its bytes)
_MAD_SD = 1.4826  # a normal distribution's SD per median absolute deviation


def robust_sd(values: Sequence[float]) -> float | None:
    """The SD of a normal distribution with these values' median absolute deviation from 0 (they are
    differences, symmetric about 0 by construction); None for too few."""
    if len(values) < MIN_DIFFERENCES:
        return None
    return _MAD_SD * statistics.median(abs(v) for v in values)


def _log_rate(sample: Sample) -> float | None:
    rate = sample.throughput_bytes_per_second
    return math.log(rate) if rate and rate > 0 and sample.ok and not sample.warmup else None


def measure(samples: Iterable[Sample], cases: set[str]) -> Noise:
    """The noise of the throughput samples of these cases (their steady states; warm-ups left out).

    Between and within come from the same halves: with h1, h2 the log
    rates of a sample's two halves, their difference varies only within the
    connection (variance 2 s^2) and their sum also between connections
    (4 b^2 + 2 s^2), so b^2 = (var(sum) - var(diff)) / 4, the sums' variance
    taken from the differences between samples of one case. Subtracting the
    whole samples' variance instead made b five times too large in
    simulation (tests/unit/test_design.py).
    """
    by_case: dict[str, list[float]] = {}
    sums: dict[str, list[float]] = {}
    halves: list[float] = []
    fixed: list[float] = []
    steady: list[float] = []
    chains: dict[int, list[tuple[str, float]]] = {}
    count = 0
    for sample in samples:
        if sample.case_id not in cases or (value := _log_rate(sample)) is None:
            continue
        count += 1
        by_case.setdefault(sample.case_id, []).append(value)
        if sample.steady_seconds and sample.steady_bytes and sample.steady_half_bytes \
                and 0 < sample.steady_half_bytes < sample.steady_bytes:
            half = sample.steady_seconds / 2
            first = math.log(sample.steady_half_bytes / half)
            second = math.log((sample.steady_bytes - sample.steady_half_bytes) / half)
            halves.append(first - second)
            sums.setdefault(sample.case_id, []).append(first + second)
            steady.append(sample.steady_seconds)
            if sample.total_seconds is not None:
                fixed.append(max(0.0, sample.total_seconds - DATA_PER_STEADY * sample.steady_seconds))
        if sample.chain is not None:
            chains.setdefault(sample.chain, []).append((sample.case_id, value))
    per_sample = robust_sd(_same_case(by_case))
    centre = statistics.median(halves) if halves else 0.0
    spread_diff = robust_sd([h - centre for h in halves])  # SD of log(first half / second half)
    spread_sum = robust_sd(_same_case(sums))
    # each half's log rate varies by spread_diff / sqrt(2) within its connection; a whole sample, twice as long,
    # by half of spread_diff
    within = None if spread_diff is None else spread_diff / 2
    between = None if spread_diff is None or spread_sum is None else \
        math.sqrt(max(0.0, spread_sum**2 - spread_diff**2)) / 2
    return Noise(count, per_sample, within, between, _pairing(chains), statistics.median(fixed) if fixed else None,
                 statistics.median(steady) if steady else None)


def _same_case(values: dict[str, list[float]]) -> list[float]:
    """Differences between successive samples of one case, over sqrt(2): each spreads as one sample does. Each
    sample counts about once (all pairs would count a case sampled 30 times 15 times as much as one sampled 6)."""
    return [(a - b) / math.sqrt(2) for mine in values.values() for a, b in itertools.pairwise(mine)]


def _pairing(chains: dict[int, list[tuple[str, float]]]) -> float | None:
    """How much less two cases' log ratio spreads when visited back to back than passes apart.

    For cases a and b visited back to back in passes k and l: the paired
    ratios' change (a_k - b_k) - (a_l - b_l) against the crossed one
    (a_k - b_l) - (a_l - b_k). Both cancel the true ratio, both hold four
    samples; only the first has each ratio's two samples seconds apart.
    """
    visits: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for members in chains.values():
        for (one, x), (two, y) in itertools.pairwise(members):
            key = (one, two) if one < two else (two, one)
            visits.setdefault(key, []).append((x, y) if one < two else (y, x))
    paired, crossed = [], []
    for seen in visits.values():
        for (a_k, b_k), (a_l, b_l) in itertools.combinations(seen, 2):
            paired.append(((a_k - b_k) - (a_l - b_l)) / 2)
            crossed.append(((a_k - b_l) - (a_l - b_k)) / 2)
    together, apart = robust_sd(paired), robust_sd(crossed)
    return None if together is None or not apart else together / apart


def choose(noise: Noise, current_seconds: float, longest: float | None = MAX_SAMPLE_SECONDS) -> Design:
    """The sample length and pairing for the rest of the run (module docstring); `longest` caps the length
    (what still lets every case reach its minimum in the budget; None: the length was fixed by the user)."""
    paired = noise.paired is None or noise.paired < PAIRING_GAIN
    pairing = ("pairs: unknown yet, kept" if noise.paired is None else
               f"pairs: back-to-back {noise.paired:.2f}x the spread of pairs passes apart, "
               + ("kept (drift cancels within a pair)" if paired else "not used (no drift to cancel here)"))
    seconds, length = current_seconds, "length: kept (too few samples to tell)"
    if longest is None:
        length = f"length: {current_seconds:g} s, as asked (--sample-seconds or --size)"
    elif noise.within is not None and noise.between is not None and noise.fixed_seconds is not None:
        within2, between2, fixed = noise.within**2, noise.between**2, noise.fixed_seconds
        # the data phase the noise was measured at: the samples' own (longer than asked over a delayed link)
        now = max(current_seconds, noise.steady_seconds * DATA_PER_STEADY if noise.steady_seconds else 0.0)

        def cost(target: float) -> float:  # a sample's variance x its wall time: lower settles faster
            return (between2 + within2 * now / target) * (fixed + target)

        best = longest if between2 <= 0 else math.sqrt(within2 * now * fixed / between2)
        best = max(now, min(longest, best))
        gain = cost(best) / cost(now)
        if gain <= LENGTH_GAIN:
            seconds = round(best, 2)
            length = (f"length: {seconds:g} s samples (was {now:.2g} s): the noise within a connection "
                      f"averages away, and the {fixed:.2f} s each visit costs beside it is paid less often: "
                      f"{1 / gain:.1f}x the information per second")
        else:
            length = (f"length: {now:.2g} s kept (a longer sample would give at most {1 / gain:.2f}x the "
                      "information per second)")
    return Design(noise, seconds, paired, f"{length}; {pairing}", noise.samples)
