"""Fixtures shared by the integration tests: one small real sweep, run once per session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import leftovers, temp_entries
from tests.integration.cli_helpers import SMALL, sshbench

SmallRun = tuple[subprocess.CompletedProcess[str], dict[str, Any], Path, set[int], set[str]]


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> SmallRun:
    """The run, its results, their path, and what it left in its own TMPDIR: processes and entries."""
    out = tmp_path_factory.mktemp("run") / "r.json"
    tmpdir = tmp_path_factory.mktemp("run-tmp")
    done = sshbench(*SMALL, "--size", "4MiB", "--output", str(out), tmpdir=tmpdir)
    data = json.loads(out.read_text()) if out.exists() else {}
    return done, data, out, leftovers(str(tmpdir)), temp_entries(tmpdir)
