"""Several SSH builds of one case side by side: how many times as fast each is as the first build given.

Each build's cases are ranked in tables of their own (one group per build);
what a user of --build asks is across them: "would HPN-SSH, or OpenSSH 10,
help me here?". For every case measured on more than one build (the same
kind, algorithm, direction, method and link), each build is compared with
the first one given (usually `stock`): the cross pair the schedule funded,
stated as every "X vs Y" is (analysis/comparisons/stated.py: the Hodges-Lehmann ratio
of their rates or handshake times, its interval at the level of the test
that decided the pair's verdict under the run's rule), with that verdict
(faster, slower, equivalent or not yet separable). Nothing is ranked here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sshbench.analysis.comparisons.stated import Statements
from sshbench.results.model import Case, Report, Summary
from sshbench.results.views import builds_of
from sshbench.vocabulary.case_terms import Relation


@dataclass(frozen=True)
class BuildCell:
    """One case on one build, and how it compares with the same case on the first build."""

    build: str
    summary: Summary
    ratio: float | None = None  # times as fast as the first build (None: this is the first, or no samples)
    low: float | None = None
    high: float | None = None
    relation: Relation | None = None  # the pair's verdict (analysis/comparisons/stated.py); None for the first


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
    statements = Statements(report)
    rows: dict[Case, dict[str, Summary]] = {}
    for summary in report.summaries:
        case = views[summary.case_id].case
        if case.build and (summary.throughput_bytes_per_second or summary.handshake_seconds):
            rows.setdefault(replace(case, build=""), {})[case.build] = summary
    out = []
    for case, by_build in rows.items():
        first = next((n for n in names if n in by_build), None)
        cells = {}
        for name, summary in by_build.items():
            cells[name] = BuildCell(name, summary) if name == first or first is None else \
                _compared(name, summary, by_build[first], statements)
        out.append(BuildRow(case, cells))
    return out


def _compared(name: str, summary: Summary, first: Summary, statements: Statements) -> BuildCell:
    """The cell against the first build's: > 1, this build is faster."""
    found = statements.of(first.case_id, summary.case_id, summary.throughput_bytes_per_second is not None)
    if found is None:
        return BuildCell(name, summary)
    return BuildCell(name, summary, found.ratio, found.low, found.high, found.relation)
