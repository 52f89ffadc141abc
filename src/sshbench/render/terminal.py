"""The terminal: the table model (table_model.py) and the facts drawn with rich; no commands run here.

Units: MB/s is 10^6 bytes per second, MiB/s is 2^20; both are shown because
people compare with tools that use either. CPU cost is CPU seconds per GiB
moved, per side, which stays steady when wall-clock throughput does not.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich import box
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table as RichTable
from rich.text import Text

from sshbench.algorithms import Kind, lookup
from sshbench.render.facts import Fact, facts, mode, problems, title
from sshbench.render.hosts import host_tables
from sshbench.render.labels import GRADE_STYLE, HOSTS_NOTE, grade_cell
from sshbench.render.table_model import Cell, Column, Row, Table, cell
from sshbench.render.tables import result_tables
from sshbench.results.model import Report
from sshbench.targets.discovery import ClientInfo, ServerInfo

# Semantic styles (table_model.py) as terminal colours.
COLOURS = {"good": "green", "warn": "yellow", "bad": "red", "weak": "yellow", "broken": "bold red", "dim": "dim",
           "strong": "bold"}


def _style(names: str) -> str:
    return " ".join(COLOURS.get(name, "") for name in names.split()).strip()


def _text(value: Cell) -> Text:
    text = Text()
    for span in value:
        text.append(span.text, style=_style(span.style))
    return text


def rich_table(table: Table) -> list[RenderableType]:
    """One model table as a rich table (its caption under it, or as a note after it)."""
    out = RichTable(title=escape(table.title), title_justify="left", box=box.SIMPLE_HEAD,
                    caption=None if table.note or not table.caption else escape("\n".join(table.caption)))
    for column in table.columns:
        out.add_column(escape(column.title), justify="right" if column.numeric else "left", no_wrap=not column.wrap)
    for row in table.rows:
        out.add_row(*(_text(c) for c in row.cells))
    if table.note:
        return [out, Text("\n".join(table.caption) + "\n", style="dim")]
    return [out]


def _fact_lines(lines: Iterable[Fact]) -> Text:
    text = Text()
    for fact in lines:
        label = f"{fact.label}:" if fact.label else ""
        text.append(f"{label:<8} {fact.text}\n", style=_style(fact.style))
    return text


def header(report: Report) -> Text:
    text = Text()
    text.append("sshbench ", style="bold")
    text.append(f"{title(report)}\n")
    return text + _fact_lines(facts(report))


def run_mode(report: Report) -> Text:
    """How the run decided when to stop, and whether it got there."""
    text = _fact_lines(mode(report))
    text.rstrip()
    return text


def full_report(report: Report) -> RenderableType:
    parts: list[RenderableType] = [header(report), run_mode(report)]
    for table in result_tables(report):
        parts += rich_table(table)
    parts += [Text(f"{fact.label}: {fact.text}", style=_style(fact.style)) for fact in problems(report)]
    return Group(*parts)


def hosts_report(runs: list[Report]) -> RenderableType:
    """The hosts of a multi-host run side by side (after each host's own report)."""
    parts: list[RenderableType] = [Rule("All hosts")]
    for table in host_tables(runs):
        parts += rich_table(table)
    return Group(*parts, Text(HOSTS_NOTE, style="dim"))


def host_rule(report: Report) -> Rule:
    return Rule(f"host {escape(report.label)}")


# ---------------------------------------------------------------- `sshbench algos`


def _mark(flag: bool) -> Cell:
    return cell("yes", "good") if flag else cell("-", "dim")


def algorithms_tables(client: ClientInfo, server: ServerInfo) -> list[RenderableType]:
    """What the client supports, what the embedded server offers, and each name's grade, side by side."""
    out: list[RenderableType] = []
    for kind, heading in ((Kind.CIPHER, "Ciphers"), (Kind.MAC, "MACs"), (Kind.KEX, "Key exchange"),
                          (Kind.HOSTKEY, "Host key algorithms")):
        rows = []
        for name in dict.fromkeys((*client.supported.of(kind), *server.enabled.of(kind))):
            alg = lookup(name, kind)
            style = GRADE_STYLE[alg.grade]
            rows.append(Row((cell(name, style if alg.grade.flagged else ""), _mark(name in client.supported.of(kind)),
                             _mark(name in client.defaults.of(kind)), _mark(name in server.enabled.of(kind)),
                             cell(grade_cell(alg.grade), style), cell(alg.reason + (" (AEAD)" if alg.aead else ""))),
                            alg.grade if alg.grade.flagged else None))
        columns = (Column("name", code=True), Column("client"), Column("client default"), Column("server"),
                   Column("grade"), Column("why", wrap=True))
        out += rich_table(Table(heading, columns, tuple(rows)))
    return out
