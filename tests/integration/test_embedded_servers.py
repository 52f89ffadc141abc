"""`sshbench --server dropbear|tinysshd|all`: the other servers as embedded servers, and the servers compared in one
report (a dimension of the run, like --build).

Real servers started by sshbench itself on loopback (Debian 12's dropbear 2022.83 and tinysshd 20230101),
with every sample's negotiation proven and the server CPU exact (wait4); nothing left behind.
"""

from __future__ import annotations

import json
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


def test_all_servers_are_one_report_with_cross_pairs_and_a_recommendation_each(tmp_path: Path) -> None:
    """`--server all`: one run, one report. Each server's own tables (its own offer), the same case on two
    servers compared (cross pairs), the first lines naming the fastest server for the default and the fastest
    safe cipher with each server's CPU per GiB, a recommendation per server in the words of its implementation,
    in the terminal, Markdown, HTML, report --json and recommend --json."""
    if missing("dropbear") or missing("tinysshd"):
        pytest.skip("dropbear or tinysshd missing (scripts/install-deps --test installs them as root)")
    out, tmpdir = tmp_path / "r.json", tmp_path / "tmp"
    tmpdir.mkdir()
    done = sshbench("--server", "all", "--ciphers", "chacha20-poly1305@openssh.com,aes128-ctr", "--macs", "none",
                    "--kex", "none", "--hostkeys", "none", "--directions", "upload", "--runs", "6", "--size", "16MiB",
                    "--no-controls", "--output", str(out), tmpdir=tmpdir, timeout=600)
    assert done.returncode == ExitCode.OK, done.stderr[-1500:]
    assert not leftovers(str(tmpdir)) and temp_entries(tmpdir) == set(), "processes or temp files left behind"
    data = json.loads(out.read_text())
    assert data["schema"] == "sshbench/run", "one report, not one per server"
    sides = data["environment"]["builds"]
    assert [b["name"] for b in sides] == ["openssh", "dropbear", "tinysshd"]
    assert [b["own"]["server"]["embedded"]["implementation"] for b in sides] == ["openssh", "dropbear", "tinysshd"]
    assert sides[2]["own"]["terrapin"]["protected"] is False  # tinysshd 20230101: no strict key exchange
    measured = {c["case"]["build"] for c in data["cases"] if c["status"] == "measured"
                and c["case"]["kind"] == "cipher"}
    assert measured == {"openssh", "dropbear", "tinysshd"}
    ctr = {c["case"]["build"]: c["case"]["mac"] for c in data["cases"] if c["case"]["cipher"] == "aes128-ctr"}
    assert ctr["openssh"] == ctr["dropbear"] == "hmac-sha2-256", "one MAC both offer: the same case, a cross pair"
    skipped = [c for c in data["cases"] if c["case"]["build"] == "tinysshd" and c["status"] == "skipped"]
    assert skipped and all(c["case"]["cipher"] == "aes128-ctr" for c in skipped), "each server its own offer"
    chacha = {s["negotiated"]["server_version"].split("_")[0] for s in data["samples"] if not s["warmup"]
              and s["case_id"].startswith("cipher:chacha20-poly1305@openssh.com:upload#")}
    assert chacha == {"OpenSSH", "dropbear", "tinyssh"}, "each side's samples reached its own server"
    lines = done.stdout
    assert "Which server, and by how much" in lines and "the servers side by side" in lines
    assert "upload, this client's default, chacha20-poly1305@openssh.com: openssh is" in " ".join(lines.split())
    assert "[server dropbear]" in lines and "Server (dropbear):" in lines and "Server (tinysshd):" in lines
    assert "sshd_config.d/50-sshbench.conf" in lines, "OpenSSH's own drop-in, for the openssh side"
    assert "has a known weakness there" in lines, "tinysshd's ChaCha20-Poly1305 without strict kex is flagged"
    document = sshbench("report", str(out), "--json")
    assert document.returncode == ExitCode.OK, document.stderr
    servers = json.loads(document.stdout)["runs"][0]["servers"]
    default = next(q for q in servers if q["question"] == "default")
    assert {f["server"] for f in default["figures"]} == {"openssh", "dropbear", "tinysshd"}
    assert all(f["server_cpu_seconds_per_gib"] is not None for f in default["figures"])
    leader, *others = default["figures"]
    assert leader["ratio"] is None and all(f["ratio"] is not None and f["low"] is not None for f in others)
    assert all(f["relation"] == "different" or f["forecast"] is not None for f in others), "settled or forecast"
    assert default["proven"] == all(f["relation"] == "different" and f["ratio"] < 1 for f in others)
    advice = sshbench("recommend", str(out), "--json", "--write", str(tmp_path / "cfg"))
    assert advice.returncode in (ExitCode.OK, ExitCode.EXPOSED), advice.stderr
    labels = [r["label"] for r in json.loads(advice.stdout)["runs"]]
    assert labels == ["embedded", "embedded-dropbear", "embedded-tinysshd"]
    written = sorted(p.name for p in (tmp_path / "cfg").iterdir())
    assert "50-sshbench.embedded.conf" in written, "OpenSSH's drop-in; Dropbear and tinysshd read no sshd_config"
    assert written[-1].startswith("ssh_config.sshbench"), "one client file, or one per server where blocks clash"
    for form, said in (("--markdown", "Which server, and by how much"), ("--html", '"label">servers</span> upload')):
        page = tmp_path / f"r{form}"
        assert sshbench("report", str(out), form, str(page)).returncode == ExitCode.OK
        assert said in page.read_text()
    assert "Recommended configuration for server dropbear" in (tmp_path / "r--html").read_text()


def test_server_choices_are_checked(tmp_path: Path) -> None:
    bad = sshbench("--server", "lsh", "--output", str(tmp_path / "a.json"))
    assert bad.returncode == ExitCode.USAGE and "use one or more of openssh, dropbear, tinysshd" in bad.stderr
    remote = sshbench("run", "somehost", "--server", "dropbear", "--output", str(tmp_path / "b.json"))
    assert remote.returncode == ExitCode.USAGE and "leave --server out" in remote.stderr
