"""What a run measured beside SSH, and its pipe figures per cipher: looked up in one place for every reader.

Tables, link verdicts, charts and the fleet view all compare SSH with the
same references (raw TCP along the same path, each cipher's crypto
ceiling) and read the same per-cipher pipe summaries.
"""

from __future__ import annotations

from sshbench.kinds import CaseKind
from sshbench.results.model import Report, Stat, Summary


def raw_tcp(report: Report) -> dict[str, Stat]:
    """The raw TCP control's throughput per link ("" for loopback)."""
    out = {}
    views = report.joined()
    for summary in report.summaries:
        case = views[summary.case_id].case
        if case.kind is CaseKind.CONTROL and summary.throughput_bytes_per_second:
            out[case.link] = summary.throughput_bytes_per_second
    return out


def ceilings(report: Report) -> dict[str, Stat]:
    """Each cipher's crypto ceiling (openssl speed) measured in the run."""
    out = {}
    views = report.joined()
    for summary in report.summaries:
        case = views[summary.case_id].case
        if case.kind is CaseKind.CEILING and case.cipher and summary.throughput_bytes_per_second:
            out[case.cipher] = summary.throughput_bytes_per_second
    return out


def pipe_ciphers(report: Report, direction: str) -> dict[str, Summary]:
    """Cipher -> the summary of its pipe case in one direction, loopback or real host (no emulated link), one
    connection without compression."""
    out = {}
    views = report.joined()
    for summary in report.summaries:
        case = views[summary.case_id].case
        if (case.kind is CaseKind.CIPHER and case.is_pipe and not case.link and case.direction.value == direction
                and case.cipher and case.plain):
            out[case.cipher] = summary
    return out
