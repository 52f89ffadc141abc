"""A run as a user at a 100- and a 60-column terminal sees it: what happens before the first sample, a progress
line that keeps its bar and counts, and tables that fit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.integration.terminal import in_terminal

pytestmark = pytest.mark.integration

RUN = ["--ciphers", "aes128-ctr,aes128-gcm@openssh.com", "--macs", "none", "--kex", "none", "--hostkeys", "none",
       "--runs", "3", "--size", "64MiB", "--no-controls"]


@pytest.mark.parametrize("columns", [100, 60])
def test_a_run_on_a_narrow_terminal(columns: int, tmp_path: Path) -> None:
    out, code = in_terminal(*RUN, "--output", str(tmp_path / "r.json"), columns=columns)
    assert code == ExitCode.OK, out[-2000:]
    frames = [f.strip() for f in re.split(r"[\r\n]", out) if f.strip()]
    assert any("starting the private openssh on 127.0.0.1" in f for f in frames), "no word before the first sample"
    progress = [f for f in frames if "ETA" in f]
    assert progress, "no progress line"
    assert all(re.search(r"\d+/\d+ ETA (\d+:\d\d|\?)", f) and "━" in f for f in progress), progress[:3]
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Ciphers, upload"))
    end = next(i for i, line in enumerate(lines) if line.startswith("Terrapin (CVE"))  # configs: verbatim
    tables = lines[start:end]
    assert max(len(line) for line in tables) <= columns
    assert any(re.search(r"aes128-(ctr|gcm@openssh\.com)\s+\S+\s+[\d,]+", line) for line in tables)
