"""Tables at 60, 80, 120 and 200 columns: key columns always, optional ones give way, no number ever cut."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from sshbench.analysis.conclude import conclude
from sshbench.render.table_model import plain
from sshbench.render.tables import result_tables
from sshbench.render.terminal import _chunks, fitted, full_report
from tests.conftest import load_report

KEY = ("#", "grade", "±", "n")


def _print(width: int | None, columns: int) -> str:
    console = Console(width=columns, file=io.StringIO(), color_system=None)
    console.print(full_report(conclude(load_report()), width))
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


@pytest.mark.parametrize("columns", [60, 80, 120, 200])
def test_every_line_fits_and_every_figure_is_whole(columns: int) -> None:
    text = _print(columns, columns)
    assert max(len(line) for line in text.splitlines()) <= columns
    for table in result_tables(conclude(load_report())):
        keep, hidden = fitted(table, columns)
        assert all(table.columns[i].title.split("\n")[-1] in text for i in keep)
        for row in table.rows:  # every figure shown appears whole, on one line
            for i in keep:
                if table.columns[i].numeric:
                    assert plain(row.cells[i]).split("\n")[0] in text, (columns, table.title, plain(row.cells[i]))
        if hidden:
            assert "--wide shows every column" in text


@pytest.mark.parametrize("columns", [60, 80])
def test_key_columns_stay_and_optional_ones_go_first(columns: int) -> None:
    ranked = [t for t in result_tables(conclude(load_report())) if t.columns[0].title == "#"]
    for table in ranked:
        keep, hidden = fitted(table, columns)
        titles = [table.columns[i].title.split("\n")[-1] for i in keep]
        assert all(k in titles for k in KEY) and ("MB/s" in titles or "ms" in titles), titles
        assert all(table.columns[i].priority == 1 for i in keep[:6])
        assert hidden, "the full table does not fit at this width"


def test_wide_keeps_every_column_and_200_columns_need_nothing_dropped() -> None:
    for table in result_tables(conclude(load_report())):
        assert fitted(table, None) == (list(range(len(table.columns))), [])
        assert fitted(table, 200)[1] == []
    assert "not shown at this width" not in _print(None, 250)


def test_a_split_table_repeats_rank_and_name_and_titles_each_part_on_one_line() -> None:
    """A part of figures without the names they belong to cannot be read (seen at 80 columns once the cost
    columns joined the key ones); a part's title inside the part wraps to the part's width."""
    text = _print(60, 60)
    split = 0
    for table in result_tables(conclude(load_report())):
        keep, _ = fitted(table, 60)
        parts = _chunks(table, keep, 60)
        names = [i for i in keep[:3] if table.columns[i].code]
        split += len(parts) > 1
        for n, part in enumerate(parts, 1):
            assert all(i in part for i in names), (table.title, part)
            if len(parts) > 1:
                assert f"{table.title} ({n} of {len(parts)})" in text.splitlines()
    assert split >= 3, "the fixture no longer splits any ranked table at 60 columns"


def test_every_semantic_style_has_its_terminal_colours() -> None:
    """The styles are one closed type (table_model.Style) that the terminal looks up whole: each has its colours,
    an emphasised one its parts' together."""
    from sshbench.render.table_model import STYLES
    from sshbench.render.terminal import COLOURS

    assert set(COLOURS) == set(STYLES)
    colours = {str(style): words for style, words in COLOURS.items()}
    for style in STYLES:
        assert sorted(colours[style].split()) == sorted(w for part in style.split() for w in colours[part].split())
