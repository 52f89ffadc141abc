"""What a run spent: its wall time by phase, and the bytes it sent over the network (the --max-bytes cap)."""

from __future__ import annotations

from sshbench.results.model import CaseKind, Report, TimeUse


def time_use(report: Report, wall: float) -> TimeUse:
    """Where the wall time went, from the samples' own phase times."""
    throughput = (CaseKind.CIPHER, CaseKind.MAC)
    kinds = {r.case.id: r.case.kind for r in report.cases}
    samples = [(s, kinds.get(s.case_id)) for s in report.samples if s.total_seconds is not None]
    return TimeUse(
        wall_seconds=wall,
        sample_seconds=sum(s.total_seconds or 0.0 for s, _ in samples),
        data_seconds=sum(s.data_seconds or 0.0 for s, _ in samples),
        throughput_sample_seconds=sum(s.total_seconds or 0.0 for s, kind in samples if kind in throughput),
        throughput_data_seconds=sum(s.data_seconds or 0.0 for s, kind in samples if kind in throughput and s.ok),
    )


def bytes_moved(report: Report) -> int:
    """Bytes sent over the network so far (local ceilings move none)."""
    local = {r.case.id for r in report.cases if r.case.kind is CaseKind.CEILING}
    return sum(s.bytes_received or s.size_bytes for s in report.samples if s.case_id not in local)
