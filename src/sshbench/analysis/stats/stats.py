"""Pure statistics over samples: summaries with intervals, CPU cost, ranking, ties and outliers.

Only counted samples enter a summary: successful and not from the warm-up
round. The median is the headline figure because a shared machine produces
one-sided outliers (a sample can be slowed down by a neighbour, never sped
up), which drag the mean. Every median carries its 95% order-statistic
interval (see robust.py for why no normality is assumed); each neighbour
in a ranking is marked different, equivalent or not yet separable from the
one above it (verdicts.py).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence

from sshbench.analysis.stats.robust import median_interval, min_samples_for_interval, outliers, shift_interval
from sshbench.analysis.stats.verdicts import DecisionRule, Paired, PairVerdict, costs, verdicts
from sshbench.results.kinds import ReasonKind
from sshbench.results.model import CaseRecord, CaseStatus, Sample, Stat, Summary
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.units import GiB

CONFIDENCE = 0.95
MIN_FOR_INTERVAL = min_samples_for_interval(CONFIDENCE)  # fewer samples than this: a case has no interval
SET_ASIDE = "every sample set aside: "  # a failed case's reason when every sample it had was set aside


def describe(values: Sequence[float]) -> Stat | None:
    """Median with its 95% interval, mean, min, max, sample stdev and count; None for no values."""
    if not values:
        return None
    interval = median_interval(values, CONFIDENCE)
    mean = statistics.fmean(values)
    return Stat(
        median=statistics.median(values),
        mean=mean,
        min=min(values),
        max=max(values),
        stdev=_stdev(values, mean),
        count=len(values),
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
    )


def _stdev(values: Sequence[float], mean: float) -> float:
    """The sample standard deviation in floats: statistics.stdev is exact (fractions) and a run describes every
    case after every sample; a figure shown to three digits needs no exact arithmetic."""
    if len(values) < 2:
        return 0.0
    return math.sqrt(max(0.0, math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)))


def counted(samples: Sequence[Sample]) -> list[Sample]:
    """The samples a figure rests on: good ones after the warm-up, less those measure/physics.py set aside."""
    return [s for s in samples if s.ok and not s.warmup and s.unusable is None]


def _gib(per_byte: float | None) -> float | None:
    return None if per_byte is None else per_byte * GiB


def per_gib(cpu: float | None, sample: Sample) -> float | None:
    if cpu is None or not sample.bytes_received:
        return None
    return cpu / (sample.bytes_received / GiB)


def headline_value(sample: Sample) -> float | None:
    """The figure a sample contributes to its case's ranking: throughput, else a short command's time to its exit,
    else handshake time."""
    if sample.throughput_bytes_per_second is not None:
        return sample.throughput_bytes_per_second
    if sample.command_seconds is not None:
        return sample.command_seconds
    return sample.handshake_seconds


def _values(samples: Sequence[Sample], metric: Callable[[Sample], float | None]) -> list[float]:
    return [v for v in (metric(s) for s in samples) if v is not None]


def scaled(stat: Stat | None, factor: float) -> Stat | None:
    """The same statistic in other units (every field is linear in the data)."""
    if stat is None:
        return None
    return Stat(median=stat.median * factor, mean=stat.mean * factor, min=stat.min * factor,
                max=stat.max * factor, stdev=stat.stdev * factor, count=stat.count,
                ci_low=None if stat.ci_low is None else stat.ci_low * factor,
                ci_high=None if stat.ci_high is None else stat.ci_high * factor)


def summarize_case(record: CaseRecord, samples: Sequence[Sample], precision: float | None = None,
                   clock_hz: float | None = None) -> Summary:
    case = record.case
    good = counted(samples)
    flags = outliers(_values(good, headline_value))
    with_value = [s for s in good if headline_value(s) is not None]
    for sample in samples:
        sample.outlier = False
    for sample, flag in zip(with_value, flags, strict=True):
        sample.outlier = flag
    summary = Summary(
        case_id=case.id,
        group=case.group,
        samples_ok=len(good),
        samples_failed=sum(1 for s in samples if not s.ok and not s.warmup),
        setup_seconds=describe(_values(good, lambda s: s.setup_seconds)),
        command_seconds=describe(_values(good, lambda s: s.command_seconds)),
        handshake_seconds=describe(_values(good, lambda s: s.handshake_seconds)),
        kex_seconds=describe(_values(good, lambda s: s.kex_seconds)),
        outliers=sum(flags),
    )
    if case.moves_data:
        summary.throughput_bytes_per_second = describe(_values(good, lambda s: s.throughput_bytes_per_second))
        summary.end_to_end_bytes_per_second = describe(_values(good, lambda s: s.end_to_end_bytes_per_second))
        summary.overhead_seconds = describe(_values(good, lambda s: s.overhead_seconds))
        summary.fixed_seconds = describe(_values(good, lambda s: s.fixed_seconds))
        summary.client_cpu_seconds_per_gib = describe(_values(good, lambda s: _gib(s.client_cpu_per_byte)))
        summary.server_cpu_seconds_per_gib = describe(_values(good, lambda s: _gib(s.server_cpu_per_byte)))
        summary.cost_seconds_per_gib = describe(_values(good, lambda s: _gib(s.bottleneck_cpu_per_byte)))
        summary.link_cpu_seconds_per_gib = describe(_values(good, lambda s: _gib(s.link_cpu_per_byte)))
        if clock_hz:
            summary.client_cycles_per_byte = scaled(summary.client_cpu_seconds_per_gib, clock_hz / GiB)
            summary.server_cycles_per_byte = scaled(summary.server_cpu_seconds_per_gib, clock_hz / GiB)
    else:
        summary.client_cpu_seconds = describe(_values(good, lambda s: s.client_cpu_seconds))
        summary.server_cpu_seconds = describe(_values(good, lambda s: s.server_cpu_seconds))
        summary.cost_seconds = describe(_values(good, lambda s: s.cost))
    if precision is not None:
        stat = headline(summary)
        width = stat.relative_half_width if stat else None
        summary.precise = width is not None and width <= precision
    return summary


def headline(summary: Summary) -> Stat | None:
    """The statistic a case is ranked by."""
    return summary.throughput_bytes_per_second or summary.command_seconds or summary.handshake_seconds


def rank(summaries: list[Summary], values: dict[str, list[float]] | None = None,
         rule: DecisionRule | None = None, paired: Paired | None = None) -> None:
    """Set factor (1.0 = fastest; 4.6 = takes 4.6x as long), rank and verdicts within each group, in place."""
    groups: dict[str, list[Summary]] = defaultdict(list)
    for summary in summaries:
        stat = headline(summary)
        if stat is not None and stat.median > 0 and not summary.group.startswith(UNRANKED):
            groups[summary.group].append(summary)
    for members in groups.values():
        bigger_better = members[0].throughput_bytes_per_second is not None
        medians = {s.case_id: headline(s).median for s in members}  # type: ignore[union-attr]
        best = max(medians.values()) if bigger_better else min(medians.values())
        for summary in members:
            value = medians[summary.case_id]
            summary.factor = best / value if bigger_better else value / best
        ordered = sorted(members, key=lambda s: s.factor or 0.0)
        found: list[PairVerdict] = []
        if values is not None:
            table_rule = (rule or DecisionRule()).for_table(bigger_better)
            ordered, found = _settled_order(ordered, values, bigger_better, table_rule, paired)
        for position, summary in enumerate(ordered, start=1):
            summary.rank = position
            summary.relation, summary.tied_with_previous, summary.p_vs_previous = None, False, None
            summary.p_equivalent_vs_previous = summary.ratio_to_previous = None
            summary.ratio_low = summary.ratio_high = None
            summary.futile = False
        if values is not None:
            _factor_intervals(ordered, values, bigger_better)
        by_id = {s.case_id: s for s in ordered}
        for verdict in found:
            below = by_id[verdict.slower]
            below.relation = verdict.relation
            below.tied_with_previous = verdict.relation is not Relation.DIFFERENT
            below.p_vs_previous, below.p_equivalent_vs_previous = verdict.p_different, verdict.p_equivalent
            below.ratio_to_previous, below.ratio_low, below.ratio_high = (verdict.ratio, verdict.ratio_low,
                                                                          verdict.ratio_high)
            below.futile = verdict.futile


def _factor_intervals(ordered: list[Summary], values: dict[str, list[float]], bigger_better: bool) -> None:
    """Each case's factor against the first of its ranking as one stated comparison per row: the Hodges-Lehmann
    ratio of all their samples (log costs) with its 95% Moses interval."""
    top = costs(values.get(ordered[0].case_id, ()), bigger_better)
    for summary in ordered:
        summary.factor_estimate = summary.factor_low = summary.factor_high = None
        if summary is ordered[0]:
            continue
        found = shift_interval(costs(values.get(summary.case_id, ()), bigger_better), top, 0.95)
        if found is not None and found[1] is not None and found[2] is not None:
            summary.factor_estimate = math.exp(found[0])
            summary.factor_low, summary.factor_high = math.exp(found[1]), math.exp(found[2])


def _settled_order(ordered: list[Summary], values: dict[str, list[float]], bigger_better: bool, rule: DecisionRule,
                   paired: Paired | None) -> tuple[list[Summary], list[PairVerdict]]:
    """The ranking and its verdicts: by median, except where a pair's verdict says "different" the other way
    round (back-to-back ratios see through the drift that medians of samples taken at different times do not),
    then those two swap. Adjacent swaps on significant evidence only, at most one pass per case."""
    order = list(ordered)
    found = verdicts([s.case_id for s in order], values, bigger_better, rule, paired)
    for _ in range(len(order)):
        swapped = False
        i = 0
        while i < len(found):  # after a swap, the next pair's verdict was about the old order: next pass
            if found[i].relation is Relation.DIFFERENT and found[i].ratio < 1:
                order[i], order[i + 1] = order[i + 1], order[i]
                swapped = True
                i += 1
            i += 1
        if not swapped:
            break
        found = verdicts([s.case_id for s in order], values, bigger_better, rule, paired)
    return order, found


# Groups that are references, not contenders: shown, never ranked.
UNRANKED = ("control:", "ceiling:")


def summarize(records: Sequence[CaseRecord], samples: Sequence[Sample], precision: float | None = None,
              clock_hz: float | None = None, rule: DecisionRule | None = None) -> list[Summary]:
    """Summaries of every case that has any sample, ranked per group; updates case statuses."""
    by_case: dict[str, list[Sample]] = defaultdict(list)
    for sample in samples:
        by_case[sample.case_id].append(sample)
    summaries = []
    values: dict[str, list[float]] = {}
    for record in records:
        mine = by_case.get(record.case.id, [])
        if record.status is CaseStatus.SKIPPED or not mine:
            continue
        summary = summarize_case(record, mine, precision, clock_hz)
        values[record.case.id] = _values(counted(mine), headline_value)
        if summary.samples_ok:
            record.status = CaseStatus.MEASURED
            if record.reason_kind is ReasonKind.SET_ASIDE:  # said while it had none; a later sample counted
                record.set_reason(None)
        elif any(not s.warmup for s in mine):
            record.status = CaseStatus.FAILED
            if not record.reason:
                _failed(record, mine)
        summaries.append(summary)
    rank(summaries, values, rule, paired_ratios(samples))
    rank_costs(summaries, {case_id: _values(counted(mine), lambda s: s.cost) for case_id, mine in by_case.items()},
               rule, paired_ratios(samples, lambda s: s.cost))
    return summaries


def _failed(record: CaseRecord, mine: Sequence[Sample]) -> None:
    """A failed case's reason: its first sample's error, else the last set-aside one's reason, set aside."""
    error = next((s.error for s in mine if s.error), None)
    aside = next((s.unusable for s in reversed(mine) if s.unusable), None)
    if error is None and aside is not None:
        record.set_reason(f"{SET_ASIDE}{aside}", ReasonKind.SET_ASIDE)
    else:
        record.set_reason(error or "no successful sample")


