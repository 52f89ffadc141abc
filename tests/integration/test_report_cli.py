"""report, compare and the script-friendly output modes, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.conftest import DATA
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration

RESULTS = str(DATA / "results-small.json")


def test_report_rerenders_everything_from_the_file_alone(tmp_path: Path) -> None:
    done = sshbench("report", RESULTS, "--html", str(tmp_path / "r.html"), "--markdown", str(tmp_path / "r.md"),
                    "--charts", str(tmp_path / "charts"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.md").read_text() == (DATA / "golden" / "results-small.md").read_text()
    assert "<svg" in (tmp_path / "r.html").read_text()
    charts = sorted(p.name for p in (tmp_path / "charts").iterdir())
    assert len(charts) == 16 and "ciphers-throughput.png" in charts and "kex-handshake.svg" in charts
    assert "answer.png" in charts and "answer.svg" in charts  # the chart the HTML report opens with
    assert "phases.svg" in charts  # where the set-up time goes, drawn
    terminal = sshbench("report", RESULTS)
    assert terminal.returncode == 0 and "Ciphers, upload" in terminal.stdout and "!! broken" in terminal.stdout


def test_report_markdown_to_stdout() -> None:
    done = sshbench("report", RESULTS, "--markdown", "-")
    assert done.returncode == 0 and done.stdout.startswith("## sshbench results")


def _only(cases: tuple[str, ...], path: Path, slower: str | None = None) -> str:
    """The recorded run cut down to these cases (one of them made half as fast), written to `path`."""
    data = json.loads(Path(RESULTS).read_text())
    data["cases"] = [c for c in data["cases"] if c["case"]["id"] in cases]
    data["samples"] = [s for s in data["samples"] if s["case_id"] in cases]
    data["summaries"] = [s for s in data["summaries"] if s["case_id"] in cases]
    for sample in data["samples"]:
        if sample["case_id"] == slower and sample["data_seconds"]:
            sample["data_seconds"] /= 0.5
    path.write_text(json.dumps(data))
    return str(path)


THREE = ("cipher:aes128-gcm@openssh.com:upload", "cipher:aes128-ctr:upload", "cipher:3des-cbc:upload")


def test_compare_a_run_with_itself_finds_no_change(tmp_path: Path) -> None:
    base = _only(THREE, tmp_path / "base.json")
    done = sshbench("compare", base, base, "--fail-above", "5%")
    assert done.returncode == ExitCode.OK, done.stderr
    assert done.stdout.count("no significant change") == 3 and "Bonferroni over the 3" in done.stdout


def test_compare_says_when_the_samples_are_too_few_to_detect_anything() -> None:
    """All 25 cases of the recorded run at 6 samples each: after the correction no change could be significant."""
    done = sshbench("compare", RESULTS, RESULTS, "--fail-above", "5%")
    assert done.returncode == ExitCode.OK, done.stderr
    assert "too few samples to detect any change" in done.stdout and "no significant change" not in done.stdout
    assert "for any change to reach significance after the correction" in done.stdout


def test_compare_flags_a_regression_for_ci(tmp_path: Path) -> None:
    base = _only(THREE, tmp_path / "base.json")
    slower = _only(THREE, tmp_path / "slower.json", slower=THREE[0])  # the same run, half as fast for one cipher
    done = sshbench("compare", base, slower, "--fail-above", "5%")
    assert done.returncode == ExitCode.REGRESSION, done.stdout
    line = next(ln for ln in done.stdout.splitlines() if ln.strip().startswith(THREE[0]))
    assert "REGRESSION" in line and "-50.0%" in line
    why = next(ln for ln in done.stdout.splitlines() if ln.startswith("regression: "))
    assert THREE[0] in why and "Bonferroni over 3 cases" in why and "beyond --fail-above 5%" in why


def test_compare_normalized_by_tcp() -> None:
    done = sshbench("compare", RESULTS, RESULTS, "--normalize", "tcp")
    assert done.returncode == 0 and "divided by its tcp" in done.stdout


def test_compare_needs_two_files_and_a_known_reference() -> None:
    assert sshbench("compare", RESULTS).returncode == ExitCode.USAGE
    done = sshbench("compare", RESULTS, RESULTS, "--normalize", "aes999-imaginary")
    assert done.returncode == ExitCode.USAGE and "cannot normalise" in done.stderr


def _last_event_is_the_report(stdout: str, results: Path) -> dict[str, Any]:
    """The last --jsonl line is `finished`, and its "report" is exactly what `report --json` prints of the results
    file the run wrote: no field left out or allowed to differ (the run's in-memory records and the file read
    back give the same document, floats included, since the file keeps every digit)."""
    last = json.loads(stdout.splitlines()[-1])
    printed = sshbench("report", str(results), "--json")
    assert printed.returncode == 0, printed.stderr
    assert last["event"] == "finished" and last["report"] == json.loads(printed.stdout)
    document: dict[str, Any] = last["report"]
    assert document["schema"] == "sshbench/report" and isinstance(document["schema_version"], int)
    return document


def test_jsonl_and_quiet_modes(tmp_path: Path) -> None:
    args = ["--ciphers", "aes128-ctr", "--directions", "upload", "--macs", "none", "--kex", "none", "--hostkeys",
            "none", "--runs", "2", "--size", "4MiB", "--no-controls"]
    done = sshbench(*args, "--jsonl", "--output", str(tmp_path / "j.json"))
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["event"] == "started" and events[-1]["event"] == "finished"
    kinds = [e["event"] for e in events[1:-1]]
    assert kinds[:3] == ["sample"] * 3 and kinds[3] == "summary" and kinds[-1] == "answer"
    assert set(kinds[3:-1]) <= {"summary", "warning"}
    assert next(e for e in events if e["event"] == "summary")["case_id"] == "cipher:aes128-ctr:upload"
    answer = next(e for e in events if e["event"] == "answer")["answer"]
    assert answer[0]["cipher"] == "aes128-ctr" and answer[0]["direction"] == "upload"
    assert events[-1]["results"] == str(tmp_path / "j.json")
    assert _last_event_is_the_report(done.stdout, tmp_path / "j.json")["runs"][0]["answer"] == answer
    decided = sshbench("--ciphers", "aes128-gcm@openssh.com,3des-cbc", "--directions", "upload", "--macs", "none",
                       "--kex", "none", "--hostkeys", "none", "--no-controls", "--time-budget", "1m", "--jsonl",
                       "--output", str(tmp_path / "d.json"))
    settled = [json.loads(line) for line in decided.stdout.splitlines() if '"settled"' in line]
    assert decided.returncode == 0 and settled, decided.stderr  # 3des-cbc is many times slower: it settles
    assert settled[0]["case_id"] == "cipher:3des-cbc:upload" and settled[0]["relation"] == "different"
    (run,) = _last_event_is_the_report(decided.stdout, tmp_path / "d.json")["runs"]  # a run that ranked two
    said = next(e for e in map(json.loads, decided.stdout.splitlines()) if e["event"] == "answer")
    assert run["answer"] == said["answer"] and run["answer"][0]["cipher"] == "aes128-gcm@openssh.com"
    quiet = sshbench(*args, "--quiet", "--output", str(tmp_path / "q.json"))
    assert quiet.returncode == 0 and quiet.stdout.strip() == str(tmp_path / "q.json") and quiet.stderr == ""
