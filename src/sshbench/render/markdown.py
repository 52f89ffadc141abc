"""Paste-ready Markdown of a results file, for a README, an issue or a wiki page.

The same tables and facts as the terminal (table_model.py, facts.py); this
module only chooses the markup. Nothing here runs a command, so a saved
results file renders the same anywhere. Text from the file is escaped: no
links, images, raw HTML or broken tables can come out of it.
"""

from __future__ import annotations

from sshbench.analysis.findings import Findings, Fleet
from sshbench.render.facts import Fact, commands, facts, mode, problems
from sshbench.render.hosts import host_tables
from sshbench.render.labels import UNITS, hosts_note
from sshbench.render.table_model import Cell, Table
from sshbench.render.tables import result_tables
from sshbench.render.verdict import answer_sections

_SPECIAL = str.maketrans({ch: f"\\{ch}" for ch in "\\`[]<|"})


def _escape(text: str) -> str:
    """Text from a results file as literal Markdown: no links, images, raw HTML, code spans or table breaks.

    (Emphasis characters stay: at worst they italicise, and escaping them would litter every version string.)
    """
    return text.translate(_SPECIAL).replace("\n", " · ")


def _cell(value: Cell, code: bool) -> str:
    if code and value:  # an algorithm name, checked to hold no backtick, in a code span; a grade mark after it
        return f"`{value[0].text}`" + _escape("".join(span.text for span in value[1:]))
    return _escape("".join(span.text for span in value))


def _table(table: Table) -> list[str]:
    align = ["--:" if column.numeric else "---" for column in table.columns]
    titles = (_escape(column.title.replace("\n", " ")) for column in table.columns)
    out = [f"### {_escape(table.title)}", "", "| " + " | ".join(titles) + " |", "|" + "|".join(align) + "|"]
    for row in table.rows:
        out.append("| " + " | ".join(_cell(c, column.code) for c, column in zip(row.cells, table.columns,
                                                                                  strict=True)) + " |")
    caption = [f"- {_escape(line)}" for line in table.caption if line]
    return [*out, "", *caption, *([""] if caption else [])]


def _facts(lines: list[Fact]) -> list[str]:
    return [f"- {_escape(f'{fact.label}: ' if fact.label else '')}{_escape(fact.text)}" for fact in lines]


def render(found: Findings, title: str = "sshbench results") -> str:
    report = found.report
    lines = [f"## {_escape(title)} ({_escape(report.started_at)})", ""]
    for heading, answer in answer_sections(found):  # the answers first: what fills the link, which cipher
        lines += [f"**{_escape(heading)}**", "", *(f"- {_escape(line.strip())}" if not line.startswith(" ") else
                                                   f"  - {_escape(line.strip())}" for line in answer), ""]
    lines += [*_facts([*facts(found), *mode(report), *commands(report)]), "", UNITS, ""]
    for table in result_tables(found):
        lines += _table(table)
    if listed := problems(found):
        lines += ["### Not measured, failed, and warnings", "", *_facts(listed), ""]
    return "\n".join(lines).rstrip() + "\n"


def render_all(runs: list[Findings], fleet: Fleet | None = None) -> str:
    """A results file: one host as it is; several with the cross-host tables (their `fleet`) first, then each
    host."""
    if len(runs) == 1:
        return render(runs[0])
    if fleet is None:
        raise ValueError("several runs are shown with what they conclude together: conclude_fleet(reports)")
    reports = [found.report for found in runs]
    lines = [f"# sshbench: {len(runs)} hosts ({_escape(reports[0].started_at)})", "", hosts_note(reports), ""]
    for table in host_tables(fleet):
        lines += _table(table)
    return "\n".join([*lines, *[render(found, f"host {found.report.label}") for found in runs]])
