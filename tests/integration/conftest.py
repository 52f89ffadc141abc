"""Fixtures shared by the integration tests: one small real sweep, run once per session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import sshbench_temp_dirs, sshd_pids
from tests.integration.cli_helpers import SMALL, sshbench


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict[str, Any],
                                                                    Path, set[int], set[str]]:
    out = tmp_path_factory.mktemp("run") / "r.json"
    before_pids, before_dirs = sshd_pids(), sshbench_temp_dirs()
    done = sshbench(*SMALL, "--size", "4MiB", "--output", str(out))
    data = json.loads(out.read_text()) if out.exists() else {}
    return done, data, out, before_pids, before_dirs
