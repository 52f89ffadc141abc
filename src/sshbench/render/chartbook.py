"""The charts one command draws, kept so each is drawn once (`report --html --charts`: the page and the files)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


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
