"""`--markdown FILE`: paste-ready tables (render/markdown.py)."""

from __future__ import annotations

from sshbench.render.chartbook import ChartBook
from sshbench.results.model import Report


class MarkdownExporter:
    option = "--markdown"
    help = "paste-ready Markdown tables ('-' for stdout)"
    default_name = "report.md"

    def check(self) -> None:
        """Always possible."""

    def render(self, runs: list[Report], book: ChartBook) -> str:
        from sshbench.render import markdown  # when asked for: every command builds the parser from here

        return markdown.render_all(runs)


EXPORTER = MarkdownExporter()
