"""Compare runs case by case: how much faster or slower, how sure, and is it a regression.

The change is a speed ratio (B over A for throughput, A over B for
latency, so positive always means faster): the Hodges-Lehmann estimate on
the log scale, with its Moses interval, which is the interval the
Mann-Whitney test inverts: "significant" and "the interval excludes 0" are
the same statement. Comparing many cases at once, each test and interval is
Bonferroni-corrected over the cases compared (level 1 - 0.05/m), so "some
case changed" is not found by chance among forty. With few samples no
change can be detected at all (3 against 3 can reach p = 0.1 at best): such
cases say so instead of "no change". `normalize` divides each run by its
own reference (the raw TCP control, or a chosen cipher) so that different
machines can be compared by shape rather than raw speed.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from sshbench.analysis.stats.robust import mann_whitney_p, shift_interval, smallest_p
from sshbench.analysis.stats.stats import counted, headline_value
from sshbench.axes import DECLARED
from sshbench.results.model import Case, CaseKind, Report
from sshbench.vocabulary.errors import UsageError

SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class Change:
    case_id: str
    baseline: float  # median, in the case's unit (normalised when asked)
    other: float
    change: float  # +0.10 = 10% faster (Hodges-Lehmann estimate of the speed ratio, minus 1)
    low: float | None  # its interval at 1 - 0.05/compared (None: too few samples for one)
    high: float | None
    p_value: float  # Mann-Whitney, two-sided, uncorrected
    bigger_better: bool
    compared: int  # cases compared in this pair of runs (the Bonferroni factor)
    samples: tuple[int, int]
    detectable: bool  # whether these sample counts could show any change at all at the corrected level

    @property
    def p_adjusted(self) -> float:
        return min(1.0, self.p_value * self.compared)

    @property
    def significant(self) -> bool:
        return self.p_adjusted < SIGNIFICANCE

    def regression_beyond(self, threshold: float) -> bool:
        return self.significant and self.change < -threshold

    def why_regression(self, threshold: float) -> str:
        """One line on why --fail-above fired for this case."""
        interval = "" if self.low is None or self.high is None else f", interval {self.low:+.1%} .. {self.high:+.1%}"
        return (f"{self.case_id}: {-self.change:.1%} slower{interval}, p = {self.p_adjusted:.2g} after Bonferroni "
                f"over {self.compared} cases, beyond --fail-above {threshold:.0%}")


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


def _speed_logs(values: list[float], bigger_better: bool) -> list[float]:
    """Log speed per sample: log(rate), or -log(seconds) for latencies; larger is faster."""
    return [math.log(v) if bigger_better else -math.log(v) for v in values if v > 0]


def compare(baseline: Report, other: Report, normalize: str | None = None) -> list[Change]:
    """Every case measured in both runs, in the baseline's order."""
    other_ids = {s.case_id for s in other.summaries}
    pairs = []
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
        pairs.append((case_id, a, b, summary.throughput_bytes_per_second is not None))
    level = 1 - SIGNIFICANCE / max(1, len(pairs))
    changes = []
    for case_id, a, b, bigger_better in pairs:
        logs_a, logs_b = _speed_logs(a, bigger_better), _speed_logs(b, bigger_better)
        estimate, low, high = shift_interval(logs_b, logs_a, level) or (0.0, None, None)
        changes.append(Change(case_id, statistics.median(a), statistics.median(b), math.expm1(estimate),
                              None if low is None else math.expm1(low), None if high is None else math.expm1(high),
                              mann_whitney_p(logs_a, logs_b), bigger_better, len(pairs), (len(a), len(b)),
                              smallest_p(len(a), len(b)) * len(pairs) < SIGNIFICANCE))
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


@dataclass(frozen=True)
class RunComparison:
    """One run against its baseline, as `compare` shows it: what the two measured differently, and every case's
    change, or why none could be computed."""

    base_label: str
    label: str
    options: tuple[str, ...]  # options that change what is measured ("--no-aesni off vs on"): not a regression
    facts: tuple[str, ...]  # facts of the machines that differ ("CPU X vs Y"), which a comparison may be for
    changes: tuple[Change, ...]
    refused: str | None  # why these runs cannot be compared as asked (--normalize a reference one lacks)


def comparisons(files: list[tuple[str, list[Report]]], normalize: str | None) -> list[RunComparison]:
    """Every pair of runs `compare` shows (pair_runs), each concluded once for the table, the JSON and the verdict:
    a pair refused keeps its place, so the command says the first thing wrong in the order it was given."""
    out = []
    for (base_label, base), (label, run) in pair_runs(files):
        options, facts = measured_differently(base, run)
        try:
            changes, refused = tuple(compare(base, run, normalize)), None
        except ValueError as exc:
            changes, refused = (), str(exc)
        out.append(RunComparison(base_label, label, tuple(options), tuple(facts), changes, refused))
    return out


def measured_differently(base: Report, other: Report) -> tuple[list[str], list[str]]:
    """What two runs measured differently, beyond the machine's own noise: (options that change what is
    measured, such as --no-aesni, so that a slowdown between them is not a regression; facts of the machines,
    a CPU or an OpenSSH version, which a comparison may be for). Empty lists: alike."""
    one, two = base.options, other.options
    options = [(label, a, b) for label, a, b in (
        ("--no-aesni", one.no_aesni, two.no_aesni), ("--data", one.data, two.data),
        ("--placement", _placed(base), _placed(other)), ("--compression", one.compression, two.compression),
        ("--streams", one.streams, two.streams), ("--link", [x.label for x in one.links], [x.label for x in two.links]),
        ("--build", [x.text for x in one.builds], [x.text for x in two.builds]),
        *((axis.option, one.dim_values(axis.name), two.dim_values(axis.name)) for axis in DECLARED))
        if a != b]
    env_a, env_b = base.environment, other.environment
    facts = [(label, a, b) for label, a, b in (("CPU", env_a.host.cpu_model, env_b.host.cpu_model),
                                               ("ssh", env_a.client.version, env_b.client.version)) if a != b]
    return ([f"{label} {_shown(a)} vs {_shown(b)}" for label, a, b in options],
            [f"{label} {_shown(a)} vs {_shown(b)}" for label, a, b in facts])


def _placed(report: Report) -> str:
    """The placement a run measured in: what it recorded (--placement auto chooses during the run), else asked."""
    recorded = report.environment.host.placement
    if recorded:
        return "free" if recorded.startswith("free") else "split"
    return report.options.placement


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value) or "none"
    return str(value)
