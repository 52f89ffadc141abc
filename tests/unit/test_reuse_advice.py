"""Connection reuse in a recommendation (analysis/config/reuse_advice.py): written where reusing was measured faster for
every short command; left out, with why and what to do, only where the machine the config is written on cannot
make the socket (a ControlPath ssh cannot bind fails every login): a fact found there (orchestrate/validate.py),
never read by analysis."""

from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
from pathlib import Path

import pytest

from sshbench.analysis.conclude import conclude
from sshbench.analysis.config.configtext import client_block, server_dropin, stored_if_consistent
from sshbench.analysis.config.recommend import build
from sshbench.analysis.config.reuse_advice import ControlDir, ReuseAdvice, reuse_advice
from sshbench.orchestrate.validate import control_dir
from sshbench.render.commands import HOWTO, command_answer_lines
from sshbench.results.codec import report_from_dict
from sshbench.results.environment import StoredRecommendation
from sshbench.results.model import Report
from sshbench.vocabulary.commands import CONTROL_LINES, CONTROL_PATH

DATA = Path(__file__).resolve().parents[1] / "data"
ANALYSIS = Path(__file__).resolve().parents[2] / "src" / "sshbench" / "analysis"


def _report() -> Report:
    """A recorded loopback run (AMD EPYC, 2 vCPUs): ssh HOST true fresh and through sshbench's ControlMaster."""
    return report_from_dict(json.loads(gzip.decompress((DATA / "results-commands-reuse.json.gz").read_bytes())))


def test_proven_faster_writes_the_three_lines_with_the_caveat() -> None:
    advice = reuse_advice(_report())
    assert advice.lines == CONTROL_LINES == ("ControlMaster auto", "ControlPath ~/.ssh/cm-%C", "ControlPersist 60s")
    (note,) = advice.notes
    assert "measured faster" in note and "a login for whoever can reach it" in note and "Ansible" in note


def test_the_answer_and_the_config_give_the_same_control_path() -> None:
    report = _report()
    block = client_block(build(report))
    (config_line,) = [ln.strip() for ln in block.splitlines() if ln.strip().startswith("ControlPath ")]
    assert config_line == f"ControlPath {CONTROL_PATH}"
    assert command_answer_lines(conclude(report))[-1] == HOWTO
    assert re.findall(r"ControlPath [^,; ]+", HOWTO) == [config_line]
    assert all(line in HOWTO for line in CONTROL_LINES) and "mkdir" not in HOWTO


def test_a_report_analysed_where_home_does_not_exist_still_gets_the_lines(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "nowhere"))
    assert build(_report()).reuse == CONTROL_LINES


def test_the_write_time_check_leaves_them_out_where_there_is_no_ssh_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as short:  # short enough for the socket: only ~/.ssh is missing
        monkeypatch.setenv("HOME", os.path.join(short, "nowhere"))
        control = control_dir()
    assert control == ControlDir(writable=False, fits=True)
    rec = build(_report(), control=control)
    block = client_block(rec)
    assert rec.reuse == () and "ControlMaster auto" not in block and "\n    ControlPath" not in block
    (note,) = [n for n in rec.notes if n.startswith("ControlMaster")]
    assert "not a directory this user can write" in note and "mkdir -m 700 ~/.ssh" in note and note in block


def test_a_writable_short_ssh_dir_passes_the_write_time_check() -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as home:  # a home as short as a real one (pytest's are long)
        os.mkdir(os.path.join(home, ".ssh"), 0o700)
        control = control_dir(home)
    assert control == ControlDir() and build(_report(), control=control).reuse == CONTROL_LINES


def test_a_home_too_long_for_a_unix_socket_leaves_them_out(tmp_path: Path) -> None:
    home = tmp_path / ("h" * 60)
    (home / ".ssh").mkdir(parents=True)
    control = control_dir(str(home))
    assert control == ControlDir(writable=True, fits=False)
    advice = reuse_advice(_report(), control)
    assert advice.lines == () and "too long for a Unix socket" in advice.notes[0]


def test_a_run_without_reuse_says_nothing() -> None:
    report = _report()
    report.cases = [r for r in report.cases if "+reused" not in r.case.id]
    report.summaries = [s for s in report.summaries if "+reused" not in s.case_id]
    report.samples = [s for s in report.samples if "+reused" not in s.case_id]
    assert reuse_advice(report) == ReuseAdvice() == reuse_advice(report, ControlDir(writable=False))


def test_a_run_stored_without_the_lines_still_shows_its_recommendation() -> None:
    """The run's machine had no usable ~/.ssh: the text it kept is one its data produce, and is shown anywhere."""
    report = _report()
    for control in (ControlDir(writable=False), ControlDir(fits=False), None):
        rec = build(report, control=control)
        report.recommendation = StoredRecommendation("modern", client_block(rec), server_dropin(rec) or "")
        assert stored_if_consistent(report) is not None
    assert report.recommendation is not None
    report.recommendation.client_block += "    ControlPath /tmp/%C\n"
    assert stored_if_consistent(report) is None


def test_analysis_never_reads_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether ~/.ssh is usable is the writing machine's fact (orchestrate/validate.control_dir), given to analysis."""
    reads = r"expanduser|expandvars|os\.path\.isdir|os\.access|Path\.home|os\.environ|getenv"
    offenders = [f"{p.name}: {m.group()}" for p in sorted(ANALYSIS.rglob("*.py"))
                 for m in re.finditer(reads, p.read_text(encoding="utf-8"))]
    assert offenders == [], f"analysis/ reads the machine: {offenders}"

    def refuse(*_: object) -> None:
        raise AssertionError("analysis read the machine")
    for name in ("expanduser", "isdir", "exists"):
        monkeypatch.setattr(os.path, name, refuse)
    monkeypatch.setattr(os, "access", refuse)
    assert build(_report()).reuse == CONTROL_LINES
