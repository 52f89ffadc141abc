"""Generated configs checked by the real sshd and ssh; the recommend command on a saved run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sshbench.analysis.config.configtext import client_block, server_dropin
from sshbench.analysis.config.recommend import build
from sshbench.orchestrate.validate import validate_client_block, validate_server_dropin
from sshbench.results.codec import report_from_dict
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration


def test_small_run_prints_terrapin_and_a_validated_recommendation(small_run: Any) -> None:
    done, data, _, _, _ = small_run
    terrapin = data["environment"]["terrapin"]
    assert terrapin["server"]["strict_kex"] and terrapin["client"]["strict_kex"] and terrapin["protected"]
    assert "Terrapin (CVE-2023-48795)" in done.stdout and "connection protected" in done.stdout
    assert "Recommended client config (policy modern" in done.stdout
    # the client's default, chacha20-poly1305, was not measured: no cipher change is proven, so none is written
    assert "Ciphers: not set in this block: this client negotiates chacha20-poly1305@openssh.com today" in \
        " ".join(done.stdout.split())
    assert "Recommended server drop-in" in done.stdout
    assert "Effect (this client's defaults against what the server offers): Ciphers" not in done.stdout, \
        "nothing written, nothing changes"
    assert data["environment"]["algorithms"]["server_defaults"]["cipher"]


def test_real_tools_accept_what_we_generate(small_run: Any, client: ClientInfo, server: EmbeddedOpenSSH) -> None:
    report = report_from_dict(small_run[1])
    for policy in ("modern", "compatible"):
        rec = build(report, policy, strict_both=True)
        for line in rec.lines:  # every list written, as if each change were proven: all of it must validate
            line.unproven = None
        assert validate_client_block(client.path, client_block(rec, "*.example.org"), rec, "*.example.org") == []
        assert validate_server_dropin(server, server_dropin(rec) or "", rec) == []
        exact = build(report, policy, strict_both=True, exact=True)
        assert validate_client_block(client.path, client_block(exact), exact) == []


def test_a_broken_config_is_caught(small_run: Any, client: ClientInfo, server: EmbeddedOpenSSH) -> None:
    report = report_from_dict(small_run[1])
    rec = build(report, "compatible", strict_both=True)
    rec.lines[0].unproven = None  # written, as if proven
    rec.lines[0].names.append("aes512-imaginary")  # a name no OpenSSH knows
    assert validate_client_block(client.path, client_block(rec), rec)
    assert rec.server is not None
    rec.server.lists[Kind.CIPHER].append("aes512-imaginary")
    assert validate_server_dropin(server, server_dropin(rec) or "", rec)


def test_recommend_command_writes_validated_files(small_run: Any, tmp_path: Path) -> None:
    _, _, results, _, _ = small_run
    done = sshbench("recommend", str(results), "--policy", "compatible", "--host", "backup-*",
                    "--write", str(tmp_path))
    assert done.returncode == ExitCode.OK, done.stderr
    client_text = (tmp_path / "ssh_config.sshbench").read_text()
    assert "Host backup-*" in client_text and "policy compatible" in client_text
    assert "aes128-ctr" in client_text  # acceptable: kept by the compatible policy
    dropin = (tmp_path / "50-sshbench.conf").read_text()
    directives = [line for line in dropin.splitlines() if not line.startswith("#")]
    assert [d.split()[0] for d in directives] == ["Ciphers", "MACs", "KexAlgorithms"]
    assert "Host " not in dropin


def test_given_several_files_the_newest_run_is_used_and_named(small_run: Any, tmp_path: Path) -> None:
    data = small_run[1]
    older, newer = tmp_path / "a-older.json", tmp_path / "b-newer.json"
    older.write_text(json.dumps({**data, "started_at": "2030-01-01T00:00:00.000+00:00"}))
    newer.write_text(json.dumps({**data, "started_at": "2030-06-01T00:00:00.000+00:00"}))
    done = sshbench("recommend", str(newer), str(older))
    assert done.returncode == ExitCode.OK, done.stderr
    assert f"using the newest run, {newer}" in done.stderr and "2030-06-01" in done.stdout
    bad = tmp_path / "c-bad.json"
    bad.write_text("{}")
    refused = sshbench("recommend", str(newer), str(bad))
    assert refused.returncode == ExitCode.USAGE and str(bad) in refused.stderr


def test_a_policy_file_shapes_the_block_and_a_bad_one_is_refused(small_run: Any, tmp_path: Path) -> None:
    policy = tmp_path / "site.toml"
    policy.write_text('name = "site"\nbase = "compatible"\n[forbid]\nciphers = ["aes128-ctr"]\n')
    done = sshbench("recommend", str(small_run[2]), "--policy", str(policy), "--host-key-algorithms")
    assert done.returncode == ExitCode.OK, done.stderr
    assert "policy site (a policy file)" in done.stdout
    assert "left out (forbidden by policy site): aes128-ctr" in done.stdout
    # the embedded server holds no certificate: this client negotiates ssh-ed25519 today, so the line would
    # change nothing but turn off known_hosts' preference
    assert "HostKeyAlgorithms: not set in this block: this client already negotiates ssh-ed25519 first" in \
        " ".join(done.stdout.split())
    policy.write_text('[allow]\nmacs = ["hmac-sha1"]\n')
    refused = sshbench("recommend", str(small_run[2]), "--policy", str(policy))
    assert refused.returncode == ExitCode.USAGE and "graded weak" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_recommend_rejects_a_file_that_is_not_results(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"hello": 1}))
    done = sshbench("recommend", str(bad))
    assert done.returncode == ExitCode.USAGE and "not a valid sshbench results file" in done.stderr
    missing = sshbench("recommend", str(tmp_path / "nope.json"))
    assert missing.returncode == ExitCode.USAGE and "cannot read" in missing.stderr
