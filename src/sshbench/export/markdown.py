"""Paste-ready Markdown of a Report, for a README, an issue or a wiki page.

Report in, text out: nothing here runs a command, so a saved results file
renders the same anywhere. Weak and broken algorithms are marked in the row.
"""

from __future__ import annotations

from sshbench.algorithms import Grade
from sshbench.export.hosts import HOSTS_NOTE, host_tables
from sshbench.export.rows import LEGEND, TableSpec, facts, tables
from sshbench.model import Report, host_label

_MARK = {Grade.WEAK: " ⚠", Grade.BROKEN: " ⛔"}


_SPECIAL = str.maketrans({ch: f"\\{ch}" for ch in "\\`[]<>|"})


def _escape(text: str) -> str:
    """Text from a results file as literal Markdown: no links, images, raw HTML, code spans or table breaks.

    (Emphasis characters stay: at worst they italicise, and escaping them would litter every version string.)
    """
    return text.translate(_SPECIAL)


def _table(spec: TableSpec) -> list[str]:
    rank_column = spec.numeric_from == 3  # ranked tables start with '#'
    align = ["--:" if i >= spec.numeric_from or (i == 0 and rank_column) else "---"
             for i in range(len(spec.headers))]
    out = [f"### {_escape(spec.title)}", "", "| " + " | ".join(map(_escape, spec.headers)) + " |",
           "|" + "|".join(align) + "|"]
    for row in spec.rows:
        cells = [_escape(c) for c in row.cells]
        # algorithm names go in code spans as they are: their characters are checked, never a backtick
        if spec.numeric_from == 3 and len(cells) > 1:
            cells[1] = f"`{row.cells[1]}`" + (_MARK[row.flagged] if row.flagged else "")
        elif row.flagged:
            cells[0] = f"`{row.cells[0]}`{_MARK[row.flagged]}"
        out.append("| " + " | ".join(cells) + " |")
    return [*out, ""]


def render_all(runs: list[Report]) -> str:
    """A results file: one host as before; several with the cross-host tables first, then each host."""
    if len(runs) == 1:
        return render(runs[0])
    lines = [f"# sshbench: {len(runs)} hosts ({_escape(runs[0].started_at)})", "", HOSTS_NOTE, "", LEGEND, ""]
    for spec in host_tables(runs):
        lines += _table(spec)
    return "\n".join([*lines, *[render(report, f"host {host_label(report)}") for report in runs]])


def render(report: Report, title: str = "sshbench results") -> str:
    lines = [f"## {_escape(title)} ({_escape(report.started_at)})", "",
             *[f"- {_escape(fact)}" for fact in facts(report)], "", LEGEND, ""]
    for spec in tables(report):
        lines += _table(spec)
    if report.warnings:
        lines += ["### Warnings", "", *[f"- {_escape(w['message'])}; {_escape(w['advice'])}" for w in report.warnings],
                  ""]
    skipped = [r for r in report.cases if r.reason]
    if skipped:
        lines += ["### Not measured or failed", "", *[f"- `{r.case.id}`: {_escape(r.reason or '')}" for r in skipped],
                  ""]
    return "\n".join(lines).rstrip() + "\n"
