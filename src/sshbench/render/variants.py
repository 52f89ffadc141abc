"""Streams and compression side by side: per direction and cipher, each --streams and --compression pair, how
many times as fast as one connection without compression, what crossed the wire, what each side spent, and
what limited it (analysis/answers/remedies.py, analysis/physics/links.py).

The ranked tables rank ciphers within one pair; this table is the one a
user of --streams or --compression reads first: what the change did.
"""

from __future__ import annotations

from sshbench.analysis.findings import Bound, Findings, Stated
from sshbench.axes import DECLARED
from sshbench.compressors import OFF, choice
from sshbench.render.labels import RATIOS, flagged_name, mbps
from sshbench.render.table_model import Cell, Column, Row, Span, Style, Table, cell
from sshbench.results.model import Case, Report, Summary
from sshbench.results.views import Variant, variant_of, variants_of
from sshbench.vocabulary.case_terms import CaseKind, Direction, Relation

TITLE = {Direction.UPLOAD: "Streams and compression, upload (client -> server)",
         Direction.DOWNLOAD: "Streams and compression, download (server -> client)"}
CAPTION = ("x plain: how many times as fast as the same cipher over one connection without compression, with its "
           "interval (green/red: faster/slower; grey: equivalent or not yet separable)", RATIOS,
           "wire: bytes on the link per second (ssh -v's count), and the payload's bytes per wire byte",
           "CPU s/GiB: each side's CPU per GiB of payload, all its connections and compressors together",
           "limit: what the transfer reached (CPU of a side, SSH's windows, the link) or below limits")


def _ratio(found: Stated | None) -> Cell:
    if found is None:
        return cell("-", "dim")
    interval = f" [{found.low:.2f}-{found.high:.2f}]" if found.low is not None and found.high is not None else ""
    style: Style = "good" if found.relation is Relation.DIFFERENT and found.ratio > 1 else \
        "bad" if found.relation is Relation.DIFFERENT else "dim"
    return (Span(f"{found.ratio:.2f}x{interval}", style),)


def _wire(bound: Bound | None, case: Case) -> Cell:
    if bound is None or bound.wire_ratio is None or case.compressor.is_off:
        return cell("-", "dim")
    return cell(f"{bound.wire_rate / 1e6:,.1f} MB/s, {1 / bound.wire_ratio:.2f}:1")


def _cpu(summary: Summary) -> Cell:
    client, server = summary.client_cpu_seconds_per_gib, summary.server_cpu_seconds_per_gib
    return cell(f"{client.median:.2f} / {server.median:.2f}" if client and server else
                f"{client.median:.2f} / -" if client else "-")


def variant_tables(report: Report, found: Findings) -> list[Table]:
    """One table per direction whose pipe cipher cases crossed more than one variant (streams, compression and
    any declared axis: a column each, axes/)."""
    order = variants_of(report)
    if len(order) < 2:
        return []
    views = report.joined()
    rows: dict[tuple[str, Direction, str], dict[Variant, Summary]] = {}
    for summary in report.summaries:
        case = views[summary.case_id].case
        if case.kind is CaseKind.CIPHER and case.is_pipe and summary.throughput_bytes_per_second and case.cipher:
            rows.setdefault((case.cipher, case.direction, case.build), {})[variant_of(case)] = summary
    axes = [axis for axis in DECLARED if any(axis.name in dict(v[2]) for v in order)]
    tables = []
    for direction in (Direction.UPLOAD, Direction.DOWNLOAD):
        out = []
        for (cipher, dir_, _build), by_variant in rows.items():
            if dir_ is not direction:
                continue
            plain = by_variant.get((1, OFF, ()))
            for variant in (v for v in order if v in by_variant):
                summary = by_variant[variant]
                case = views[summary.case_id].case
                bound = found.bound(summary.case_id)
                ratio = None if plain is None or summary is plain else found.variants.get(summary.case_id)
                declared_cells = tuple(cell(axis.title(str(case.value_of(axis.name)))) for axis in axes)
                out.append(Row((cell(flagged_name(cipher, CaseKind.CIPHER.algorithm)), cell(str(variant[0])),  # type: ignore[arg-type]
                                cell(choice(variant[1]).label), *declared_cells,
                                cell(mbps(summary.throughput_bytes_per_second)),
                                cell("1 (plain)", "dim") if summary is plain else _ratio(ratio),
                                _wire(bound, case), _cpu(summary), cell(bound.short if bound else "-"))))
        if out:
            columns = (Column("cipher", code=True), Column("streams", numeric=True), Column("compression"),
                       *(Column(axis.column) for axis in axes),
                       Column("MB/s", numeric=True), Column("x plain", numeric=True),
                       Column("wire", numeric=True, priority=2), Column("CPU s/GiB\nclient / server", numeric=True,
                                                                        priority=2), Column("limit", priority=2))
            tables.append(Table(TITLE[direction], columns, tuple(out), CAPTION, note=True))
    return tables
