"""A declared axis (axes/) end to end: the toy axis of tests/toy_axis.py, declared as its registry line would,
drives a real run against the embedded server (its option, crossing, ids, effect on the pipe, cross pair,
tables, file form), and a results file holding it is refused, in one line, by an sshbench that does not
declare it (untrusted input: nothing unvalidated reaches a run)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.cli_helpers import sshbench
from tests.integration.processes import ALGOS
from tests.integration.test_hostile import assert_one_clean_line
from tests.toy_axis import LOG

pytestmark = pytest.mark.integration
TOY = Path(__file__).parents[1] / "toy_axis.py"


def toy(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line with the toy axis declared."""
    return subprocess.run([sys.executable, str(TOY), *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          stdin=subprocess.DEVNULL, check=False, env={**os.environ, "TMPDIR": str(cwd), **(env or {})})


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object], list[str]]:
    cwd = tmp_path_factory.mktemp("toy")
    log = cwd / "effects.log"
    done = toy("--ciphers", "aes128-gcm@openssh.com", *ALGOS, "--directions", "upload", "--no-controls",
               "--method", "pipe,scp", "--chunk-sizes", "16KiB,1MiB", "--runs", "2", "--size", "16MiB",
               "--output", str(cwd / "r.json"), cwd=cwd, env={LOG: str(log)})
    assert done.returncode == 0, done.stderr[-2000:]
    return cwd, json.loads((cwd / "r.json").read_text()), log.read_text().split()


def test_the_option_crosses_the_pipe_cases_and_ids_spell_the_value(
        toy_run: tuple[Path, dict[str, object], list[str]]) -> None:
    _, data, _ = toy_run
    assert data["options"]["dims"] == [["chunk", ["16KiB", "1MiB"]]]  # type: ignore[index]
    records = {r["case"]["id"]: r for r in data["cases"]}  # type: ignore[attr-defined]
    assert records["cipher:aes128-gcm@openssh.com:upload%16KiB"]["case"]["dims"] == [["chunk", "16KiB"]]
    assert "dims" not in records["cipher:aes128-gcm@openssh.com:upload"]["case"]  # the plain value: as before
    scp = records["cipher:aes128-gcm@openssh.com:upload:scp%16KiB"]  # a file tool cannot take it: said why
    assert scp["status"] == "skipped" and "--chunk-sizes" in scp["reason"]
    assert records["cipher:aes128-gcm@openssh.com:upload:scp"]["status"] == "measured"


def test_the_measuring_code_applies_each_value_to_its_own_samples(
        toy_run: tuple[Path, dict[str, object], list[str]]) -> None:
    _, data, effects = toy_run
    samples = [s for s in data["samples"] if s["case_id"].endswith("%16KiB")]  # type: ignore[attr-defined]
    assert samples and all(s["ok"] for s in samples)
    assert all(s["bytes_received"] == s["size_bytes"] for s in samples)
    assert effects and set(effects) == {"16KiB"}  # the plain value leaves the pipe as it is: no effect asked
    assert len(effects) >= len(samples)


def test_the_tables_and_the_answer_use_the_axis_words(toy_run: tuple[Path, dict[str, object], list[str]]) -> None:
    cwd, _, _ = toy_run
    shown = toy("report", str(cwd / "r.json"), cwd=cwd)
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "compression chunk MB/s" in text  # its column in the streams-and-compression table
    assert "[1 stream, no compression, 16 KiB chunks]" in text  # its variant's tables
    assert "16 KiB chunks:" in text  # the answer's change, in its words
    markdown = toy("report", str(cwd / "r.json"), "--markdown", "-", cwd=cwd)
    assert markdown.returncode == 0 and "16 KiB chunks" in markdown.stdout


def test_an_sshbench_that_does_not_declare_the_axis_refuses_the_file_in_one_line(
        toy_run: tuple[Path, dict[str, object], list[str]], tmp_path: Path) -> None:
    cwd, _, _ = toy_run
    assert_one_clean_line(sshbench("report", str(cwd / "r.json"), tmpdir=tmp_path), 2, "unknown axis 'chunk'")


def test_a_bad_value_is_one_line_naming_the_option(tmp_path: Path) -> None:
    assert_one_clean_line(toy("--chunk-sizes", "3000", "--ciphers", "aes128-gcm@openssh.com", cwd=tmp_path), 2,
                          "--chunk-sizes")
    assert os.listdir(tmp_path) == []
