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

from sshbench.analysis.robust import mann_whitney_p
from sshbench.analysis.stats import counted, headline_value
from sshbench.errors import UsageError
from sshbench.results.model import Case, CaseKind, Report

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
    if normalize == "tcp" and not any(r.case.kind is CaseKind.CONTROL for r in report.cases):
        # a real host has no loopback control; its raw TCP figure is iperf3's, when that ran
        iperf = report.environment.server.iperf
        figure = iperf.rate(case.direction.value) if iperf else None
        if not figure:
            raise ValueError("cannot normalise by tcp: a run has neither the raw TCP control nor an iperf3 figure "
                             f"for {case.direction.value}; normalise by a cipher instead")
        return float(figure)
    ref_id = "control:raw-tcp:upload" if normalize == "tcp" else \
        Case(CaseKind.CIPHER, case.direction, cipher=normalize, method=case.method).id
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


Labelled = tuple[str, Report]


def pair_runs(files: list[tuple[str, list[Report]]]) -> list[tuple[Labelled, Labelled]]:
    """Pairs of (label, run) to compare, baseline first; runs are named by file, and host in multi-host files.

    One multi-host file: its hosts against the first. Several files with the
    same hosts: host by host, each against the first file's. Otherwise every
    run against the first file's first run.
    """
    labelled = [(path if len(runs) == 1 else f"{path} [{r.label}]", r) for path, runs in files for r in runs]
    if len(labelled) < 2:
        raise UsageError("compare needs at least two runs: two results files, or one file with several hosts")
    hosts = [[r.label for r in runs] for _, runs in files]
    if len(files) > 1 and len(hosts[0]) > 1 and all(h == hosts[0] for h in hosts):
        per_host = len(hosts[0])
        return [(labelled[i % per_host], labelled[i]) for i in range(per_host, len(labelled))]
    return [(labelled[0], other) for other in labelled[1:]]
