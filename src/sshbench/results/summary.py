"""A case's summary: its statistics, its place in both rankings and its verdicts against its neighbours.

analysis/stats/stats.py computes them from the samples after every round; the
results file keeps them, so every output renders from the file alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.vocabulary.case_terms import Relation


@dataclass(frozen=True)
class Stat:
    """Summary statistics of one metric over the counted samples of a case."""

    median: float
    mean: float
    min: float
    max: float
    stdev: float  # sample standard deviation (n-1); 0 for a single value
    count: int
    # 95% order-statistic confidence interval of the median (None below 6 samples)
    ci_low: float | None = None
    ci_high: float | None = None

    @property
    def half_width(self) -> float | None:
        """The larger distance from the median to an end of its interval."""
        if self.ci_low is None or self.ci_high is None:
            return None
        return max(self.median - self.ci_low, self.ci_high - self.median)

    @property
    def relative_half_width(self) -> float | None:
        hw = self.half_width
        return None if hw is None or not self.median else hw / abs(self.median)


@dataclass
class Summary:
    case_id: str
    group: str
    samples_ok: int
    samples_failed: int
    throughput_bytes_per_second: Stat | None = None  # the per-byte rate: steady state (Sample.steady_*)
    fixed_seconds: Stat | None = None  # the data phase beyond its bytes at the steady rate: a per-connection cost
    end_to_end_bytes_per_second: Stat | None = None  # what the user waits for: start-up and handshake included
    overhead_seconds: Stat | None = None  # file methods: the same tool moving a 1-byte file
    setup_seconds: Stat | None = None  # ssh started -> remote command running
    handshake_seconds: Stat | None = None  # banner sent -> session open (ranks set-up cases)
    command_seconds: Stat | None = None  # a short command's ssh started -> exited (ranks command cases)
    kex_seconds: Stat | None = None
    client_cpu_seconds_per_gib: Stat | None = None
    server_cpu_seconds_per_gib: Stat | None = None
    # The busier side's CPU seconds per GiB, sample by sample: what this cipher costs where it is dearest
    cost_seconds_per_gib: Stat | None = None
    # Set-up cases: the busier side's CPU seconds per connection (what a busy server or client pays per login)
    cost_seconds: Stat | None = None
    link_cpu_seconds_per_gib: Stat | None = None  # the emulated link's wire process, per GiB moved (--link)
    client_cycles_per_byte: Stat | None = None  # CPU s/GiB at the recorded clock (where it is known)
    server_cycles_per_byte: Stat | None = None
    client_cpu_seconds: Stat | None = None  # per connection (set-up cases)
    server_cpu_seconds: Stat | None = None
    factor: float | None = None  # 1.0 = fastest of its group; 4.6 = takes 4.6x as long
    # The same as one stated comparison with the fastest: Hodges-Lehmann ratio and its 95% (Moses) interval
    factor_estimate: float | None = None
    factor_low: float | None = None
    factor_high: float | None = None
    rank: int | None = None
    outliers: int = 0  # counted samples flagged by modified z-score (kept, not dropped)
    precise: bool | None = None  # headline interval within the precision target (None: no target)
    # Against the case ranked just above (analysis/stats/verdicts.py): different, equivalent within the tie margin,
    # or not yet separable; None for the first of a group and for unranked cases
    relation: Relation | None = None
    tied_with_previous: bool = False  # relation is not "different" (kept for readers of schema 3 and 4)
    p_vs_previous: float | None = None  # two-sided Mann-Whitney p, uncorrected
    p_equivalent_vs_previous: float | None = None  # two one-sided tests against the margin, uncorrected
    # How many times as long this case takes as the one above (Hodges-Lehmann), with the interval that
    # matches the equivalence test (None when too few samples give one)
    ratio_to_previous: float | None = None
    ratio_low: float | None = None
    ratio_high: float | None = None
    # Unsettled, and would stay so at max_runs even on an optimistic projection: no more samples spent on it
    futile: bool = False
    # The cost ranking (throughput cases): by cost_seconds_per_gib, cheapest first, with its own verdicts against
    # the next cheaper case (the same tests and corrections as the speed ranking)
    cost_rank: int | None = None
    cost_relation: Relation | None = None
    cost_ratio: float | None = None  # how many times the next cheaper case's CPU per byte this one costs
    cost_ratio_low: float | None = None  # its interval, as ratio_low/ratio_high
    cost_ratio_high: float | None = None
