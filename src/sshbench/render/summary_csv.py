"""One row per case, for spreadsheets: the figures each table shows, as plain numbers in base units.

The samples CSV beside every results file holds each measurement; this is
its summary (medians, the 95% interval's ends, rank and verdicts, CPU per GiB,
the cost ranking: the busier side's CPU per GiB or per connection),
one row per case and host, so nobody recomputes statistics by hand.
"""

from __future__ import annotations

import csv
import io

from sshbench.results.model import Report, Stat

COLUMNS = ("host", "case_id", "kind", "subject", "direction", "method", "samples_ok", "samples_failed", "rank",
           "tied_with_previous", "relation", "factor", "factor_low", "factor_high", "throughput_bytes_per_second",
           "throughput_ci_low", "throughput_ci_high", "end_to_end_bytes_per_second", "fixed_seconds",
           "handshake_seconds", "handshake_ci_low", "handshake_ci_high", "client_cpu_seconds_per_gib",
           "server_cpu_seconds_per_gib", "cost", "cost_ci_low", "cost_ci_high", "cost_rank", "cost_relation",
           "precise", "status")


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
                summary.samples_ok, summary.samples_failed, summary.rank, summary.tied_with_previous,
                summary.relation and summary.relation.value, summary.factor, summary.factor_low,
                summary.factor_high, *tput, _ends(summary.end_to_end_bytes_per_second)[0],
                _ends(summary.fixed_seconds)[0], *handshake, _ends(summary.client_cpu_seconds_per_gib)[0],
                _ends(summary.server_cpu_seconds_per_gib)[0],
                *_ends(summary.cost_seconds_per_gib or summary.cost_seconds), summary.cost_rank,
                summary.cost_relation and summary.cost_relation.value, summary.precise, record.status.value])
    return buffer.getvalue()
