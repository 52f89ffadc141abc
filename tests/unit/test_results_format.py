"""The results file's format: today's (schema 8) round-trips, older ones (schemas 3 to 7) still load and render."""

from __future__ import annotations

import csv
import io
import json

from sshbench.analysis.conclude import conclude, conclude_fleet
from sshbench.render import summary_csv
from sshbench.render.chartbook import ChartBook
from sshbench.render.exporters import EXPORTERS, DirectoryExporter, FileExporter
from sshbench.results.codec import report_to_dict, results_from_dict, results_to_dict
from sshbench.results.environment import ServerKind
from sshbench.results.legacy import upgrade
from sshbench.results.model import SCHEMA_VERSION
from sshbench.results.store import read_results
from tests.conftest import DATA


def test_schema_3_files_load_with_their_server_facts_typed() -> None:
    (embedded,) = read_results(str(DATA / "results-small.json"))  # written by sshbench before the typed model
    server = embedded.environment.server
    assert server.kind is ServerKind.EMBEDDED and server.embedded is not None and server.remote is None
    assert server.embedded.server == "openssh" and server.embedded.listen.startswith("127.0.0.1:")
    assert embedded.options.warmup_bytes == 64 * 2**20  # was probe_bytes
    alpha, beta = read_results(str(DATA / "results-hosts.json"))
    assert alpha.label == "alpha" and beta.label == "beta.example"
    assert alpha.environment.server.kind is ServerKind.REMOTE and alpha.environment.server.remote is not None
    iperf = alpha.environment.server.iperf
    assert iperf is not None and iperf.rate("upload") and iperf.rate("download")


def test_upgrade_moves_the_flat_server_facts_and_leaves_other_input_alone() -> None:
    old = json.loads((DATA / "results-small.json").read_text())
    new = upgrade(old)
    assert isinstance(new, dict) and new["schema_version"] == SCHEMA_VERSION
    assert new["environment"]["server"]["kind"] == "embedded" and "path" in new["environment"]["server"]["embedded"]
    assert old["schema_version"] == 3, "the input is not changed in place"
    for other in ([1, 2], "x", None, {"schema_version": 2}, {"schema_version": 18}):
        assert upgrade(other) == other
    # schemas 4 to 6 and 8 to 16 only lack what later ones added: the same document, relabelled (15's reasons
    # gain their kinds: tests/unit/test_typed_reasons.py)
    for old in (4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16):
        assert upgrade({"schema": "sshbench/run", "schema_version": old, "seed": 1}) == {
            "schema": "sshbench/run", "schema_version": 17, "seed": 1}
    hosts = upgrade({"schema": "sshbench/hosts", "schema_version": 5, "runs": [{"schema_version": 5}, 3]})
    assert hosts == {"schema": "sshbench/hosts", "schema_version": 17, "runs": [{"schema_version": 17}, 3]}


def test_a_schema_9_run_s_sftp_sweeps_become_the_sftp_method_s_knobs() -> None:
    (plain,) = read_results(str(DATA / "results-small.json"))
    data = json.loads(json.dumps(report_to_dict(plain)))
    data["schema_version"] = 9
    options = data["options"]
    options.pop("knobs")
    options["methods"] = ["pipe", "sftp"]
    options["sftp_buffers"], options["sftp_requests"] = [32768, 131072], []
    (old,) = results_from_dict(data)
    assert old.options.knobs == (("sftp_buffers", (32768, 131072)),)


def test_a_schema_7_run_with_compression_on_becomes_ssh_compressed_cases_with_their_ids_renamed() -> None:
    (plain,) = read_results(str(DATA / "results-small.json"))
    data = json.loads(json.dumps(report_to_dict(plain)))
    data["schema_version"] = 7
    data["options"]["compression"] = True  # as schema 7 wrote a --compression run
    for record in data["cases"]:
        record["case"].pop("compression", None)
        record["case"].pop("streams", None)
    (old,) = results_from_dict(data)
    assert old.options.compression == ("ssh",)
    moved = [r.case for r in old.cases if r.case.kind.value in ("cipher", "mac")]
    assert moved and all(c.compression == "ssh" and c.id.endswith("~ssh") for c in moved)
    assert {s.case_id for s in old.samples} <= {r.case.id for r in old.cases}
    assert all(s.group == old.case(s.case_id).case.group for s in old.summaries)
    assert all(c.compression == "off" for r in old.cases if (c := r.case).kind.value not in ("cipher", "mac"))
    data["options"]["compression"] = False
    (off,) = results_from_dict(data)
    assert off.options.compression == ("off",) and all(r.case.compression == "off" for r in off.cases)


def test_today_s_files_round_trip_exactly() -> None:
    runs = read_results(str(DATA / "results-hosts.json"))
    data = json.loads(json.dumps(results_to_dict(runs)))
    assert data["schema_version"] == SCHEMA_VERSION == 17
    again = results_from_dict(data)
    assert results_to_dict(again) == data
    single = json.loads(json.dumps(report_to_dict(runs[0])))
    assert single["environment"]["server"]["remote"]["destination"] == "alpha"


def test_summary_csv_has_a_row_per_case_and_host() -> None:
    runs = read_results(str(DATA / "results-hosts.json"))
    rows = list(csv.DictReader(io.StringIO(summary_csv.render(runs))))
    assert len(rows) == sum(len(r.summaries) for r in runs)
    assert {row["host"] for row in rows} == {"alpha", "beta.example"}
    gcm = next(r for r in rows if r["host"] == "alpha" and r["case_id"] == "cipher:aes128-gcm@openssh.com:upload")
    assert float(gcm["throughput_ci_low"]) <= float(gcm["throughput_bytes_per_second"]) <= \
        float(gcm["throughput_ci_high"])


def test_every_exporter_has_a_distinct_option_and_renders_a_saved_run() -> None:
    assert len({e.option for e in EXPORTERS}) == len(EXPORTERS)
    reports = read_results(str(DATA / "results-hosts.json"))
    runs, fleet = [conclude(r, recommendation=True) for r in reports], conclude_fleet(reports)
    for exporter in EXPORTERS:
        exporter.check()
        if isinstance(exporter, DirectoryExporter):
            assert next(iter(exporter.files(runs[:1], ChartBook())))[1]
        else:
            assert isinstance(exporter, FileExporter) and exporter.render(runs, ChartBook(), fleet).strip()


def test_every_enum_like_field_of_a_results_file_is_checked_placement_trial_included() -> None:
    import pytest

    from sshbench.results.design import PlacementTrial
    from sshbench.results.schema import SchemaError

    (report,) = read_results(str(DATA / "results-small.json"))
    report.placement_trial = PlacementTrial("c", [1.0], [2.0], "split", 1.0, "why")
    good = json.loads(json.dumps(report_to_dict(report)))
    assert results_from_dict(good)[0].placement_trial is not None
    for path, bad in ((("placement_trial", "chosen"), "sideways"), (("status",), "sideways"),
                      (("samples", 0, "verified"), "by eye"), (("samples", 0, "timing"), "guessed")):
        tampered = json.loads(json.dumps(good))
        where = tampered
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = bad
        with pytest.raises(SchemaError):
            results_from_dict(tampered)
