"""Short commands (--commands) end to end against the embedded OpenSSH server: each command run over a fresh
connection from ssh's start to its exit, its output checked, its phases summing to its figure, shown in the
terminal and in `report --json`; a name sshbench does not know is one clean line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sshbench.analysis.phases import split
from sshbench.results.store import read_results
from tests.integration.cli_helpers import sshbench
from tests.integration.test_hostile import assert_one_clean_line

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    cwd = tmp_path_factory.mktemp("commands")
    done = sshbench("--commands", "all", "--setup-runs", "3", "--runs", "1", "--output", str(cwd / "r.json"),
                    cwd=cwd, tmpdir=cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    return cwd / "r.json", done.stdout


def test_each_command_is_its_own_case_and_nothing_else_is_measured(run: tuple[Path, str]) -> None:
    path, _ = run
    data = json.loads(path.read_text())
    ids = [r["case"]["id"] for r in data["cases"]]
    assert ids == ["command:true:setup", "command:output:setup", "command:input:setup"]  # --commands alone
    assert data["options"]["commands"] == ["true", "output", "input"]
    assert {s["group"] for s in data["summaries"]} == {f"command:{n}:setup" for n in ("true", "output", "input")}


def test_every_sample_runs_its_command_to_the_exit_and_its_phases_sum_to_that(run: tuple[Path, str]) -> None:
    path, _ = run
    (report,) = read_results(str(path))
    samples = [s for s in report.samples if not s.warmup]
    assert len(samples) == 9 and all(s.ok for s in samples), [s.error for s in samples]
    for sample in samples:
        assert sample.command_seconds is not None and sample.setup_seconds is not None
        assert 0 < sample.setup_seconds < sample.command_seconds <= (sample.total_seconds or 0)
        parts = split(sample)
        assert parts is not None and parts[-1].name == "exit"
        assert sum(p.seconds for p in parts) == pytest.approx(sample.command_seconds, abs=1e-9)
        assert sample.negotiated is not None and sample.negotiated.kex  # the client's own choice, proven
        assert sample.server_cpu_user_seconds is not None  # its server process, matched by our port
    outputs = {s.case_id: s.bytes_received for s in samples}
    assert outputs["command:output:setup"] == 16 * 1024 and outputs["command:true:setup"] == 0


def test_the_terminal_and_report_json_show_the_time_to_exit_and_where_it_went(run: tuple[Path, str]) -> None:
    path, stdout = run
    assert "Short commands: ssh started to ssh exited" in stdout
    assert "ssh HOST true: the connection alone" in stdout and "exit" in stdout
    done = sshbench("report", str(path), "--json", cwd=path.parent, tmpdir=path.parent)
    assert done.returncode == 0, done.stderr
    (found,) = json.loads(done.stdout)["runs"]
    phases = {p["case_id"]: p for p in found["setup_phases"]}
    true = phases["command:true:setup"]
    assert [p["name"] for p in true["phases"]][-1] == "exit"
    assert sum(p["seconds"] for p in true["phases"]) == pytest.approx(true["total_seconds"], abs=1e-9)


def test_a_command_sshbench_does_not_know_is_one_clean_line(tmp_path: Path) -> None:
    done = sshbench("--commands", "true,rm -rf", cwd=tmp_path, tmpdir=tmp_path)
    assert_one_clean_line(done, 2, "--commands rm -rf: not a short command sshbench knows")
