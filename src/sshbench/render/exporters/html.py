"""`--html FILE`: one self-contained page (render/html.py), its charts inline as SVG where matplotlib is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sshbench.render.chartbook import ChartBook

if TYPE_CHECKING:
    from sshbench.analysis.findings import Findings, Fleet


class HtmlExporter:
    option = "--html"
    help = "one self-contained HTML file (inline SVG charts, no network; '-' for stdout)"
    shows_recommendation = True
    default_name = "report.html"

    def check(self) -> None:
        """Always possible: without matplotlib the page says so where its charts would be."""

    def render(self, runs: list[Findings], book: ChartBook, fleet: Fleet | None) -> str:
        from sshbench.render import html  # when asked for: every command builds the parser from here

        return html.render(runs, book, fleet)


EXPORTER = HtmlExporter()
