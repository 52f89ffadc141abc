"""The README's promises that code can check: exit codes, the two commands, and the links between the docs."""

import re
from pathlib import Path

from sshbench.vocabulary.errors import ExitCode

README = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")


def test_exit_code_table_matches_the_code() -> None:
    section = README.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    documented = {int(code) for code in re.findall(r"^\|\s*(\d+)\s*\|", section, flags=re.MULTILINE)}
    assert documented == {int(code) for code in ExitCode}


def test_two_commands_near_the_top() -> None:
    top = README[:600]
    assert "make run" in top and "make test" in top


def test_the_entry_point_exits_130_like_the_cli() -> None:
    from sshbench.__main__ import INTERRUPTED  # the entry point cannot import vocabulary/errors.py before its handlers

    assert INTERRUPTED == ExitCode.INTERRUPTED


def _anchors(text: str) -> set[str]:
    """The anchors GitHub makes of a Markdown file's headings: lower case, punctuation dropped, spaces to '-'."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", text, re.M)}


def test_every_link_between_the_docs_reaches_its_file_and_heading() -> None:
    """A renamed heading silently breaks the links to it (one did: methodology's 'Decision mode' section)."""
    root = Path(__file__).resolve().parents[2]
    files = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    broken = []
    for doc in files:
        for link in re.findall(r"\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", link):
                continue  # http(s), mailto: not this repository's
            path, _, anchor = link.partition("#")
            target = (doc.parent / path).resolve() if path else doc
            if not target.exists():
                broken.append(f"{doc.name}: {link} (no such file)")
            elif anchor and target.suffix == ".md" and anchor not in _anchors(target.read_text(encoding="utf-8")):
                broken.append(f"{doc.name}: {link} (no such heading)")
    assert not broken, broken
