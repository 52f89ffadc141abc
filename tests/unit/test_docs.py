"""The README's promises that code can check: exit codes and the two commands."""

import re
from pathlib import Path

from sshbench.errors import ExitCode

README = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")


def test_exit_code_table_matches_the_code() -> None:
    section = README.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    documented = {int(code) for code in re.findall(r"^\|\s*(\d+)\s*\|", section, flags=re.MULTILINE)}
    assert documented == {int(code) for code in ExitCode}


def test_two_commands_near_the_top() -> None:
    top = README[:600]
    assert "make run" in top and "make test" in top


def test_the_entry_point_exits_130_like_the_cli() -> None:
    from sshbench.__main__ import INTERRUPTED  # the entry point cannot import errors.py before its handlers

    assert INTERRUPTED == ExitCode.INTERRUPTED
