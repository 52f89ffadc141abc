"""Decision and precision mode, controls, --no-aesni and data kinds, end to end against the real embedded server."""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path
from typing import Any

import pytest

from sshbench.analysis.stats.robust import median_interval, relative_half_width
from sshbench.measure.controls import verify_aesni_mask
from sshbench.vocabulary.errors import VerificationError
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration

ONE_UPLOAD = ["--ciphers", "aes128-ctr", "--directions", "upload", "--macs", "none", "--kex", "none",
              "--hostkeys", "none"]


def run_json(tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    out = tmp_path / "r.json"
    done = sshbench(*args, "--output", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), done.stdout


def summaries(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["case_id"]: s for s in data["summaries"]}


def _precise_after(values: list[float], target: float) -> bool:
    interval = median_interval(values)
    return interval is not None and (relative_half_width(statistics.median(values), interval) or 1) <= target


def _precise_after_six(data: dict[str, Any], case_id: str) -> bool:
    """Whether the case's figure was within +-5% at its first six counted samples (then the run had no reason to
    take more of it)."""
    counted = [s for s in data["samples"] if s["case_id"] == case_id and s["ok"] and not s["warmup"]][:6]
    values = [s["steady_bytes"] / s["steady_seconds"] if s.get("steady_seconds") else
              s["bytes_received"] / s["data_seconds"] for s in counted]
    return _precise_after(values, 0.05)


def test_decision_mode_gives_every_case_an_interval_and_settles_a_large_step(tmp_path: Path) -> None:
    """The default mode on real samples: 3des-cbc is ~20x slower than AES-GCM, which no noise can hide."""
    data, out = run_json(tmp_path, "--ciphers", "aes128-gcm@openssh.com,3des-cbc", "--directions", "upload",
                         "--macs", "none", "--kex", "none", "--hostkeys", "none", "--size", "8MiB", "--no-controls",
                         "--max-runs", "9", "--time-budget", "none")
    assert data["options"]["precision"] is None and data["options"]["tie_margin"] == 0.05
    by_id = summaries(data)
    gcm, des = by_id["cipher:aes128-gcm@openssh.com:upload"], by_id["cipher:3des-cbc:upload"]
    assert gcm["samples_ok"] >= 6 and des["samples_ok"] >= 6, "every case first gets an interval"
    assert des["rank"] == 2 and des["relation"] == "different" and des["ratio_to_previous"] > 1.5
    assert des["ratio_low"] <= des["ratio_to_previous"] <= des["ratio_high"]
    # a settled pair gets nothing more for its verdict; a figure wider than +-5% then gets samples to --max-runs
    for summary in (gcm, des):
        assert summary["precise"] is not None
        assert summary["samples_ok"] == 6 or not _precise_after_six(data, summary["case_id"]), summary
        assert summary["samples_ok"] <= 9
    assert "neighbour pairs: 1 of 1 settled (1 different, 0 equivalent)" in out
    use = data["time_use"]
    assert 0 < use["throughput_data_seconds"] < use["throughput_sample_seconds"] <= use["sample_seconds"]


def test_a_budget_too_small_for_the_minimum_is_refused_after_the_warm_up(tmp_path: Path) -> None:
    """3des-cbc (~30 MB/s) passes the check before measuring, whose guesses are a fast cipher's (refusing only
    what surely cannot fit), and fails the one after the warm-up, which times the real visits. The budget holds
    the warm-up three times over but not the minimum (about seven visits): beside two busy processes the warm-up
    of a 64 MiB sample outgrew an 8 s budget, and nothing was measured at all."""
    out = tmp_path / "r.json"
    done = sshbench("--ciphers", "3des-cbc", *ONE_UPLOAD[2:], "--size", "128MiB", "--time-budget", "20s",
                    "--output", str(out))
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0, done.stderr
    assert "the minimum (6 samples of each case, for an interval)" in done.stderr
    assert "raise --time-budget to" in done.stderr and "--no-controls saves" in done.stderr
    data = json.loads(out.read_text())
    assert data["status"] == "failed" and "time budget" in data["error"]
    assert all(s["warmup"] for s in data["samples"]), "nothing measured beyond the warm-up, which is kept"


def test_each_case_stops_at_the_first_precise_sample_or_max_runs(tmp_path: Path) -> None:
    """Replays the stopping rule on the real samples: the machine's noise decides when, the rule must hold."""
    data, out = run_json(tmp_path, "--ciphers", "aes128-ctr", "--directions", "download", "--macs", "none",
                         "--kex", "curve25519-sha256", "--hostkeys", "none", "--size", "16MiB", "--no-controls",
                         "--precision", "20%", "--min-runs", "6", "--max-runs", "12")
    for case_id, summary in summaries(data).items():
        samples = [s for s in data["samples"] if s["case_id"] == case_id and s["ok"] and not s["warmup"]]
        values = [s["throughput_bytes_per_second"] or s["handshake_seconds"] for s in samples]
        first = next((k for k in range(6, len(values) + 1) if _precise_after(values[:k], 0.2)), None)
        assert len(values) == (first or 12), case_id
        assert summary["precise"] is (first is not None)
        stat = summary["throughput_bytes_per_second"] or summary["handshake_seconds"]
        assert stat["ci_low"] <= stat["median"] <= stat["ci_high"]
    assert data["options"]["precision"] == 0.2 and data["options"]["runs"] is None
    assert "mode:    precision, target ±20%" in out


def test_imprecise_cases_run_to_max_and_are_reported(tmp_path: Path) -> None:
    data, out = run_json(tmp_path, *ONE_UPLOAD, "--size", "4MiB", "--no-controls", "--precision", "0.1%",
                         "--min-runs", "6", "--max-runs", "7")
    (summary,) = data["summaries"]
    assert summary["precise"] is False and summary["samples_ok"] == 7
    assert "1 of 1 cases did not reach the target" in out
    assert "--time-budget 20m" in out


def test_time_budget_stops_the_run(tmp_path: Path) -> None:
    """A precision no run reaches and more samples than any machine moves in the budget: the budget stops it.
    Small samples and a budget ~5x the minimum's need on a loaded 2-vCPU VM: a busy machine is not refused."""
    data, out = run_json(tmp_path, *ONE_UPLOAD, "--size", "16MiB", "--no-controls", "--precision", "0.1%",
                         "--max-runs", "400", "--time-budget", "15s")
    assert data["status"] == "complete" and "time budget" in data["stop_reason"]
    assert "stopped early: time budget of 15 s reached" in out
    started, finished = data["started_at"], data["finished_at"]
    assert started and finished


def test_controls_and_ceilings_are_measured_beside_ssh(tmp_path: Path) -> None:
    data, out = run_json(tmp_path, "--ciphers", "aes128-gcm@openssh.com", "--directions", "upload", "--macs",
                         "none", "--kex", "none", "--hostkeys", "none", "--runs", "2", "--size", "16MiB")
    by_id = summaries(data)
    tcp = by_id["control:raw-tcp:upload"]["throughput_bytes_per_second"]["median"]
    ceiling = by_id["ceiling:aes128-gcm@openssh.com:local"]["throughput_bytes_per_second"]["median"]
    ssh = by_id["cipher:aes128-gcm@openssh.com:upload"]["throughput_bytes_per_second"]["median"]
    assert tcp > ssh and ceiling > ssh  # SSH cannot beat either ceiling
    assert "Controls and ceilings, measured in this run" in out and "efficiency" in out
    control_samples = [s for s in data["samples"] if s["case_id"] == "control:raw-tcp:upload"]
    assert all(s["bytes_received"] == s["size_bytes"] for s in control_samples)


def test_no_aesni_masks_client_server_and_ceilings(tmp_path: Path) -> None:
    data, out = run_json(tmp_path, "--ciphers", "aes128-gcm@openssh.com", "--directions", "upload", "--macs",
                         "none", "--kex", "none", "--hostkeys", "none", "--runs", "1", "--size", "16MiB",
                         "--no-aesni")
    crypto = data["environment"]["crypto"]
    assert crypto["aesni_masked"] is True and crypto["mask"]["OPENSSL_ia32cap"]
    check = crypto["mask_check"]
    assert check["masked_bytes_per_second"] < check["unmasked_bytes_per_second"] / 2
    ceiling = summaries(data)["ceiling:aes128-gcm@openssh.com:local"]["throughput_bytes_per_second"]["median"]
    assert ceiling < check["unmasked_bytes_per_second"] / 2
    assert "AES-NI, VAES and PCLMULQDQ masked" in out


def test_unverifiable_mask_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "openssl"
    # An openssl that reports the same speed whatever the mask: the check must refuse it.
    fake.write_text("#!/bin/sh\necho '+R:100000:AES-128-GCM:1.000000' >&2\necho '+F:25:AES-128-GCM:1638400000.00'\n")
    os.chmod(fake, 0o755)
    with pytest.raises(VerificationError, match="did not take effect"):
        verify_aesni_mask(str(fake))


@pytest.mark.parametrize("direction", ["upload", "download"])
def test_text_with_compression_is_negotiated_and_verified(tmp_path: Path, direction: str) -> None:
    data, _ = run_json(tmp_path, "--ciphers", "aes128-ctr", "--directions", direction, "--macs", "none", "--kex",
                       "none", "--hostkeys", "none", "--runs", "1", "--size", "24MiB", "--no-controls",
                       "--data", "text", "--compression")
    for sample in data["samples"]:
        assert sample["ok"], sample
        assert sample["negotiated"]["compression_c2s"] == "zlib@openssh.com"
        assert sample["bytes_received"] == 24 * 2**20
    assert not data["warnings"] or all(w["code"] != "compression-useless" for w in data["warnings"])


def test_random_data_both_directions(tmp_path: Path) -> None:
    data, _ = run_json(tmp_path, "--ciphers", "chacha20-poly1305@openssh.com", "--macs", "none", "--kex", "none",
                       "--hostkeys", "none", "--runs", "1", "--size", "20MiB", "--no-controls", "--data", "random")
    assert len(data["samples"]) == 4 and all(s["ok"] and s["bytes_received"] == 20 * 2**20 for s in data["samples"])


def test_compression_with_zeros_warns(tmp_path: Path) -> None:
    data, out = run_json(tmp_path, *ONE_UPLOAD, "--runs", "1", "--size", "8MiB", "--no-controls", "--compression")
    assert any(w["code"] == "compression-useless" for w in data["warnings"])
    assert "warning: compression with zero data" in out
