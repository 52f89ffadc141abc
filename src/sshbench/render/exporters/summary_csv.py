"""`--summary-csv FILE`: one row per case and host (render/summary_csv.py)."""

from __future__ import annotations

from sshbench.render.chartbook import ChartBook
from sshbench.results.model import Report


class SummaryCsvExporter:
    option = "--summary-csv"
    help = "one row per case: medians, 95%% intervals, rank, CPU cost ('-' for stdout)"
    default_name = "summary.csv"

    def check(self) -> None:
        """Always possible."""

    def render(self, runs: list[Report], book: ChartBook) -> str:
        from sshbench.render import summary_csv  # when asked for: every command builds the parser from here

        return summary_csv.render(runs)


EXPORTER = SummaryCsvExporter()
