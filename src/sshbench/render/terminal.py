"""The terminal: the table model (table_model.py) and the facts drawn with rich; no commands run here.

Units: MB/s is 10^6 bytes per second, MiB/s is 2^20; both are shown because
people compare with tools that use either. CPU cost is CPU seconds per GiB
moved, per side, which stays steady when wall-clock throughput does not.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import replace

from rich import box
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.rule import Rule
from rich.table import Table as RichTable
from rich.text import Text

from sshbench.analysis.findings import Findings, Fleet
from sshbench.render.facts import Fact, facts, mode, problems, title
from sshbench.render.hosts import host_tables
from sshbench.render.labels import GRADE_STYLE, grade_cell, hosts_note
from sshbench.render.table_model import Cell, Column, Row, Style, Table, cell
from sshbench.render.tables import result_tables
from sshbench.render.verdict import answer_sections
from sshbench.results.model import Report
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind, lookup

# Semantic styles (table_model.Style, every one) as terminal colours.
COLOURS: dict[Style, str] = {"": "", "good": "green", "warn": "yellow", "bad": "red", "weak": "yellow",
                             "broken": "bold red", "dim": "dim", "strong": "bold", "bad strong": "red bold",
                             "strong warn": "bold yellow"}


def _style(style: Style) -> str:
    return COLOURS[style]


def _text(value: Cell) -> Text:
    text = Text()
    for span in value:
        text.append(span.text, style=_style(span.style))
    return text


_MEASURE = Console(width=100_000, file=io.StringIO())  # only measures: never prints anywhere


def _rich(table: Table, keep: list[int], caption: list[str]) -> RichTable:
    out = RichTable(title=escape(table.title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                    collapse_padding=True, caption=None if table.note or not caption else escape("\n".join(caption)))
    for i in keep:
        column = table.columns[i]
        out.add_column(escape(column.title), justify="right" if column.numeric else "left",
                       no_wrap=not column.wrap and column.numeric, overflow="fold")
    for row in table.rows:
        out.add_row(*(_text(row.cells[i]) for i in keep))
    return out


def _natural_width(table: Table, keep: list[int]) -> int:
    """How wide rich draws the table with these columns when nothing has to wrap."""
    return Measurement.get(_MEASURE, _MEASURE.options, _rich(table, keep, [])).maximum


def fitted(table: Table, width: int | None) -> tuple[list[int], list[str]]:
    """The columns that fit `width` (all when None): one at a time, priority 3 first; key columns always stay.

    Numbers are never cut: a column either shows whole or not at all, and the
    caption names what was left out.
    """
    keep = list(range(len(table.columns)))
    optional = sorted((i for i in keep if table.columns[i].priority > 1),
                      key=lambda i: (-table.columns[i].priority, -i))  # priority 3 first, rightmost first
    for i in optional:
        if width is None or _natural_width(table, keep) <= width:
            break
        keep.remove(i)
    hidden = [table.columns[i].title.replace("\n", " ") for i in range(len(table.columns)) if i not in keep]
    return keep, hidden


def _chunks(table: Table, keep: list[int], width: int | None) -> list[list[int]]:
    """Column groups that each fit `width`, every one led by the first (label) column.

    Only a table whose key columns alone are too wide is split (the transfer
    method x cipher matrix at 60 columns): a figure is never squeezed.
    """
    lead = _lead(table, keep)
    if width is None or _natural_width(table, keep) <= width or len(keep) <= len(lead) + 1:
        return [keep]
    groups: list[list[int]] = [list(lead)]
    for i in keep[len(lead):]:
        if len(groups[-1]) > len(lead) and _natural_width(table, [*groups[-1], i]) > width:
            groups.append(list(lead))
        groups[-1].append(i)
    return groups


def _lead(table: Table, keep: list[int]) -> list[int]:
    """The columns every part of a split table repeats: the rank and the name (up to the first algorithm-name
    column among the first three), so that no part is a column of figures without the names they belong to."""
    for n, i in enumerate(keep[:3]):
        if table.columns[i].code:
            return keep[: n + 1]
    return keep[:1]


def rich_table(table: Table, width: int | None = None) -> list[RenderableType]:
    """One model table as a rich table (its caption under it, or as a note after it), fitted to `width`."""
    keep, hidden = fitted(table, width)
    caption = list(table.caption)
    if hidden:
        caption.append(f"not shown at this width: {', '.join(hidden)} (--wide shows every column)")
    groups = _chunks(table, keep, width)
    if len(groups) > 1:
        parts: list[RenderableType] = []
        for n, group in enumerate(groups, 1):
            # the part's title on a line of its own: inside the table it would wrap to the part's width
            parts.append(Text(f"{table.title} ({n} of {len(groups)})"))
            parts += rich_table_columns(replace(table, title="", note=True), group,
                                        caption if n == len(groups) else [])
        return parts
    return rich_table_columns(table, keep, caption)


def rich_table_columns(table: Table, keep: list[int], caption: list[str]) -> list[RenderableType]:
    out = _rich(table, keep, caption)
    if table.note:
        return [out, Text("\n".join(caption) + "\n", style="dim")] if caption else [out]
    return [out]


def _fact_lines(lines: Iterable[Fact]) -> Text:
    text = Text()
    for fact in lines:
        label = f"{fact.label}:" if fact.label else ""
        text.append(f"{label:<8} {fact.text}\n", style=_style(fact.style))
    return text


def header(found: Findings) -> Text:
    text = Text()
    text.append("sshbench ", style="bold")
    text.append(f"{title(found.report)}\n")
    return text + _fact_lines(facts(found))


def run_mode(report: Report) -> Text:
    """How the run decided when to stop, and whether it got there."""
    text = _fact_lines(mode(report))
    text.rstrip()
    return text


def answer_block(found: Findings) -> RenderableType | None:
    """The answers (render/verdict.py), as a run opens and ends its output: None when there are none."""
    sections = answer_sections(found)
    if not sections:
        return None
    text = Text()
    for heading, lines in sections:
        text.append(heading + "\n", style="bold")
        for line in lines:
            text.append(line + "\n", style="" if line.startswith(" ") else "bold green")
    return text


def full_report(found: Findings, width: int | None = None) -> RenderableType:
    """The answer, header, mode, every table fitted to `width` (None: every column), then the problems."""
    report = found.report
    answer = answer_block(found)
    parts: list[RenderableType] = [*([answer] if answer else []), header(found), run_mode(report)]
    for table in result_tables(found):
        parts += rich_table(table, width)
    parts += [Text(f"{fact.label}: {fact.text}", style=_style(fact.style)) for fact in problems(found)]
    return Group(*parts)


def hosts_report(fleet: Fleet, width: int | None = None) -> RenderableType:
    """The hosts of a multi-host run side by side (after each host's own report), as their Fleet concluded."""
    parts: list[RenderableType] = [Rule("All hosts")]
    for table in host_tables(fleet):
        parts += rich_table(table, width)
    return Group(*parts, Text(hosts_note(list(fleet.runs)), style="dim"))


def host_rule(report: Report) -> Rule:
    return Rule(f"host {escape(report.label)}")


# ---------------------------------------------------------------- `sshbench algos`


def _mark(flag: bool) -> Cell:
    return cell("yes", "good") if flag else cell("-", "dim")


def algorithms_tables(supported: AlgorithmLists, defaults: AlgorithmLists,
                      offered: AlgorithmLists) -> list[RenderableType]:
    """What the client supports (and uses by default), what the server offers, and each name's grade, side by side."""
    out: list[RenderableType] = []
    for kind, heading in ((Kind.CIPHER, "Ciphers"), (Kind.MAC, "MACs"), (Kind.KEX, "Key exchange"),
                          (Kind.HOSTKEY, "Host key algorithms")):
        rows = []
        for name in dict.fromkeys((*supported.of(kind), *offered.of(kind))):
            alg = lookup(name, kind)
            style = GRADE_STYLE[alg.grade]
            rows.append(Row((cell(name, style if alg.grade.flagged else ""), _mark(name in supported.of(kind)),
                             _mark(name in defaults.of(kind)), _mark(name in offered.of(kind)),
                             cell(grade_cell(alg.grade), style), cell(alg.reason + (" (AEAD)" if alg.aead else ""))),
                            alg.grade if alg.grade.flagged else None))
        columns = (Column("name", code=True), Column("client"), Column("client default"), Column("server"),
                   Column("grade"), Column("why", wrap=True))
        out += rich_table(Table(heading, columns, tuple(rows)))
    return out
