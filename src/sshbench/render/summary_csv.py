"""One row per case, for spreadsheets: the figures each table shows, as plain numbers in base units.

The samples CSV beside every results file holds each measurement; this is
its summary (medians, the 95% interval's ends, rank and ties, CPU per GiB),
one row per case and host, so nobody recomputes statistics by hand.
"""

from __future__ import annotations

import csv
import io

from sshbench.results.model import Report, Stat

COLUMNS = ("host", "case_id", "kind", "subject", "direction", "method", "samples_ok", "samples_failed", "rank",
           "tied_with_previous", "factor", "throughput_bytes_per_second", "throughput_ci_low", "throughput_ci_high",
           "end_to_end_bytes_per_second", "handshake_seconds", "handshake_ci_low", "handshake_ci_high",
           "client_cpu_seconds_per_gib", "server_cpu_seconds_per_gib", "precise", "status")


def _ends(stat: Stat | None) -> tuple[float | None, float | None, float | None]:
    return (None, None, None) if stat is None else (stat.median, stat.ci_low, stat.ci_high)


def render(runs: list[Report]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for report in runs:
        views = report.joined()
        for summary in report.summaries:
            record = views[summary.case_id].record
            case = record.case
            tput, handshake = _ends(summary.throughput_bytes_per_second), _ends(summary.handshake_seconds)
            writer.writerow([
                report.label, case.id, case.kind.value, case.subject, case.direction.value, case.method,
                summary.samples_ok, summary.samples_failed, summary.rank, summary.tied_with_previous, summary.factor,
                *tput, _ends(summary.end_to_end_bytes_per_second)[0], *handshake,
                _ends(summary.client_cpu_seconds_per_gib)[0], _ends(summary.server_cpu_seconds_per_gib)[0],
                summary.precise, record.status.value])
    return buffer.getvalue()
