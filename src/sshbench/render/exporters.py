"""The report formats `sshbench report` can write, by option: one module each, one line here.

A file exporter turns the runs of a results file into one text (HTML,
Markdown ...); a directory exporter into several files (the charts). The
renderer is named as "module:function" and imported only when its option is
used, so that `sshbench --version` does not pay for matplotlib.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from sshbench.errors import MissingToolError
from sshbench.results.model import Report


class ChartBook:
    """The charts one command draws, each once: `report --html --charts` makes a run's charts for the page and
    writes the same ones as files. The command owns its book (cli/report.py); nothing is kept between commands."""

    def __init__(self) -> None:
        self._made: list[tuple[object, list[Any]]] = []

    def get(self, key: object, make: Callable[[], list[Any]]) -> list[Any]:
        """What `make` made for `key` (a Report, or the list of runs), made on first use."""
        for kept, made in self._made:
            if kept is key:
                return made
        made = make()
        self._made.append((key, made))
        return made


@dataclass(frozen=True)
class Exporter:
    option: str  # the `sshbench report` option, e.g. "--html"
    help: str
    renderer: str  # "module:function": runs -> text (a file exporter) or -> (relative path, bytes)... (a directory)
    default_name: str | None = None  # a file exporter's file name inside a directory given as its path
    uses_charts: bool = False  # its renderer takes the command's ChartBook (book=)

    @property
    def writes_directory(self) -> bool:
        return self.default_name is None

    @property
    def dest(self) -> str:
        """The argparse attribute of the option."""
        return self.option.removeprefix("--").replace("-", "_")

    def render(self, book: ChartBook | None = None) -> Callable[[list[Report]], str]:
        assert not self.writes_directory
        function: Callable[[list[Report]], str] = self._bound(book)
        return function

    def files(self, book: ChartBook | None = None) -> Callable[[list[Report]], Iterator[tuple[str, bytes]]]:
        assert self.writes_directory
        function: Callable[[list[Report]], Iterator[tuple[str, bytes]]] = self._bound(book)
        return function

    def check(self) -> None:
        """Raise now if this exporter cannot run here (matplotlib missing): before any output is created, so a
        refused --charts DIR leaves no empty DIR behind."""
        self._load()

    def _bound(self, book: ChartBook | None) -> Any:
        function = self._load()
        return functools.partial(function, book=book or ChartBook()) if self.uses_charts else function

    def _load(self) -> Any:
        module, _, name = self.renderer.partition(":")
        try:
            return getattr(importlib.import_module(module), name)
        except ModuleNotFoundError as exc:
            if exc.name != "matplotlib":
                raise
            raise MissingToolError(f"{self.option} needs matplotlib, an optional extra: pip install "
                                   "'sshbench[charts]' (make run installs it)") from None


EXPORTERS = (
    Exporter("--html", "one self-contained HTML file (inline SVG charts, no network; '-' for stdout)",
             "sshbench.render.html:render", "report.html", uses_charts=True),
    Exporter("--markdown", "paste-ready Markdown tables ('-' for stdout)", "sshbench.render.markdown:render_all",
             "report.md"),
    Exporter("--summary-csv", "one row per case: medians, 95%% intervals, rank, CPU cost ('-' for stdout)",
             "sshbench.render.summary_csv:render", "summary.csv"),
    Exporter("--charts", "PNG and SVG charts, written into this directory", "sshbench.render.charts:files",
             uses_charts=True),
)
