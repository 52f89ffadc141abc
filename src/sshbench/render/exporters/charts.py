"""`--charts DIR`: every chart as PNG and SVG (render/charts.py), where matplotlib, an optional extra, is installed.

render/charts.py is imported only when charts are made, so that `sshbench
--version` and every other command do not pay for matplotlib.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

from sshbench.render.chartbook import ChartBook
from sshbench.vocabulary.errors import MissingToolError

if TYPE_CHECKING:
    from sshbench.analysis.findings import Findings


class ChartsExporter:
    option = "--charts"
    help = "PNG and SVG charts, written into this directory"
    shows_recommendation = False

    def check(self) -> None:
        self._drawing()

    def files(self, runs: list[Findings], book: ChartBook) -> Iterator[tuple[str, bytes]]:
        made: Iterator[tuple[str, bytes]] = self._drawing().files(runs, book)
        return made

    def _drawing(self) -> ModuleType:
        try:
            from sshbench.render import charts
        except ModuleNotFoundError as exc:
            if exc.name != "matplotlib":
                raise
            raise MissingToolError(f"{self.option} needs matplotlib, an optional extra: pip install "
                                   "'sshbench[charts]' (make run installs it)") from None
        return charts


EXPORTER = ChartsExporter()
