"""`--markdown FILE`: paste-ready tables (render/markdown.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sshbench.render.chartbook import ChartBook

if TYPE_CHECKING:
    from sshbench.analysis.findings import Findings, Fleet


class MarkdownExporter:
    option = "--markdown"
    help = "paste-ready Markdown tables ('-' for stdout)"
    shows_recommendation = False
    default_name = "report.md"

    def check(self) -> None:
        """Always possible."""

    def render(self, runs: list[Findings], book: ChartBook, fleet: Fleet | None) -> str:
        from sshbench.render import markdown  # when asked for: every command builds the parser from here

        return markdown.render_all(runs, fleet)


EXPORTER = MarkdownExporter()
