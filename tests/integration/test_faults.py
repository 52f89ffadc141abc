"""Faults in the middle of a run that doom every later sample: the run stops at once, says why, keeps its data.

The faults are real: a small tmpfs, in a mount namespace of the test's own
(`unshare --mount`, root only), that fills up or is remounted read-only
while sshbench writes to it. Nothing outside the namespace is touched, and
the mount disappears with it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.conftest import leftovers

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                                 reason="needs root and unshare for a private tmpfs")]

ONE_CIPHER = ["--ciphers", "aes128-ctr", "--macs", "none", "--kex", "none", "--hostkeys", "none",
              "--directions", "upload", "--no-controls"]

# Runs sshbench in the background with its output or workdir on a private tmpfs ($1), waits for the first
# sample in the results file ($2), breaks the tmpfs ($3: a shell command), and waits for sshbench.
_HARNESS = """
set -u
mnt=$1 results=$2 fault=$3; shift 3
mount -t tmpfs -o size=200m sshbench-test "$mnt" || exit 99
"$@" & pid=$!
i=0
until grep -q '"round": 1' "$results" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 1200 ] && { kill $pid; exit 98; }
    kill -0 $pid 2>/dev/null || break
    sleep 0.05
done
sh -c "$fault"
wait $pid
"""


def _run_with_fault(mnt: Path, results: Path, fault: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", _HARNESS, "harness",
                           str(mnt), str(results), fault, sys.executable, "-m", "sshbench", *args],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "TMPDIR": tempfile.gettempdir()})


def _one_line(done: subprocess.CompletedProcess[str], code: int) -> str:
    assert done.returncode == code, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sshbench: error: ") and "Traceback" not in done.stderr, lines
    return lines[0]


def test_results_directory_turned_read_only(tmp_path: Path) -> None:
    mnt = tmp_path / "results"
    mnt.mkdir()
    done = _run_with_fault(mnt, mnt / "r.json", f"mount -o remount,ro {mnt}", *ONE_CIPHER, "--size", "32MiB",
                           "--runs", "200", "--output", str(mnt / "r.json"))
    line = _one_line(done, ExitCode.OUTPUT)
    assert "Read-only file system" in line and "--output" in line, line
    kept = line.rsplit("results so far kept in ", 1)[1]
    assert kept.startswith(tempfile.gettempdir()), "the tmpfs is read-only: a rescue copy is the only way"
    data = json.loads(Path(kept).read_text())
    assert data["status"] == "failed" and data["samples"], data["status"]
    assert not leftovers(tempfile.gettempdir())


def test_workdir_disk_fills_during_file_transfers(tmp_path: Path) -> None:
    mnt = tmp_path / "work"
    mnt.mkdir()
    results = tmp_path / "r.json"
    done = _run_with_fault(mnt, results, f"dd if=/dev/zero of={mnt}/filler bs=1M 2>/dev/null; true", *ONE_CIPHER,
                           "--method", "scp", "--size", "64MiB", "--runs", "30", "--workdir", str(mnt),
                           "--output", str(results))
    line = _one_line(done, ExitCode.OUTPUT)
    assert "No space left on device" in line and "--workdir" in line, line
    data = json.loads(results.read_text())
    assert data["status"] == "failed" and "No space left on device" in data["error"]
    failed = [s for s in data["samples"] if not s["ok"]]
    assert len(failed) <= 2, "the run went on with samples that could only fail"
    assert f"results so far kept in {results}" in line
    assert not leftovers(tempfile.gettempdir())


def test_workdir_on_a_read_only_filesystem(tmp_path: Path) -> None:
    mnt = tmp_path / "ro"
    mnt.mkdir()
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           'mount -t tmpfs -o ro,size=10m sshbench-test "$1" || exit 99; shift; exec "$@"', "ro",
                           str(mnt), sys.executable, "-m", "sshbench", *ONE_CIPHER, "--method", "scp", "--size",
                           "1MiB", "--runs", "1", "--workdir", str(mnt), "--output", str(tmp_path / "r.json")],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "TMPDIR": tempfile.gettempdir()})
    line = _one_line(done, ExitCode.OUTPUT)
    assert f"--workdir {mnt}" in line and "Read-only file system" in line, line
    assert not (tmp_path / "r.json").exists() or json.loads((tmp_path / "r.json").read_text())["status"] == "failed"
    assert not leftovers(tempfile.gettempdir())
