"""Compare runs case by case: how much faster or slower, how sure, and is it a regression.

The change is the ratio of medians (B over A for throughput, A over B for
latency, so positive always means faster), with a 95% percentile-bootstrap
interval (2,000 resamples, fixed seed: the same files always give the same
answer) and a Mann-Whitney U test for significance. `normalize` divides each
run by its own reference (the raw TCP control, or a chosen cipher) so that
different machines can be compared by shape rather than raw speed.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from sshbench.algorithms import Kind
from sshbench.environment import iperf_rate
from sshbench.model import Case, Report
from sshbench.robust import mann_whitney_p
from sshbench.stats import counted, headline_value

BOOTSTRAP = 2000
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class Change:
    case_id: str
    baseline: float  # median, in the case's unit (normalised when asked)
    other: float
    change: float  # +0.10 = 10% faster
    low: float  # 95% interval of the change
    high: float
    p_value: float
    bigger_better: bool

    @property
    def significant(self) -> bool:
        return self.p_value < SIGNIFICANCE

    def regression_beyond(self, threshold: float) -> bool:
        return self.significant and self.change < -threshold


def _values(report: Report, case_id: str) -> list[float]:
    return [v for v in (headline_value(s) for s in counted(report.samples_of(case_id))) if v is not None]


NORMALIZED = ("cipher:", "mac:", "control:")  # throughput cases; set-up times and ceilings stay as measured


def reference(report: Report, normalize: str | None, case_id: str) -> float | None:
    """The divisor for one case when normalising: None leaves values as they are."""
    if normalize is None or not case_id.startswith(NORMALIZED):
        return None
    case = report.case(case_id).case  # the reference moves the same way: same direction and method
    if normalize == "tcp" and not any(r.case.kind is Kind.CONTROL for r in report.cases):
        # a real host has no loopback control; its raw TCP figure is iperf3's, when that ran
        figure = iperf_rate(report.environment.get("server", {}), case.direction.value)
        if not figure:
            raise ValueError("cannot normalise by tcp: a run has neither the raw TCP control nor an iperf3 figure "
                             f"for {case.direction.value}; normalise by a cipher instead")
        return float(figure)
    ref_id = "control:raw-tcp:upload" if normalize == "tcp" else \
        Case(Kind.CIPHER, case.direction, cipher=normalize, method=case.method).id
    values = _values(report, ref_id)
    if not values:
        raise ValueError(f"cannot normalise by {normalize}: {ref_id} was not measured in every run")
    return statistics.median(values)


def _speed_ratio(a: list[float], b: list[float], bigger_better: bool) -> float:
    ratio = statistics.median(b) / statistics.median(a)
    return ratio - 1 if bigger_better else 1 / ratio - 1


def compare(baseline: Report, other: Report, normalize: str | None = None, seed: int = 1) -> list[Change]:
    """Every case measured in both runs, in the baseline's order."""
    rng = random.Random(seed)
    other_ids = {s.case_id for s in other.summaries}
    changes = []
    for summary in baseline.summaries:
        case_id = summary.case_id
        if case_id not in other_ids:
            continue
        a, b = _values(baseline, case_id), _values(other, case_id)
        if not a or not b:
            continue
        ref_a, ref_b = reference(baseline, normalize, case_id), reference(other, normalize, case_id)
        if ref_a and ref_b:
            a, b = [v / ref_a for v in a], [v / ref_b for v in b]
        bigger_better = summary.throughput_bytes_per_second is not None
        boot = sorted(_speed_ratio([rng.choice(a) for _ in a], [rng.choice(b) for _ in b], bigger_better)
                      for _ in range(BOOTSTRAP))
        changes.append(Change(case_id, statistics.median(a), statistics.median(b), _speed_ratio(a, b, bigger_better),
                              boot[int(0.025 * BOOTSTRAP)], boot[int(0.975 * BOOTSTRAP) - 1],
                              mann_whitney_p(a, b), bigger_better))
    return changes
