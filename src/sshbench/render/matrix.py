"""Transfer method x cipher, per direction: the answer to "which cipher AND which tool"."""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.methods import method
from sshbench.render.labels import MATRIX_LEGEND, flagged_name, pm
from sshbench.render.table_model import Cell, Column, Row, Span, Style, Table, cell
from sshbench.results.model import Report, Summary
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.case_terms import PIPE, CaseKind


@dataclass(frozen=True)
class Matrix:
    """Transfer methods (rows) by ciphers (columns) for one direction."""

    direction: str
    methods: list[str]
    ciphers: list[str]
    cells: dict[tuple[str, str], Summary]


def method_matrices(report: Report) -> list[Matrix]:
    """One matrix per direction, when more than one transfer method was measured."""
    out = []
    for direction in ("upload", "download"):
        cells: dict[tuple[str, str], Summary] = {}
        views = report.joined()
        for summary in report.summaries:
            case = views[summary.case_id].case
            if case.kind is CaseKind.CIPHER and case.direction.value == direction and case.cipher:
                cells[(case.method, case.cipher)] = summary
        methods = list(dict.fromkeys(m for m, _ in cells))
        if len(methods) < 2 and not any(m != PIPE for m in methods):
            continue
        ciphers = list(dict.fromkeys(c for _, c in cells))
        out.append(Matrix(direction, methods, ciphers, cells))
    return out


def method_label(name: str) -> str:
    return method(name).label


def matrix_cell(summary: Summary | None, files_per_transfer: int = 1, file_bytes: int = 0) -> list[str]:
    """A cell's lines: steady-state rate, end-to-end rate, CPU per side (and files/s for a set)."""
    if summary is None or summary.throughput_bytes_per_second is None:
        return ["-"]
    steady = summary.throughput_bytes_per_second
    lines = [pm(steady, 1e6)]
    if summary.end_to_end_bytes_per_second:
        lines.append(f"e2e {pm(summary.end_to_end_bytes_per_second, 1e6)}")
    client, server = summary.client_cpu_seconds_per_gib, summary.server_cpu_seconds_per_gib
    lines.append(f"CPU {client.median if client else float('nan'):.2f} / "
                 f"{server.median if server else float('nan'):.2f}".replace("nan", "?"))
    if files_per_transfer > 1 and file_bytes:
        lines.append(f"{steady.median / file_bytes:,.0f} files/s")
    return lines


def _cell(summary: Summary | None, per_transfer: int, file_bytes: int) -> Cell:
    lines = matrix_cell(summary, per_transfer, file_bytes)
    first: Style = "strong warn" if summary is not None and summary.precise is False else "strong"
    return (Span(lines[0], first), *(Span("\n" + line, "dim" if line.startswith("CPU") else "")
                                     for line in lines[1:]))


def _verified(report: Report, direction: str) -> str:
    """How the received files of this direction's file-method samples were checked, counted."""
    counts: dict[str, int] = {}
    views = report.joined()
    for sample in report.samples:
        case = views[sample.case_id].case
        if not case.is_pipe and case.direction.value == direction and sample.ok and not sample.warmup:
            counts[sample.verified or "none"] = counts.get(sample.verified or "none", 0) + 1
    return ", ".join(f"{what} x{n}" for what, n in sorted(counts.items())) or "nothing yet"


def matrix_tables(report: Report) -> list[Table]:
    files = report.environment.files
    per_transfer, file_bytes = (files.files, files.file_bytes) if files else (1, 0)
    tables = []
    for matrix in method_matrices(report):
        caption = (f"file tools moved {files.describe} per transfer, receiver writing "
                   f"{'a real file' if files.sink == 'file' else '/dev/null'}; "
                   f"checked: {_verified(report, matrix.direction)}") if files else ""
        columns = (Column("method"), *(Column(flagged_name(c, Kind.CIPHER), numeric=True) for c in matrix.ciphers))
        rows = tuple(Row((cell(method_label(method)), *(
            _cell(matrix.cells.get((method, c)), per_transfer if method != PIPE else 1, file_bytes)
            for c in matrix.ciphers))) for method in matrix.methods)
        tables.append(Table(f"Transfer method x cipher, {matrix.direction}", columns, rows,
                            (caption, MATRIX_LEGEND), note=True))
    return tables
