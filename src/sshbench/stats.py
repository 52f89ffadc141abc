"""Pure statistics over samples: summaries, per-GiB CPU cost, ranking factors.

Only counted samples enter a summary: successful and not from the warm-up
round. The median is the headline figure because a shared machine produces
one-sided outliers (a sample can be slowed down by a neighbour, never sped
up), which drag the mean.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from sshbench.model import CaseRecord, CaseStatus, Sample, Stat, Summary
from sshbench.units import GiB


def describe(values: Sequence[float]) -> Stat | None:
    """Median, mean, min, max, sample stdev and count; None for no values."""
    if not values:
        return None
    return Stat(
        median=statistics.median(values),
        mean=statistics.fmean(values),
        min=min(values),
        max=max(values),
        stdev=statistics.stdev(values) if len(values) > 1 else 0.0,
        count=len(values),
    )


def counted(samples: Iterable[Sample]) -> list[Sample]:
    return [s for s in samples if s.ok and not s.warmup]


def _per_gib(cpu: float | None, sample: Sample) -> float | None:
    if cpu is None or not sample.bytes_received:
        return None
    return cpu / (sample.bytes_received / GiB)


def _collect(samples: Sequence[Sample], metric: Callable[[Sample], float | None]) -> Stat | None:
    return describe([v for v in (metric(s) for s in samples) if v is not None])


def summarize_case(record: CaseRecord, samples: Sequence[Sample]) -> Summary:
    case = record.case
    good = counted(samples)
    summary = Summary(
        case_id=case.id,
        group=case.group,
        samples_ok=len(good),
        samples_failed=sum(1 for s in samples if not s.ok and not s.warmup),
        setup_seconds=_collect(good, lambda s: s.setup_seconds),
        handshake_seconds=_collect(good, lambda s: s.handshake_seconds),
        kex_seconds=_collect(good, lambda s: s.kex_seconds),
    )
    if case.moves_data:
        summary.throughput_bytes_per_second = _collect(good, lambda s: s.throughput_bytes_per_second)
        summary.client_cpu_seconds_per_gib = _collect(good, lambda s: _per_gib(s.client_cpu_data_seconds, s))
        summary.server_cpu_seconds_per_gib = _collect(good, lambda s: _per_gib(s.server_cpu_data_seconds, s))
    else:
        summary.client_cpu_seconds = _collect(good, lambda s: s.client_cpu_seconds)
        summary.server_cpu_seconds = _collect(good, lambda s: s.server_cpu_seconds)
    return summary


def headline(summary: Summary) -> tuple[float, bool] | None:
    """The figure a case is ranked by, and whether bigger is better."""
    if summary.throughput_bytes_per_second is not None:
        return summary.throughput_bytes_per_second.median, True
    if summary.handshake_seconds is not None:
        return summary.handshake_seconds.median, False
    return None


def rank(summaries: list[Summary]) -> None:
    """Set factor (1.0 = fastest; 4.6 = takes 4.6x as long) and rank within each group, in place."""
    groups: dict[str, list[tuple[Summary, float, bool]]] = defaultdict(list)
    for summary in summaries:
        figure = headline(summary)
        if figure is not None and figure[0] > 0:
            groups[summary.group].append((summary, *figure))
    for members in groups.values():
        bigger_better = members[0][2]
        best = max(m[1] for m in members) if bigger_better else min(m[1] for m in members)
        for summary, value, _ in members:
            summary.factor = best / value if bigger_better else value / best
        for position, (summary, _, _) in enumerate(sorted(members, key=lambda m: m[0].factor or 0.0), start=1):
            summary.rank = position


def summarize(records: Sequence[CaseRecord], samples: Sequence[Sample]) -> list[Summary]:
    """Summaries of every case that has any sample, ranked per group; updates case statuses."""
    by_case: dict[str, list[Sample]] = defaultdict(list)
    for sample in samples:
        by_case[sample.case_id].append(sample)
    summaries = []
    for record in records:
        mine = by_case.get(record.case.id, [])
        if record.status is CaseStatus.SKIPPED or not mine:
            continue
        summary = summarize_case(record, mine)
        if summary.samples_ok:
            record.status = CaseStatus.MEASURED
        elif any(not s.warmup for s in mine):
            record.status = CaseStatus.FAILED
            record.reason = record.reason or next((s.error for s in mine if s.error), "no successful sample")
        summaries.append(summary)
    rank(summaries)
    return summaries
