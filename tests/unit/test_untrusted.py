"""The checks on text sshbench did not write, the typed loader, and the config builder's last line of defence."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.analysis.config.configtext import client_block, server_dropin, stored_if_consistent
from sshbench.analysis.config.recommend import build
from sshbench.measure.failures import DOOMED_AFTER
from sshbench.measure.runner import stop_if_doomed
from sshbench.results.codec import report_to_dict
from sshbench.results.environment import StoredRecommendation
from sshbench.results.model import Sample
from sshbench.results.schema import SchemaError
from sshbench.results.store import ResultsWriter, read_results
from sshbench.vocabulary import untrusted
from sshbench.vocabulary.errors import OutputError, RunStopped, UsageError
from sshbench.vocabulary.outputs import text_output
from tests.conftest import DATA, load_report


@given(st.text())
def test_cleaned_text_always_passes_the_check(raw: str) -> None:
    """What the writer keeps (cleaned) the loader always accepts: sshbench reads back what it writes."""
    cleaned = untrusted.clean(raw)
    assert untrusted.text(cleaned, "field") == cleaned
    assert untrusted.clean("x" * (untrusted.MAX_TEXT + 5)) == "x" * untrusted.MAX_TEXT


@given(st.text())
def test_accepted_text_has_no_line_break_or_escape(raw: str) -> None:
    try:
        checked = untrusted.text(raw, "field")
    except untrusted.UntrustedText:
        return
    assert not any(ch in checked for ch in "\n\r\x1b\x00\u2028\u202e")


@given(st.text())
def test_a_host_pattern_can_never_carry_config_syntax(raw: str) -> None:
    try:
        pattern = untrusted.host_pattern(raw, "--host")
    except untrusted.UntrustedText:
        return
    assert not any(ch.isspace() or ch in "\"'#!,=\\" for ch in pattern)


@pytest.mark.parametrize(("text", "parsed"), [
    ("web1", (None, "web1", None)),
    ("me@web1.example.org:2222", ("me", "web1.example.org", 2222)),
    ("[::1]:22", (None, "::1", 22)),
    ("root@192.0.2.7", ("root", "192.0.2.7", None)),
])
def test_destinations(text: str, parsed: tuple[str | None, str, int | None]) -> None:
    assert untrusted.destination(text) == parsed


@pytest.mark.parametrize("text", ["", "a b", "-oProxyCommand=x", "web1\nMatch exec x", 'w"1', "w'1", "x:0",
                                  "x:65536", "@web1", "me@", "[::1", "[::1]x", "wé1", "web1;id", "$(id)"])
def test_bad_destinations(text: str) -> None:
    with pytest.raises(untrusted.UntrustedText):
        untrusted.destination(text)


def test_client_block_refuses_a_pattern_that_would_add_lines() -> None:
    rec = build(load_report(), "modern", strict_both=True)
    for line in rec.lines:  # as if each change were proven (recommend.py leaves unproven ones out of the block)
        line.unproven = None
    with pytest.raises(untrusted.UntrustedText):
        client_block(rec, 'web1\nMatch exec "id"')
    assert client_block(rec, "web1.example.org").count("\nHost ") == 1


def test_comment_lines_cannot_break_out() -> None:
    report = load_report()
    report.environment.host.cpu_model = "EPYC\nMatch exec id"  # built in-process, never loaded
    text = server_dropin(build(report, "modern", strict_both=True)) or ""
    assert all(line.startswith("#") or line.split()[0] in ("Ciphers", "MACs", "KexAlgorithms", "HostKeyAlgorithms")
               for line in text.splitlines())


def test_the_stored_recommendation_is_shown_only_when_the_data_produce_it() -> None:
    report = load_report()
    assert stored_if_consistent(report) is None, "recorded by an older sshbench, whose text differs"
    rec = build(report)
    report.recommendation = StoredRecommendation("modern", client_block(rec), server_dropin(rec) or "")
    assert stored_if_consistent(report) is not None
    report.recommendation.client_block += "    ProxyCommand sh\n"
    assert stored_if_consistent(report) is None


def _results(tmp_path: Path, edit: Any) -> str:
    data = json.loads((DATA / "results-small.json").read_text())
    edit(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_the_loader_names_the_field(tmp_path: Path) -> None:
    def bad(data: dict[str, Any]) -> None:
        data["samples"][2]["negotiated"]["kex"] = {"not": "text"}

    with pytest.raises(UsageError, match=r"samples\[2\]\.negotiated\.kex must be text"):
        read_results(_results(tmp_path, bad))


def test_a_file_round_trips_through_the_loader(tmp_path: Path) -> None:
    report = load_report()
    path = tmp_path / "again.json"
    path.write_text(json.dumps(report_to_dict(report)))
    (again,) = read_results(str(path))
    assert report_to_dict(again) == report_to_dict(report)


def test_the_writer_never_writes_what_the_loader_refuses(tmp_path: Path) -> None:
    report = copy.deepcopy(load_report())
    report.samples[0].stderr_tail = ["remote motd \x1b[31mred\x1b[0m", "bidi \u202e here"]
    report.environment.host.cpu_mhz = float("nan")
    path = tmp_path / "w.json"
    path.write_text(json.dumps(report_to_dict(report)))
    (again,) = read_results(str(path))
    assert "\x1b" not in again.samples[0].stderr_tail[0] and again.environment.host.cpu_mhz is None


def test_schema_error_is_a_value_error() -> None:
    assert issubclass(SchemaError, ValueError)


def test_results_names_never_collide(tmp_path: Path) -> None:
    """Two writers in the same second and directory: two files, neither overwritten."""
    report = load_report()
    first, second = ResultsWriter(str(tmp_path)), ResultsWriter(str(tmp_path))
    assert first.json_path == second.json_path  # both picked the free name before either saved
    first.save(report)
    second.save(report)
    assert first.json_path != second.json_path
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(p) for p in (
        first.json_path, first.csv_path, second.json_path, second.csv_path))
    with pytest.raises(OutputError, match="never overwrites results"):
        ResultsWriter(first.json_path)


def test_text_outputs_refuse_inputs_and_results(tmp_path: Path) -> None:
    source = tmp_path / "in.json"
    source.write_bytes((DATA / "results-small.json").read_bytes())
    with pytest.raises(OutputError, match="is an input"):
        text_output(str(source), "--html", "report.html", [str(source)])
    with pytest.raises(OutputError, match="is an sshbench results file"):
        text_output(str(source), "--markdown", "report.md")
    assert text_output(str(tmp_path), "--html", "report.html").path == str(tmp_path / "report.html")
    assert text_output("-", "--markdown", "report.md").is_stdout


def _failed(case: str, error: str, tail: list[str] | None = None) -> Sample:
    return Sample(case_id=case, round=1, warmup=False, ok=False, started_at="t", size_bytes=1, error=error,
                  stderr_tail=tail or [])


def test_a_full_disk_stops_the_run_at_once() -> None:
    with pytest.raises(OutputError, match="No space left on device"):
        stop_if_doomed([_failed("a", "scp exited with status 1", ["scp: write: No space left on device"])])


def test_the_same_failure_across_cases_stops_the_run() -> None:
    same = [_failed(f"case{i % 3}", "ssh exited with status 255") for i in range(DOOMED_AFTER)]
    stop_if_doomed(same[:-1])  # one short: not yet
    stop_if_doomed([_failed("only-one-case", "timed out after 60s")] * DOOMED_AFTER)  # one case: its problem
    with pytest.raises(RunStopped, match="all failed with: ssh exited with status 255"):
        stop_if_doomed(same)
