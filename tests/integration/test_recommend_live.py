"""Generated configs checked by the real sshd and ssh; the recommend command on a saved run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sshbench.analysis.recommend import build, client_block, server_dropin
from sshbench.analysis.validate import validate_client_block, validate_server_dropin
from sshbench.errors import ExitCode
from sshbench.results.codec import report_from_dict
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration


def test_small_run_prints_terrapin_and_a_validated_recommendation(small_run: Any) -> None:
    done, data, _, _, _ = small_run
    terrapin = data["environment"]["terrapin"]
    assert terrapin["server"]["strict_kex"] and terrapin["client"]["strict_kex"] and terrapin["protected"]
    assert "Terrapin (CVE-2023-48795)" in done.stdout and "connection protected" in done.stdout
    assert "Recommended client config (policy modern" in done.stdout
    assert "Host *\n    Ciphers aes128-gcm@openssh.com\n" in done.stdout
    assert "Recommended server drop-in" in done.stdout
    assert "Effect with OpenSSH's defaults on both ends: Ciphers: now" in done.stdout
    assert data["environment"]["algorithms"]["server_defaults"]["cipher"]


def test_real_tools_accept_what_we_generate(small_run: Any, client: ClientInfo, server: EmbeddedOpenSSH) -> None:
    report = report_from_dict(small_run[1])
    for policy in ("modern", "compatible"):
        rec = build(report, policy, strict_both=True)
        assert validate_client_block(client.path, client_block(rec, "*.example.org"), rec, "*.example.org") == []
        assert validate_server_dropin(server, server_dropin(rec), rec) == []


def test_a_broken_config_is_caught(small_run: Any, client: ClientInfo, server: EmbeddedOpenSSH) -> None:
    report = report_from_dict(small_run[1])
    rec = build(report, "compatible", strict_both=True)
    rec.lines[0].names.append("aes512-imaginary")  # a name no OpenSSH knows
    assert validate_client_block(client.path, client_block(rec), rec)
    assert validate_server_dropin(server, server_dropin(rec), rec)


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
    assert [d.split()[0] for d in directives] == ["Ciphers", "MACs", "KexAlgorithms", "HostKeyAlgorithms"]
    assert "Host " not in dropin


def test_recommend_rejects_a_file_that_is_not_results(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"hello": 1}))
    done = sshbench("recommend", str(bad))
    assert done.returncode == ExitCode.USAGE and "not a valid sshbench results file" in done.stderr
    missing = sshbench("recommend", str(tmp_path / "nope.json"))
    assert missing.returncode == ExitCode.USAGE and "cannot read" in missing.stderr
