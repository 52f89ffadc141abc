"""What a report format is to `sshbench report`: an option, its help, and a renderer of saved runs.

Two kinds: a file exporter turns the runs of a results file, each with its
Findings (analysis/findings.py: concluded once by the command), into one text
(HTML, Markdown ...), written to a file or stdout; a directory exporter
into several files (the charts). Each is a module of this package, with
one line in EXPORTERS (__init__.py); the CLI adds its option from here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from sshbench.render.chartbook import ChartBook

if TYPE_CHECKING:  # a type only: the parser imports every exporter, and no command but `report` concludes
    from sshbench.analysis.findings import Findings, Fleet


class _Format(Protocol):
    @property
    def option(self) -> str:
        """The `sshbench report` option, e.g. "--html"."""
        ...

    @property
    def help(self) -> str:
        """The option's help (argparse: a literal % is written %%)."""
        ...

    @property
    def shows_recommendation(self) -> bool:
        """Whether it lays out the recommendation each run kept: the command then concludes it (it is the costliest
        part of concluding, and no other output shows it)."""
        ...

    def check(self) -> None:
        """Raise now (MissingToolError) if this format cannot be made here: before any output is created, so a
        refused `--charts DIR` leaves no empty DIR behind."""
        ...


@runtime_checkable
class FileExporter(_Format, Protocol):
    @property
    def default_name(self) -> str:
        """The file's name inside a directory given as its path."""
        ...

    def render(self, runs: list[Findings], book: ChartBook, fleet: Fleet | None) -> str:
        """The whole text; `book` holds the command's charts, drawn once whoever asks; `fleet` what several runs
        conclude together (analysis/conclude.conclude_fleet; None for one run)."""
        ...


@runtime_checkable
class DirectoryExporter(_Format, Protocol):
    def files(self, runs: list[Findings], book: ChartBook) -> Iterator[tuple[str, bytes]]:
        """Each file's path (relative to the directory) and bytes."""
        ...


Exporter = FileExporter | DirectoryExporter


def dest(exporter: Exporter) -> str:
    """The argparse attribute of an exporter's option."""
    return exporter.option.removeprefix("--").replace("-", "_")
