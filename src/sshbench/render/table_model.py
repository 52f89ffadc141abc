"""The one table model every output draws: titles, columns, rows of cells, cells of styled spans.

A cell is a few spans of text, each with a semantic style (Style: "good",
"warn", "bad", "weak", "broken", "dim", "strong", or one of the two
emphasised ones, "bad strong" and "strong warn"): the terminal maps each
to its colours, HTML writes it as the span's classes, Markdown drops it.
The styles are one closed type, so the checker sees every renderer's, and
the terminal looks a style up whole instead of taking its words apart. A newline inside a cell is a
line break: the terminal shows it, HTML breaks the line, Markdown joins the
lines with " · ".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from sshbench.vocabulary.algorithms import Grade

Style = Literal["", "good", "warn", "bad", "weak", "broken", "dim", "strong", "bad strong", "strong warn"]
STYLES: tuple[Style, ...] = get_args(Style)


@dataclass(frozen=True)
class Span:
    text: str
    style: Style = ""


Cell = tuple[Span, ...]


def cell(text: str, style: Style = "") -> Cell:
    return (Span(text, style),)


def plain(value: Cell) -> str:
    return "".join(span.text for span in value)


@dataclass(frozen=True)
class Column:
    title: str  # "\n" separates the two lines of a two-line heading
    numeric: bool = False  # right-aligned figures
    code: bool = False  # algorithm names: Markdown puts them in code spans
    wrap: bool = False  # long text may wrap onto more lines when the terminal is narrow
    # 1: always shown (rank, name, grade, the headline figure, its interval, n); 2 and 3: dropped, 3 first,
    # when a terminal is too narrow for the whole table (`--wide` keeps them). Files show every column.
    priority: int = 1


@dataclass(frozen=True)
class Row:
    cells: tuple[Cell, ...]
    grade: Grade | None = None  # weak or broken: outputs that can mark a whole row do


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    caption: tuple[str, ...] = ()  # lines under the table
    note: bool = False  # the caption reads as a note after the table rather than a centred caption