def cost_of(summary: Summary) -> Stat | None:
    """The figure of a case's cost ranking: CPU per GiB (transfers) or per connection (set-up), busier side."""
    return summary.cost_seconds_per_gib or summary.cost_seconds


def rank_costs(summaries: list[Summary], values: dict[str, list[float]], rule: DecisionRule | None,
               paired: Paired | None) -> None:
    """The cost ranking of every group, in place: the least CPU on the busier side first (per byte, or per
    connection), with the same verdicts, tests and corrections as the speed ranking (a lower cost is better)."""
    groups: dict[str, list[Summary]] = defaultdict(list)
    for summary in summaries:
        summary.cost_rank = summary.cost_relation = summary.cost_ratio = None
        summary.cost_ratio_low = summary.cost_ratio_high = None
        cost = cost_of(summary)
        if cost is not None and cost.median > 0 and not summary.group.startswith(UNRANKED):
            groups[summary.group].append(summary)
    for members in groups.values():
        ordered = sorted(members, key=lambda s: cost_of(s).median)  # type: ignore[union-attr]
        table_rule = (rule or DecisionRule()).for_table(members[0].cost_seconds_per_gib is not None)
        ordered, found = _settled_order(ordered, values, False, table_rule, paired)
        for position, summary in enumerate(ordered, start=1):
            summary.cost_rank = position
        by_id = {s.case_id: s for s in ordered}
        for verdict in found:
            dearer = by_id[verdict.slower]
            dearer.cost_relation, dearer.cost_ratio = verdict.relation, verdict.ratio
            dearer.cost_ratio_low, dearer.cost_ratio_high = verdict.ratio_low, verdict.ratio_high


def paired_ratios(samples: Sequence[Sample],
                  value: Callable[[Sample], float | None] | None = None) -> dict[tuple[str, str], list[float]]:
    """(case, case) -> log(value of the first / value of the second) for every two samples of one back-to-back
    pass (Sample.chain: a pass over a table or over a run of unsettled neighbours, seconds long, each case once),
    the first case being the one whose id sorts first (decide.paired_costs orients them). Samples of one pass
    share the machine's slow drift; a failed sample only leaves its own pairs out."""
    runs: dict[int, list[Sample]] = defaultdict(list)
    for sample in samples:
        if sample.chain is not None and not sample.warmup and sample.ok:
            runs[sample.chain].append(sample)
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    figure = value or headline_value
    for members in runs.values():
        logs = []  # each sample's figure once, not once per pair
        for sample in members:
            found = figure(sample)
            if found and found > 0:
                logs.append((sample.case_id, math.log(found)))
        for (one, a), (two, b) in itertools.combinations(sorted(logs, key=lambda pair: pair[0]), 2):
            if one != two:
                out[(one, two)].append(a - b)
    return dict(out)
