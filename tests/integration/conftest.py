"""Fixtures shared by the integration tests: one small real sweep, run once per session."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Built:
    path: Path  # the builds' parent dir (each build one prefix in it)
    run_entries: list[str] | None  # what the build put in /run (it ran on an empty one of its own); None: not root


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """OpenSSH 10.2p1 and HPN-SSH 18.8.0, made (or found cached) by the project's own build script from the
    tarballs in ../shared/sources (or $SSHBENCH_SOURCES); a clone without them skips, saying so. As root the script
    runs in a mount namespace of its own with an empty tmpfs on /run, and what it left there is returned: `make
    install` of OpenSSH makes its privilege-separation dir, /run/sshd, and a build must touch no system path."""
    tarballs = [SOURCES / f"{name}.tar.gz" for name in BUILDS]
    if not all(t.is_file() for t in tarballs):
        pytest.skip(f"no source tarballs in {SOURCES} (set SSHBENCH_SOURCES): the build tests need them")
    argv = [sys.executable, str(ROOT / "scripts" / "ssh_builds.py"), *map(str, tarballs)]
    listing = tmp_path_factory.mktemp("builds") / "run-entries"
    isolated = os.geteuid() == 0 and shutil.which("unshare") is not None
    if isolated:
        argv = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                'mount -t tmpfs sshbench-builds /run || exit 97; "$@"; rc=$?; ls -A /run > "$LISTING"; exit $rc',
                "sh", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1800, check=False,
                          env={**os.environ, "LISTING": str(listing)})
    assert done.returncode == 0, done.stderr
    return Built(Path(sys.prefix) / "opt" / "builds", listing.read_text().split() if isolated else None)


@pytest.fixture(scope="session")
def builds(built: Built) -> Path:
    """Where the builds are (see `built`)."""
    return built.path


@pytest.fixture
def nobody_tmp() -> Iterator[Path]:
    """A directory of this test's own that user nobody owns and can reach: pytest's base (root's, mode 0700) is one
    nobody cannot traverse, so it is made in the system's temp dir instead, and removed after."""
    path = Path(tempfile.mkdtemp(prefix="sshbench-test-nobody-", dir="/tmp"))
    os.chown(path, NOBODY, NOBODY)
    yield path
    shutil.rmtree(path, ignore_errors=True)
