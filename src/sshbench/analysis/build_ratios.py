"""Several SSH builds of one case side by side: how many times as fast each is as the first build given.

Each build's cases are ranked in tables of their own (one group per build);
what a user of --build asks is across them: "would HPN-SSH, or OpenSSH 10,
help me here?". For every case measured on more than one build (the same
kind, algorithm, direction, method and link), each build is compared with
the first one given (usually `stock`): the Hodges-Lehmann ratio of their
rates (or handshake times) and its 95% Moses interval over all their
samples, one stated comparison per cell, with the verdict it supports
(faster, slower, or not separable at 95%). Nothing is ranked here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from sshbench.analysis.robust import shift_interval
from sshbench.analysis.stats import counted, headline_value
from sshbench.analysis.verdicts import costs
from sshbench.analysis.views import builds_of
from sshbench.results.model import Case, Report, Summary
from sshbench.vocabulary.case_terms import Relation

LEVEL = 0.95


@dataclass(frozen=True)
class BuildCell:
    """One case on one build, and how it compares with the same case on the first build."""

    build: str
    summary: Summary
    ratio: float | None = None  # times as fast as the first build (None: this is the first, or no samples)
    low: float | None = None
    high: float | None = None
    relation: Relation | None = None  # DIFFERENT (the interval excludes 1) or UNSETTLED; None for the first


@dataclass(frozen=True)
class BuildRow:
    """One case (kind, algorithm, direction, method, link) across the builds that measured it."""

    case: Case  # with build ""
    cells: dict[str, BuildCell]


def build_rows(report: Report) -> list[BuildRow]:
    """Every case measured on at least one build, each build's cell compared with the first build's."""
    names = builds_of(report)
    if not names:
        return []
    views = report.joined()
    rows: dict[Case, dict[str, Summary]] = {}
    for summary in report.summaries:
        case = views[summary.case_id].case
        if case.build and (summary.throughput_bytes_per_second or summary.handshake_seconds):
            rows.setdefault(replace(case, build=""), {})[case.build] = summary
    out = []
    for case, by_build in rows.items():
        first = next((n for n in names if n in by_build), None)
        base = summary_logs(report, by_build[first]) if first else []
        cells = {}
        for name, summary in by_build.items():
            cells[name] = BuildCell(name, summary) if name == first else _compared(name, summary, report, base)
        out.append(BuildRow(case, cells))
    return out


def summary_logs(report: Report, summary: Summary) -> list[float]:
    """A case's counted samples as log costs (smaller is faster), what its ratios are taken over."""
    values = [v for s in counted(report.samples_of(summary.case_id)) if (v := headline_value(s))]
    return costs(values, summary.throughput_bytes_per_second is not None)


def stated_ratio(base: list[float], other: list[float]) -> tuple[float, float | None, float | None, Relation] | None:
    """How many times as fast `other` is as `base` (their log costs): the Hodges-Lehmann ratio, its 95% Moses
    interval and the verdict it supports (DIFFERENT where the interval excludes 1); None without samples."""
    found = shift_interval(base, other, LEVEL)  # log cost of the base minus the other's
    if found is None:
        return None
    estimate, low, high = found
    if low is None or high is None:
        return math.exp(estimate), None, None, Relation.UNSETTLED
    relation = Relation.DIFFERENT if low > 0 or high < 0 else Relation.UNSETTLED
    return math.exp(estimate), math.exp(low), math.exp(high), relation


def _compared(name: str, summary: Summary, report: Report, base: list[float]) -> BuildCell:
    found = stated_ratio(base, summary_logs(report, summary))  # > 1: this build is faster than the first
    return BuildCell(name, summary) if found is None else BuildCell(name, summary, *found)
