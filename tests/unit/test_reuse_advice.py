"""Connection reuse in a recommendation (analysis/reuse_advice.py): written only where reusing was measured faster
for every short command, and only where the socket can be made (a ControlPath ssh cannot bind fails every login)."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from pathlib import Path

from sshbench.analysis.reuse_advice import LINES, ReuseAdvice, reuse_advice
from sshbench.results.codec import report_from_dict
from sshbench.results.model import Report

DATA = Path(__file__).resolve().parents[1] / "data"


def _report() -> Report:
    """A recorded loopback run (AMD EPYC, 2 vCPUs): ssh HOST true fresh and through sshbench's ControlMaster."""
    return report_from_dict(json.loads(gzip.decompress((DATA / "results-commands-reuse.json.gz").read_bytes())))


def test_proven_faster_and_a_writable_ssh_dir_writes_the_three_lines_with_the_caveat() -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as home:  # a home as short as a real one (pytest's are long)
        os.mkdir(os.path.join(home, ".ssh"), 0o700)
        advice = reuse_advice(_report(), home=home)
    assert advice.lines == LINES == ("ControlMaster auto", "ControlPath ~/.ssh/cm-%C", "ControlPersist 60s")
    (note,) = advice.notes
    assert "measured faster" in note and "a login for whoever can reach it" in note and "Ansible" in note


def test_no_ssh_dir_writes_nothing_and_says_why(tmp_path: Path) -> None:
    advice = reuse_advice(_report(), home=str(tmp_path))
    assert advice.lines == () and "not a directory this user can write" in advice.notes[0]


def test_a_home_too_long_for_a_unix_socket_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / ("h" * 60)
    (home / ".ssh").mkdir(parents=True)
    advice = reuse_advice(_report(), home=str(home))
    assert advice.lines == () and "too long for a Unix socket" in advice.notes[0]


def test_a_run_without_reuse_says_nothing() -> None:
    report = _report()
    report.cases = [r for r in report.cases if "+reused" not in r.case.id]
    report.summaries = [s for s in report.summaries if "+reused" not in s.case_id]
    report.samples = [s for s in report.samples if "+reused" not in s.case_id]
    assert reuse_advice(report) == ReuseAdvice()
