"""`sshbench --server dropbear|tinysshd|all`: the other servers as embedded servers, and the comparison.

Real servers started by sshbench itself on loopback (Debian 12's dropbear 2022.83 and tinysshd 20230101),
with every sample's negotiation proven and the server CPU exact (wait4); nothing left behind.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.conftest import leftovers, temp_entries
from tests.integration.cli_helpers import sshbench
from tests.integration.other_servers import missing

pytestmark = pytest.mark.integration

SCOPE = ["--ciphers", "all", "--macs", "all", "--kex", "all", "--hostkeys", "all", "--runs", "2", "--setup-runs", "2",
         "--size", "16MiB", "--no-controls"]


def _run(server: str, tmp_path: Path) -> tuple[Any, dict[str, Any]]:
    reason = missing(server)
    if reason:
        pytest.skip(f"{server}: {reason}")
    out, tmpdir = tmp_path / "r.json", tmp_path / "tmp"
    tmpdir.mkdir()
    done = sshbench("--server", server, *SCOPE, "--output", str(out), tmpdir=tmpdir, timeout=600)
    assert not leftovers(str(tmpdir)) and temp_entries(tmpdir) == set(), "processes or temp files left behind"
    return done, json.loads(out.read_text()) if out.exists() else {}


@pytest.mark.parametrize("server", ["dropbear", "tinysshd"])
def test_a_default_scope_run_on_each_other_server(server: str, tmp_path: Path) -> None:
    done, data = _run(server, tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr[-1500:]
    env = data["environment"]
    assert env["server"]["embedded"]["server"] == server and "wait4" in env["server"]["embedded"]["per_connection"]
    counted = [s for s in data["samples"] if not s["warmup"]]
    assert counted and all(s["ok"] for s in counted)
    assert all(s["negotiated"]["server_version"].startswith(("dropbear_", "tinyssh_")) for s in counted)
    assert not [c for c in data["cases"] if c["status"] == "failed"]
    throughput = [s for s in data["summaries"] if s["case_id"].startswith("cipher:")]
    assert throughput and all(s["server_cpu_seconds_per_gib"] is not None for s in throughput), "exact CPU"
    if server == "tinysshd":  # AEAD only: the MAC sweep is skipped with the reason; Terrapin stated
        assert all(c["status"] == "skipped" for c in data["cases"] if c["case"]["kind"] == "mac")
        assert "Terrapin: NOT protected" in done.stdout
    else:  # the MAC sweep runs with a cipher and MAC Dropbear offers (auto partners)
        assert data["options"]["cipher_mac"] == "hmac-sha2-256"
        assert any(s["case_id"].startswith("mac:") for s in data["summaries"])
    assert f"Server ({server}):" in done.stdout and "sshd_config.d" not in done.stdout


def test_all_servers_compared_server_by_server(tmp_path: Path) -> None:
    if missing("dropbear") or missing("tinysshd"):
        pytest.skip("dropbear or tinysshd missing (scripts/install-deps --test installs them as root)")
    out = tmp_path / "r.json"
    done = sshbench("--server", "all", "--ciphers", "chacha20-poly1305@openssh.com,aes128-ctr", "--macs", "none",
                    "--kex", "none", "--hostkeys", "none", "--runs", "2", "--size", "16MiB", "--no-controls",
                    "--output", str(out), timeout=600)
    assert done.returncode == ExitCode.OK, done.stderr[-1500:]
    data = json.loads(out.read_text())
    assert data["hosts"] == ["embedded", "embedded-dropbear", "embedded-tinysshd"]
    assert "Cipher x host, upload" in done.stdout and "embedded-dropbear" in done.stdout
    program = f"{shlex.quote(sys.executable)} -m sshbench"  # as the run was started (cli/hints.program)
    assert f"{program} algos   {program} algos --server dropbear   {program} algos --server tinysshd" in done.stdout
    offer = sshbench("algos", "--server", "tinysshd", "--json")
    assert offer.returncode == ExitCode.OK, offer.stderr
    rows = json.loads(offer.stdout)["algorithms"]
    ciphers = {row["name"] for row in rows if row["server"] and row["kind"] == "cipher"}
    assert ciphers == {"chacha20-poly1305@openssh.com"}
    report = tmp_path / "r.md"
    assert sshbench("report", str(out), "--markdown", str(report)).returncode == ExitCode.OK
    assert "Cipher x host, upload" in report.read_text() and "CPU" in report.read_text()


def test_server_choices_are_checked(tmp_path: Path) -> None:
    bad = sshbench("--server", "lsh", "--output", str(tmp_path / "a.json"))
    assert bad.returncode == ExitCode.USAGE and "use one or more of openssh, dropbear, tinysshd" in bad.stderr
    remote = sshbench("run", "somehost", "--server", "dropbear", "--output", str(tmp_path / "b.json"))
    assert remote.returncode == ExitCode.USAGE and "leave --server out" in remote.stderr
