"""The commands a run suggests name the program as the user can run it (after `make run` it is not on PATH)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sshbench.cli.hints import program


def test_a_program_not_on_path_is_named_by_the_path_it_was_started_by(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    started = venv_bin / "sshbench"
    started.write_text("#!/bin/sh\n")
    started.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(started), "run"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert program() == [str(started)]
    monkeypatch.setenv("PATH", f"{venv_bin}:/usr/bin")
    assert program() == ["sshbench"]


def test_python_dash_m_is_named_with_its_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/somewhere/sshbench/__main__.py"])
    assert program() == [sys.executable, "-m", "sshbench"]
