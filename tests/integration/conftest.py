"""Fixtures shared by the integration tests: one small real sweep, run once per session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import leftovers, temp_entries
from tests.integration.cli_helpers import SMALL, sshbench
from tests.integration.processes import NOBODY

SmallRun = tuple[subprocess.CompletedProcess[str], dict[str, Any], Path, set[int], set[str]]


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> SmallRun:
    """The run, its results, their path, and what it left in its own TMPDIR: processes and entries."""
    out = tmp_path_factory.mktemp("run") / "r.json"
    tmpdir = tmp_path_factory.mktemp("run-tmp")
    done = sshbench(*SMALL, "--size", "4MiB", "--output", str(out), tmpdir=tmpdir)
    data = json.loads(out.read_text()) if out.exists() else {}
    return done, data, out, leftovers(str(tmpdir)), temp_entries(tmpdir)


ROOT = Path(__file__).resolve().parents[2]
SOURCES = Path(os.environ.get("SSHBENCH_SOURCES") or ROOT.parent / "shared" / "sources")
BUILDS = ("hpn-ssh-18.8.0", "openssh-10.2p1")


@pytest.fixture(scope="session")
def builds() -> Path:
    """OpenSSH 10.2p1 and HPN-SSH 18.8.0, made (or found cached) by the project's own build script from the
    tarballs in ../shared/sources (or $SSHBENCH_SOURCES); a clone without them skips, saying so."""
    tarballs = [SOURCES / f"{name}.tar.gz" for name in BUILDS]
    if not all(t.is_file() for t in tarballs):
        pytest.skip(f"no source tarballs in {SOURCES} (set SSHBENCH_SOURCES): the build tests need them")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "ssh_builds.py"), *map(str, tarballs)],
                          capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr
    return Path(sys.prefix) / "opt" / "builds"


@pytest.fixture
def nobody_tmp() -> Iterator[Path]:
    """A directory of this test's own that user nobody owns and can reach: pytest's base (root's, mode 0700) is one
    nobody cannot traverse, so it is made in the system's temp dir instead, and removed after."""
    path = Path(tempfile.mkdtemp(prefix="sshbench-test-nobody-", dir="/tmp"))
    os.chown(path, NOBODY, NOBODY)
    yield path
    shutil.rmtree(path, ignore_errors=True)
