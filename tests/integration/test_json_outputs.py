"""Every command's --json document validates against the JSON Schema sshbench ships for it, and any command's
output may be cut short by its reader (`| head -1`) without an error."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs; used by this test only
import pytest
from referencing import Registry, Resource

from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration
DATA = Path(__file__).resolve().parents[1] / "data"
SMALL, HOSTS = str(DATA / "results-small.json"), str(DATA / "results-hosts.json")


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(resources.files("sshbench.schemas").joinpath(f"{name}.schema.json")
                                        .read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


def validator(name: str) -> Any:
    """A validator of the schema with the others shipped beside it as its registry: --jsonl's finished event
    refers to report.schema.json by its $id, resolved here, never fetched."""
    shipped = [schema(other) for other in ("report", "results", "jsonl")]
    registry = Registry().with_resources((found["$id"], Resource.from_contents(found)) for found in shipped)
    return jsonschema.Draft202012Validator(schema(name), registry=registry)


def valid(name: str, stdout: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(stdout)
    jsonschema.validate(document, schema(name), cls=jsonschema.Draft202012Validator)
    return document


@pytest.mark.parametrize("results", [SMALL, HOSTS], ids=["one-run", "hosts"])
def test_report_json_validates_and_carries_the_answer(results: str) -> None:
    done = sshbench("report", results, "--json")
    assert done.returncode == ExitCode.OK, done.stderr
    doc = valid("report", done.stdout)
    assert doc["runs"] and all(run["summaries"] for run in doc["runs"])
    assert any(run["answer"] for run in doc["runs"])


def test_compare_json_validates_and_keeps_the_exit_code() -> None:
    done = sshbench("compare", SMALL, SMALL, "--json", "--fail-above", "5%")
    assert done.returncode == ExitCode.OK, done.stderr
    doc = valid("compare", done.stdout)
    assert doc["fail_above"] == 0.05 and doc["comparisons"][0]["changes"]
    assert not any(c["regression"] for c in doc["comparisons"][0]["changes"])


def test_recommend_json_validates() -> None:
    done = sshbench("recommend", SMALL, "--json")
    assert done.returncode in (ExitCode.OK, ExitCode.EXPOSED), done.stderr
    doc = valid("recommend", done.stdout)
    last = doc["runs"][0]["client_block"].rstrip().splitlines()[-1]  # the whole block: its directives, or why none
    assert last.startswith("    ") or last.startswith("# nothing to add for Host"), last


def test_algos_json_validates() -> None:
    done = sshbench("algos", "--json")
    assert done.returncode == ExitCode.OK, done.stderr
    doc = valid("algos", done.stdout)
    assert doc["verdict"] is None  # the embedded server is never judged


def test_clients_list_json_validates() -> None:
    done = sshbench("clients", "list", "--json")
    assert done.returncode == ExitCode.OK, done.stderr
    assert any(c["name"] == "jsch-0.1.55" for c in valid("clients", done.stdout)["clients"])


@pytest.mark.parametrize("args", [["report", SMALL], ["report", SMALL, "--json"], ["compare", SMALL, SMALL],
                                  ["algos"], ["algos", "--json"], ["clients", "list"]],
                         ids=["report", "report-json", "compare", "algos", "algos-json", "clients-list"])
def test_a_reader_that_stops_early_is_not_an_error(args: list[str]) -> None:
    """`sshbench ... | head -1`: the command exits with its own code, quietly."""
    proc = subprocess.Popen([sys.executable, "-m", "sshbench", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away after one line, as head does
    err = proc.stderr.read()
    proc.wait(timeout=300)
    assert first
    assert proc.returncode == ExitCode.OK, err
    assert "Traceback" not in err and "internal error" not in err


def test_results_files_and_jsonl_lines_validate_against_the_schemas_shipped(tmp_path: Path) -> None:
    """The results file's schema is derived from the records (results/jsonschema.py); --jsonl's is written by
    hand: a real run's file and every line it printed validate, and so do the recorded files, as read today."""
    from sshbench.results.codec import results_to_dict
    from sshbench.results.store import read_results

    out = tmp_path / "r.json"
    done = sshbench("--ciphers", "aes128-ctr", "--macs", "none", "--kex", "none", "--hostkeys", "none", "--runs",
                    "2", "--size", "16MiB", "--jsonl", "--output", str(out), cwd=tmp_path, tmpdir=tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert {line["event"] for line in lines} >= {"started", "sample", "summary", "answer", "finished"}
    jsonl = validator("jsonl")
    for line in lines:
        jsonl.validate(line)
    assert lines[-1]["report"]["runs"][0]["answer"]  # the last line holds the whole report document
    results = schema("results")
    jsonschema.validate(json.loads(out.read_text()), results, cls=jsonschema.Draft202012Validator)
    for recorded in (SMALL, HOSTS):
        for run in results_to_dict(read_results(recorded)).get("runs", [None]):
            document = run if run is not None else results_to_dict(read_results(recorded))
            jsonschema.validate(json.loads(json.dumps(document)), results, cls=jsonschema.Draft202012Validator)
