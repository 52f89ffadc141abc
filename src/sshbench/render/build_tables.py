"""Several sides side by side (SSH builds, --build, or servers, --server a,b): per direction, each case's figure
on every side, and how many times as fast each side is as the first one given, with its interval
(analysis/answers/build_ratios.py)."""

from __future__ import annotations

from sshbench.analysis.findings import BuildCell, BuildRow, Findings
from sshbench.render.labels import RATIOS, flagged_name, ms, pm
from sshbench.render.matrix import method_label
from sshbench.render.table_model import Cell, Column, Row, Span, Style, Table, cell
from sshbench.results.model import CaseKind
from sshbench.results.views import builds_of, side_word
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.case_terms import Relation

ORDER = ((CaseKind.CIPHER, "upload"), (CaseKind.CIPHER, "download"), (CaseKind.MAC, "upload"),
         (CaseKind.KEX, "setup"), (CaseKind.HOSTKEY, "setup"))
TITLE = {CaseKind.CIPHER: "Ciphers", CaseKind.MAC: "MACs", CaseKind.KEX: "Key exchanges",
         CaseKind.HOSTKEY: "Host key algorithms"}


def _figure(cell_: BuildCell) -> str:
    summary = cell_.summary
    if summary.throughput_bytes_per_second is not None:
        return pm(summary.throughput_bytes_per_second, 1e6)
    handshake = summary.handshake_seconds
    return f"{ms(handshake.median)} ms" if handshake else "-"


def _cell(row: BuildRow, name: str) -> Cell:
    found = row.cells.get(name)
    if found is None:
        return cell("-", "dim")
    spans = [Span(_figure(found), "strong")]
    if found.ratio is not None:
        interval = f" [{found.low:.2f}-{found.high:.2f}]" if found.low and found.high else ""
        style: Style = "good" if found.relation is Relation.DIFFERENT and found.ratio > 1 else \
            "bad" if found.relation is Relation.DIFFERENT else "dim"
        spans.append(Span(f"\n{found.ratio:.2f}x{interval}", style))
    return tuple(spans)


def build_tables(found: Findings, link: str = "") -> list[Table]:
    """One table per kind and direction measured on two builds or more: a row per case, a column per build
    (the cases of `link` only; render/links.py names the link in the titles of its tables). Each ratio is the
    run's (Findings.builds: its cross pair judged within the run's whole family, as the schedule judged it)."""
    report = found.report
    names = builds_of(report)
    if len(names) < 2:
        return []
    rows = [r for r in found.builds if r.case.link == link and len(r.cells) > 1]
    tables = []
    for kind, direction in ORDER:
        mine = [r for r in rows if r.case.kind is kind and r.case.direction.value == direction]
        if not mine:
            continue
        methods = {r.case.method for r in mine}
        cells = tuple(Row(((cell(method_label(r.case.method)),) if len(methods) > 1 else ()) +
                          (cell(flagged_name(r.case.subject, Kind(kind.value))),
                           *(_cell(r, name) for name in names))) for r in mine)
        columns = (*((Column("method"),) if len(methods) > 1 else ()), Column(kind.value, code=True),
                   *(Column(name, numeric=True) for name in names))
        what = "MB/s" if direction != "setup" else "handshake ms"
        side = side_word(report)
        tables.append(Table(f"{TITLE[kind]}, {direction}: the {side}s side by side", columns, cells, (
            f"each cell: {what} (median ±95% interval) on that {side}; under it, how many times as fast as on the "
            f"first {side} ({names[0]}), with its interval (green/red: faster/slower; grey: equivalent or not yet "
            "separable)", RATIOS), note=True))
    return tables
