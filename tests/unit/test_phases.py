"""Where a connection's set-up goes: recorded real runs (loopback; an emulated rtt=20ms link) split into phases at
ssh -v's own marks, each connection's phases summing exactly to its set-up time."""

from __future__ import annotations

import dataclasses
import gzip
import json
from importlib import resources
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs
import pytest

from sshbench.analysis.conclude import conclude
from sshbench.analysis.connections.phases import PHASES, PhaseName, phase_splits, split
from sshbench.analysis.stats.stats import counted
from sshbench.render.jsondoc import report_document
from sshbench.render.phases import phase_table
from sshbench.render.table_model import Table, plain
from sshbench.results.model import Report
from sshbench.results.store import read_results
from sshbench.vocabulary.case_terms import Direction

DATA = Path(__file__).resolve().parents[1] / "data"


def _report(name: str, tmp_path: Path) -> Report:
    path = DATA / name
    if name.endswith(".gz"):
        plain = tmp_path / name.removesuffix(".gz")
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        path = plain
    return read_results(str(path))[0]


def _text(table: Table | None) -> str:
    assert table is not None
    return " | ".join(plain(c) for row in table.rows for c in row.cells)


@pytest.mark.parametrize("name", ["results-small.json", "results-rtt20-setup-phases.json.gz"])
def test_every_set_up_connection_splits_into_phases_that_sum_to_its_set_up_time(name: str, tmp_path: Path) -> None:
    report = _report(name, tmp_path)
    setups = [s for v in report.joined().values() if v.case.direction is Direction.SETUP for s in counted(v.samples)]
    assert setups
    for sample in setups:
        parts = split(sample)
        assert parts is not None and [p.name for p in parts] == [name for name, _, _ in PHASES if name != "exit"]
        assert sum(p.seconds for p in parts) == pytest.approx(sample.setup_seconds, abs=1e-9)
        assert all(p.seconds >= 0 for p in parts)


def test_a_case_is_shown_by_its_median_connection_and_a_link_in_round_trips(tmp_path: Path) -> None:
    report = _report("results-rtt20-setup-phases.json.gz", tmp_path)
    found = {f.case_id: f for f in phase_splits(report)}
    slow = found["kex:sntrup761x25519-sha512:setup@rtt=20ms"]
    totals = sorted(s.setup_seconds or 0 for s in counted(report.samples_of(slow.case_id)))
    assert slow.total == totals[(len(totals) - 1) // 2] and slow.counted == len(totals)
    assert slow.rtt is not None and 0.019 < slow.rtt < 0.03  # the link's measured round trip
    text = _text(phase_table(report, conclude(report)))
    assert "RTT)" in text and "kex sntrup761x25519-sha512" in text


def test_a_missing_mark_joins_its_phase_to_the_next_and_marks_out_of_order_give_no_split(tmp_path: Path) -> None:
    report = _report("results-small.json", tmp_path)
    sample = next(s for s in counted(report.samples) if s.phases and s.setup_seconds)
    phases = dict(sample.phases)
    del phases["banner_received"]
    parts = split(dataclasses.replace(sample, phases=phases))
    assert parts is not None and parts[0].name == "start" and parts[1].name == "version+kex"
    assert parts[1].names == (PhaseName.VERSION, PhaseName.KEX) and parts[1].last is PhaseName.KEX
    assert parts[1].words == "version exchange + key exchange and host key check"
    assert sum(p.seconds for p in parts) == pytest.approx(sample.setup_seconds, abs=1e-9)
    backwards = {**sample.phases, "authenticated": sample.phases["banner_sent"] / 2}
    assert split(dataclasses.replace(sample, phases=backwards)) is None


def test_loopback_shows_milliseconds_without_round_trips(tmp_path: Path) -> None:
    report = _report("results-small.json", tmp_path)
    text = _text(phase_table(report, conclude(report)))
    assert "RTT)" not in text and "kex curve25519-sha256" in text


def test_report_json_carries_each_split_and_its_schema_says_so(tmp_path: Path) -> None:
    report = _report("results-rtt20-setup-phases.json.gz", tmp_path)
    document = json.loads(report_document([conclude(report)]))
    schema = json.loads(resources.files("sshbench.schemas").joinpath("report.schema.json").read_text())
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
    found = document["runs"][0]["setup_phases"]
    assert {f["case_id"] for f in found} == {f.case_id for f in phase_splits(report)}
    for entry in found:
        assert sum(p["seconds"] for p in entry["phases"]) == pytest.approx(entry["total_seconds"], abs=1e-9)
        assert 0.019 < entry["rtt_seconds"] < 0.03
