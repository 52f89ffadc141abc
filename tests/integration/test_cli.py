"""`sshbench` as a user runs it: a real small sweep, its files, its errors, and Ctrl-C."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from sshbench.plan.budget import MIN_AUTO_SIZE
from sshbench.vocabulary.errors import ExitCode
from tests.conftest import leftovers, temp_entries
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration

def one_line_error(done: subprocess.CompletedProcess[str], code: int) -> str:
    assert done.returncode == code, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert lines[0].startswith("sshbench: error: ")
    return lines[0]


def test_small_sweep_succeeds_and_prints_tables(small_run: Any) -> None:
    done, _, out, _, _ = small_run
    assert done.returncode == 0, done.stderr
    for title in ("Ciphers, upload", "Ciphers, download", "MACs, upload", "Key exchange", "Host key algorithms"):
        assert title in done.stdout
    assert f"Results: {out}" in done.stdout
    assert "MB/s" in done.stdout and "MiB/s" in done.stdout
    assert "zero bytes, SSH compression off" in done.stdout
    assert "non-AEAD ciphers use MAC hmac-sha2-256-etm@openssh.com" in done.stdout


def test_results_prove_what_was_measured(small_run: Any) -> None:
    _, data, _, _, _ = small_run
    assert data["schema"] == "sshbench/run" and data["status"] == "complete"
    env = data["environment"]
    assert env["client"]["version"].startswith("OpenSSH_") and env["server"]["version"].startswith("OpenSSH_")
    assert {"aes", "vaes", "sha_ni"} <= set(env["host"]["cpu_flags"])
    assert env["host"]["kernel"] and env["host"]["cpu_model"]
    assert data["options"]["size_bytes"] == 4 * 2**20 and isinstance(data["seed"], int)
    samples = data["samples"]
    # 4 cipher + 2 MAC + 1 kex + 1 host key cases, plus the raw TCP control and 2 crypto ceilings,
    # each 1 warm-up + 2 measured, except the ceilings: nothing to size, so no warm-up
    assert len(samples) == 11 * 3 - 2
    assert sum(s["warmup"] for s in samples) == 9
    # every case but the key exchange sweep's holds one fast key exchange, proven per sample below
    assert data["partner_kex"] == "curve25519-sha256"
    assert {c["case"]["kex"] for c in data["cases"] if c["case"]["kind"] in ("cipher", "mac", "hostkey")} == {
        "curve25519-sha256"}
    kinds = {c["case"]["id"]: c["case"]["kind"] for c in data["cases"]}
    ssh = [s for s in samples if kinds[s["case_id"]] in ("cipher", "mac", "kex", "hostkey")]
    assert len(ssh) == 8 * 3
    for s in samples:
        assert s["ok"], s
    for s in ssh:
        case = next(c["case"] for c in data["cases"] if c["case"]["id"] == s["case_id"])
        neg = s["negotiated"]
        if case["cipher"]:
            assert neg["cipher_c2s"] == neg["cipher_s2c"] == case["cipher"]
        if case["kex"]:
            assert neg["kex"] == case["kex"]
        if case["hostkey"]:
            assert neg["hostkey"] == case["hostkey"]
        if case["direction"] != "setup":
            assert s["bytes_received"] == s["size_bytes"] == 4 * 2**20
            assert s["throughput_bytes_per_second"] > 0
            assert s["client_cpu_data_seconds"] > 0 and s["server_cpu_data_seconds"] > 0
        for side in ("client", "server"):
            assert s[f"{side}_cpu_user_seconds"] + s[f"{side}_cpu_sys_seconds"] > 0
    summaries = {s["case_id"]: s for s in data["summaries"] if kinds[s["case_id"]] not in ("control", "ceiling")}
    assert len(summaries) == 8
    factors = [s["factor"] for s in summaries.values() if s["group"] == "cipher:upload"]
    assert min(factors) == 1.0
    for s in summaries.values():
        assert s["samples_ok"] == 2


def test_csv_has_one_row_per_sample(small_run: Any) -> None:
    _, data, out, _, _ = small_run
    with open(out.with_suffix(".csv"), newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(data["samples"])
    assert rows[0]["case_id"] and rows[0]["cipher_c2s"] is not None


def test_nothing_left_behind(small_run: Any) -> None:
    _, _, _, processes, entries = small_run
    assert not processes and not entries


def test_automatic_sizing_records_the_size_used(tmp_path: Path) -> None:
    out = tmp_path / "auto.json"
    done = sshbench("--ciphers", "aes128-ctr,3des-cbc", "--directions", "upload", "--macs", "none", "--kex", "none",
                    "--hostkeys", "none", "--runs", "1", "--sample-seconds", "0.2", "--no-controls",
                    "--output", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    sizes = {c["case"]["cipher"]: c for c in data["cases"]}
    assert all(c["size_source"] == "auto" for c in sizes.values())
    warm = {s["case_id"]: s for s in data["samples"] if s["warmup"]}
    assert all(s["size_bytes"] == data["options"]["warmup_bytes"] for s in warm.values())
    # each case is sized from its own warm-up's rate (whatever the machine's load made it), to last ~0.2 s, and
    # never below what has a steady state (3des-cbc, ~30 MB/s, gets that least size)
    for record in data["cases"]:
        rate = warm[record["case"]["id"]]["throughput_bytes_per_second"]
        expected = max(MIN_AUTO_SIZE, int(rate * 0.2) // 2**20 * 2**20)
        assert record["size_bytes"] == expected, record
    assert sizes["3des-cbc"]["size_bytes"] == MIN_AUTO_SIZE == 32 * 2**20


def test_default_output_location_is_printed(tmp_path: Path) -> None:
    done = sshbench("--ciphers", "aes128-ctr", "--directions", "download", "--macs", "none", "--kex", "none",
                    "--hostkeys", "none", "--runs", "1", "--size", "1MiB", "--no-controls", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    files = list((tmp_path / "sshbench-results").glob("sshbench-*.json"))
    assert len(files) == 1
    assert f"Results: {os.path.join('sshbench-results', files[0].name)}" in done.stdout


def test_unknown_algorithm_lists_valid_ones() -> None:
    line = one_line_error(sshbench("--ciphers", "aes999-gcm"), ExitCode.USAGE)
    assert "unknown cipher 'aes999-gcm'" in line and "aes128-gcm@openssh.com" in line


def test_bad_size() -> None:
    line = one_line_error(sshbench("--size", "12 parsecs"), ExitCode.USAGE)
    assert "bad size '12 parsecs'" in line


def test_bad_option() -> None:
    line = one_line_error(sshbench("--frobnicate"), ExitCode.USAGE)
    assert "--frobnicate" in line


def test_missing_sshd() -> None:
    line = one_line_error(sshbench("--sshd", "/nonexistent/sshd"), ExitCode.MISSING_TOOL)
    assert "/nonexistent/sshd" in line


def test_output_not_writable() -> None:
    line = one_line_error(sshbench("--output", "/proc/sshbench/r.json"), ExitCode.OUTPUT)
    assert "--output" in line


def test_algos_shows_client_and_server_side_by_side() -> None:
    done = sshbench("algos")
    assert done.returncode == 0, done.stderr
    for text in ("Ciphers", "MACs", "Key exchange", "Host key algorithms", "client default", "server",
                 "3des-cbc", "broken", "chacha20-poly1305@openssh.com", "(AEAD)",
                 "Terrapin (CVE-2023-48795)", "kex-strict-s-v00@openssh.com", "connection protected"):
        assert text in done.stdout


def test_ctrl_c_keeps_results_and_cleans_up(tmp_path: Path) -> None:
    out = tmp_path / "int.json"
    proc = subprocess.Popen([sys.executable, "-m", "sshbench", "--ciphers", "all", "--macs", "none", "--kex", "none",
                             "--hostkeys", "none", "--size", "64MiB", "--runs", "20", "--no-controls",
                             "--output", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if out.exists() and json.loads(out.read_text())["samples"]:
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert "Traceback" not in err
    assert f"interrupted; results so far kept in {out}" in err
    data = json.loads(out.read_text())
    assert data["status"] == "interrupted" and data["finished_at"]
    assert data["samples"] and all(s["ok"] for s in data["samples"])
    assert not leftovers(tempfile.gettempdir()) and not temp_entries()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_are_handled_like_ctrl_c(tmp_path: Path, sig: signal.Signals) -> None:
    out = tmp_path / "term.json"
    proc = subprocess.Popen([sys.executable, "-m", "sshbench", "--ciphers", "aes128-ctr", "--macs", "none",
                             "--kex", "none", "--hostkeys", "none", "--size", "64MiB", "--runs", "50",
                             "--no-controls", "--output", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (out.exists() and json.loads(out.read_text())["samples"]):
        time.sleep(0.2)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert json.loads(out.read_text())["status"] == "interrupted"
    assert not leftovers(tempfile.gettempdir()) and not temp_entries()


@pytest.mark.skipif(os.geteuid() != 0, reason="the race on /run/sshd exists only as root")
def test_two_runs_at_once_in_one_directory_both_complete(tmp_path: Path) -> None:
    """Started in the same second, in the same directory: two results files, every sample of both good."""
    args = ["-m", "sshbench", "--ciphers", "aes128-ctr,aes128-gcm@openssh.com", "--macs", "none", "--kex",
            "curve25519-sha256", "--hostkeys", "none", "--runs", "4", "--setup-runs", "4", "--size", "8MiB",
            "--no-controls", "-q"]
    runs = [subprocess.Popen([sys.executable, *args], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    for run, (_, stderr) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, stderr
    paths = sorted((tmp_path / "sshbench-results").glob("*.json"))
    assert len(paths) == 2 and {Path(tmp_path, o.strip()) for o, _ in outputs} == set(paths)
    for path in paths:
        data = json.loads(path.read_text())
        assert data["status"] == "complete"
        assert len(data["samples"]) == (2 * 2 + 1) * 5 and all(s["ok"] for s in data["samples"])
