"""What a run measured beside SSH, and its pipe figures per cipher: looked up in one place for every reader.

Tables, link verdicts, charts and the fleet view all compare SSH with the
same references (raw TCP along the same path, each cipher's crypto
ceiling) and read the same per-cipher pipe summaries.
"""

from __future__ import annotations

from sshbench.results.model import Case, Report, Stat, Summary
from sshbench.vocabulary.case_terms import CaseKind

# A reference is worth comparing SSH with only when it is known this well: its median's 95% interval within
# +-RELIABLE (or, with too few samples for one, every sample within +-STEADY of the median). The raw TCP control
# on a noisy 2-vCPU EPYC VM read 1,325 +-1,456 MB/s (+-110%, n=6): a figure that says nothing.
RELIABLE = 0.25
STEADY = 0.05


def reliable(stat: Stat) -> bool:
    """Whether a reference's figure may be compared with (module comment)."""
    width = stat.relative_half_width
    if width is not None:
        return width <= RELIABLE
    return stat.median > 0 and max(stat.median - stat.min, stat.max - stat.median) <= STEADY * stat.median


def references(report: Report) -> list[tuple[Case, Stat]]:
    """Every reference measured (the raw TCP control per link, each crypto ceiling), reliable or not."""
    views = report.joined()
    return [(views[s.case_id].case, s.throughput_bytes_per_second) for s in report.summaries
            if views[s.case_id].case.kind in (CaseKind.CONTROL, CaseKind.CEILING) and s.throughput_bytes_per_second]


def raw_tcp(report: Report, reliable_only: bool = True) -> dict[str, Stat]:
    """The raw TCP control's throughput per link ("" for loopback): only where it is reliable, unless asked."""
    return {case.link: stat for case, stat in references(report)
            if case.kind is CaseKind.CONTROL and (reliable(stat) or not reliable_only)}


def ceilings(report: Report) -> dict[str, Stat]:
    """Each cipher's crypto ceiling (openssl speed) measured in the run, where it is reliable."""
    return {case.cipher: stat for case, stat in references(report)
            if case.kind is CaseKind.CEILING and case.cipher and reliable(stat)}


def unreliable(report: Report) -> list[tuple[Case, Stat]]:
    """The references too noisy to compare with: shown as such, never used for a ratio or a verdict."""
    return [(case, stat) for case, stat in references(report) if not reliable(stat)]


def pipe_ciphers(report: Report, direction: str, dims: tuple[tuple[str, str], ...] = ()) -> dict[str, Summary]:
    """Cipher -> the summary of its pipe case in one direction, loopback or real host (no emulated link), one
    connection without compression; `dims`: at those declared-axis values (Case.dims: a --client's cases), else
    every axis at its plain value."""
    out = {}
    views = report.joined()
    for summary in report.summaries:
        case = views[summary.case_id].case
        if (case.kind is CaseKind.CIPHER and case.is_pipe and not case.link and case.direction.value == direction
                and case.cipher and case.streams == 1 and case.compressor.is_off and case.dims == dims):
            out[case.cipher] = summary
    return out
