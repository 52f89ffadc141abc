"""What a run measured beside SSH, and its pipe figures per cipher: looked up in one place for every reader.

Tables, link verdicts, charts and the fleet view all compare SSH with the
same references (raw TCP along the same path, each cipher's crypto
ceiling) and read the same per-cipher pipe summaries. Which reference is
reliable enough to compare with is a verdict: `judged` makes it once per
report, into the References a report's Findings hold, so the efficiency
columns, the links overview, the link charts and the problems list lay out
one judgement instead of each making its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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


@dataclass(frozen=True)
class References:
    """A report's references as judged once (analysis/conclude.py): what the outputs compare SSH with."""

    raw_tcp: Mapping[str, Stat]  # link ("" for loopback) -> the raw TCP control's throughput, where it is reliable
    measured_tcp: Mapping[str, tuple[Stat, bool]]  # link -> every raw TCP control's, and whether it is reliable
    ceilings: Mapping[str, Stat]  # cipher -> its crypto ceiling (openssl speed), where it is reliable
    unreliable: tuple[tuple[Case, Stat], ...]  # the references too noisy to compare with, in the summaries' order


def judged(report: Report) -> References:
    """Every reference of a report with its verdict (reliable or not), each looked up as raw_tcp, ceilings and
    unreliable do; views of the report (one link's, side's or variant's) keep every reference of their cases, so
    the whole report's serve every table drawn per view."""
    return References(raw_tcp(report), {link: (stat, reliable(stat)) for link, stat in
                                        raw_tcp(report, reliable_only=False).items()},
                      ceilings(report), tuple(unreliable(report)))


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
