"""`--summary-csv FILE`: one row per case and host (render/summary_csv.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sshbench.render.chartbook import ChartBook

if TYPE_CHECKING:
    from sshbench.analysis.findings import Findings, Fleet


class SummaryCsvExporter:
    option = "--summary-csv"
    help = "one row per case: medians, 95%% intervals, rank, CPU cost ('-' for stdout)"
    shows_recommendation = False
    default_name = "summary.csv"

    def check(self) -> None:
        """Always possible."""

    def render(self, runs: list[Findings], book: ChartBook, fleet: Fleet | None) -> str:
        from sshbench.render import summary_csv  # when asked for: every command builds the parser from here

        return summary_csv.render([found.report for found in runs])


EXPORTER = SummaryCsvExporter()
