"""`sshbench report` over many results files: one fleet view, files of older schemas upgraded, unknown refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[1] / "data"


def test_a_directory_of_files_is_one_fleet_report(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    shutil.copy(DATA / "results-small.json", fleet / "laptop.json")  # schema 3: upgraded on reading
    shutil.copy(DATA / "results-hosts.json", fleet / "office.json")  # one file, two hosts
    (fleet / "notes.txt").write_text("not a results file, and not *.json: ignored\n")
    done = sshbench("report", str(fleet), "--markdown", str(tmp_path / "fleet.md"), tmpdir=tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr
    text = (tmp_path / "fleet.md").read_text()
    assert text.startswith("# sshbench: 3 hosts")
    for needed in ("Platforms", "Fleet recommendation", "Normalised, upload: relative to chacha20-poly1305",
                   "A fleet: each machine measured itself", "| vm ", "alpha", "beta.example"):
        assert needed in text, needed
    shown = sshbench("report", str(fleet / "laptop.json"), str(fleet / "office.json"), tmpdir=tmp_path)
    assert shown.returncode == ExitCode.OK and "Fleet recommendation" in shown.stdout


def test_a_file_of_an_unknown_schema_is_refused_by_name(tmp_path: Path) -> None:
    data = json.loads((DATA / "results-small.json").read_text())
    data["schema_version"] = 99
    (tmp_path / "future.json").write_text(json.dumps(data))
    done = sshbench("report", str(DATA / "results-hosts.json"), str(tmp_path / "future.json"), tmpdir=tmp_path)
    assert done.returncode == ExitCode.USAGE
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "future.json" in lines[0] and "schema version 99" in lines[0], lines


def test_an_empty_directory_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = sshbench("report", str(tmp_path / "empty"), tmpdir=tmp_path)
    assert done.returncode == ExitCode.USAGE and "no results files (*.json)" in done.stderr
