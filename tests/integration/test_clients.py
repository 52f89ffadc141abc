"""A library client measured like ssh (issue 64): paramiko's driver against the real embedded OpenSSH server, its
bytes counted by the receiver, its cipher proven by the server's own log, its CPU by wait4; a cipher it lacks
fails with its reason, never another cipher; and a run of `--client openssh,paramiko` compares the two."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest

from sshbench.clientparts import ClientPart
from sshbench.clientparts.asyncssh import ASYNCSSH
from sshbench.clientparts.paramiko import PARAMIKO
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.plumbing.negotiation import Negotiated
from sshbench.results.model import Case, CaseKind, Direction, Sample
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers import embedded_server
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.conftest import leftovers
from tests.integration.cli_helpers import sshbench
from tests.integration.other_servers import missing
from tests.integration.test_json_outputs import validator

pytestmark = pytest.mark.integration

SIZE = 8 << 20  # a few MiB, timed whole (a steady state needs more than STEADY_AFTER, ssh's and a driver's alike)
KEX = "curve25519-sha256@libssh.org"  # paramiko 5.1's name for Curve25519 (it has no plain curve25519-sha256)
MAC = "hmac-sha2-256-etm@openssh.com"


@pytest.fixture(scope="module")
def target(server: EmbeddedOpenSSH) -> EmbeddedTarget:
    return EmbeddedTarget(server)


def _case(direction: Direction, cipher: str, mac: str = MAC, client: str = "paramiko") -> Case:
    aead = "gcm" in cipher or "chacha" in cipher
    return Case(CaseKind.CIPHER, direction, cipher=cipher, mac=None if aead else mac, kex=KEX).at("client", client)


def assert_proven(sample: Sample, part: ClientPart, cipher: str, kex: str, mac: str) -> None:
    """A library client's sample as every driver's must be: the receiver's count, the server's own word for what
    was negotiated, the window its source says as the server saw it, both sides' CPU by wait4, its clock."""
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.bytes_received == SIZE and sample.verified == "count"  # the receiver's count: wc -c, or our sink
    negotiated = sample.negotiated
    assert negotiated is not None and sample.negotiated_from == "server log"  # sshd's own debug1 lines
    assert negotiated.cipher_c2s == negotiated.cipher_s2c == cipher and negotiated.kex == kex
    aead = "gcm" in cipher or "chacha" in cipher
    assert negotiated.mac_c2s == negotiated.mac_s2c == ("<implicit>" if aead else mac)
    assert negotiated.server_version is not None and negotiated.server_version.startswith("OpenSSH_")
    assert sample.client_window_bytes == part.window.value  # what its source says, as the server saw it
    # both sides' CPU by wait4: the driver (interpreter, library and its threads) and sshd with its command
    assert sample.client_cpu_seconds and sample.server_cpu_seconds
    assert sample.client_cpu_setup_seconds is not None and sample.client_cpu_seconds > sample.client_cpu_setup_seconds
    assert sample.data_seconds and sample.throughput_bytes_per_second
    assert sample.client_data_seconds is not None and 0 < sample.client_data_seconds <= sample.total_seconds  # type: ignore[operator]
    assert {"tcp_connected", "newkeys_received", "authenticated", "session_open"} <= set(sample.phases)


def against_dropbear(client: ClientInfo, case: Case) -> Negotiated:
    """A driver's sample against the embedded Dropbear, which logs no negotiation: the driver's own word is the
    proof, checked against the case; what it said (skipped where Dropbear is not installed)."""
    if (reason := missing("dropbear")) is not None:
        pytest.skip(f"dropbear: {reason}")
    with embedded_server("dropbear", client, None) as dropbear:
        sample = run_sample(EmbeddedTarget(dropbear), case, SIZE, 1, 60, SampleSettings())
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.negotiated_from == "driver" and sample.client_window_bytes is None
    negotiated = sample.negotiated
    assert negotiated is not None and negotiated.cipher_c2s == case.cipher and negotiated.mac_c2s == case.mac
    assert negotiated.server_version is not None and negotiated.server_version.startswith("dropbear_")
    return negotiated


def assert_compared(done: CompletedProcess[str], out: Path, part: ClientPart, case_id: str) -> dict[str, Any]:
    """A run of `--client openssh,NAME`: each case beside its client's, the client's facts as its driver and
    source say, every sample of its proven by the server's log, its tables, a valid results file; the data."""
    assert done.returncode == 0, done.stderr[-2000:]
    data: dict[str, Any] = json.loads(out.read_text())
    ids = {record["case"]["id"] for record in data["cases"]}
    assert {case_id, f"{case_id}^{part.name}"} <= ids
    (facts,) = data["environment"]["clients"]
    assert facts["name"] == part.name and facts["version"] == part.version() and facts["window"] == part.window.value
    assert facts["window_source"] == part.window.source
    ours = [s for s in data["samples"] if s["case_id"].endswith(f"^{part.name}") and not s["warmup"]]
    assert ours and all(s["ok"] and s["negotiated_from"] == "server log" for s in ours)
    assert f"{part.title} as the client" in done.stdout and "x plain" in done.stdout  # its column, its ratio
    validator("results").validate(data)
    return data


@pytest.mark.parametrize(("direction", "cipher"), [(Direction.UPLOAD, "aes128-gcm@openssh.com"),
                                                   (Direction.DOWNLOAD, "aes128-ctr")])
def test_a_paramiko_sample_moves_its_bytes_with_the_cipher_the_server_proves(
        target: EmbeddedTarget, direction: Direction, cipher: str) -> None:
    assert_proven(run_sample(target, _case(direction, cipher), SIZE, 1, 60, SampleSettings()), PARAMIKO, cipher,
                  KEX, MAC)


@pytest.mark.parametrize("part", [PARAMIKO, ASYNCSSH], ids=lambda part: part.name)
def test_two_driver_streams_through_a_compressor_end_as_promptly_as_ssh(target: EmbeddedTarget,
                                                                        part: ClientPart) -> None:
    """N drivers for --streams N, and a compressor around each, as around ssh. Each must end once its channel has
    closed: a driver still in its interpreter's teardown 2 s after its server had gone was ended as a server that
    crashed (measure/connection.py SERVER_GONE_GRACE), until it left at once (os._exit)."""
    if (why := part.unavailable()) is not None:
        pytest.skip(why)
    for direction in (Direction.UPLOAD, Direction.DOWNLOAD):
        case = replace(_case(direction, "aes128-ctr", client=part.name), streams=2, compression="gzip:1")
        sample = run_sample(target, case, SIZE, 1, 60, SampleSettings())
        assert sample.ok, (direction, sample.error, sample.stderr_tail)
        assert sample.bytes_received == SIZE and sample.stream_status == ["ok", "ok"]
        assert sample.negotiated_from == "server log" and sample.client_compressor_cpu_seconds


def test_against_a_server_that_logs_no_negotiation_the_driver_s_word_is_checked(client: ClientInfo) -> None:
    negotiated = against_dropbear(client, _case(Direction.DOWNLOAD, "aes128-ctr", "hmac-sha2-256"))
    assert negotiated.cipher_s2c == "aes128-ctr" and negotiated.mac_s2c == "hmac-sha2-256"


def test_a_cipher_paramiko_lacks_fails_with_its_reason_and_nothing_else_is_negotiated(
        target: EmbeddedTarget, server: EmbeddedOpenSSH) -> None:
    before = len(server.log_tail(1000))
    sample = run_sample(target, _case(Direction.UPLOAD, "chacha20-poly1305@openssh.com"), SIZE, 1, 60,
                        SampleSettings())
    assert not sample.ok and sample.negotiated_from is None and sample.exit_status == 255
    assert sample.error is not None and sample.error.endswith(
        "paramiko 5.1.0 cannot use cipher chacha20-poly1305@openssh.com (it has: aes128-ctr, aes192-ctr, "
        "aes256-ctr, aes128-cbc, aes192-cbc, aes256-cbc, 3des-cbc, aes128-gcm@openssh.com, aes256-gcm@openssh.com)")
    assert len(server.log_tail(1000)) == before, "refused before connecting: the server saw no connection"


def test_a_run_compares_paramiko_with_openssh_s_ssh_case_by_case(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("--client", "openssh,paramiko", "--ciphers", "aes128-gcm@openssh.com",
                    "--macs", "none", "--kex", "none", "--hostkeys", "none", "--directions", "upload",
                    "--no-controls", "--runs", "2", "--size", "4MiB", "--output", str(out), tmpdir=tmp_path)
    data = assert_compared(done, out, PARAMIKO, "cipher:aes128-gcm@openssh.com:upload")
    kex = {record["case"]["kex"] for record in data["cases"]}
    assert kex == {KEX}, "the partner key exchange is one every client has, so the two are one case apart"
    assert not leftovers(str(tmp_path))
    shown = sshbench("report", str(out), "--json", tmpdir=tmp_path)
    assert shown.returncode == 0, shown.stderr
    validator("report").validate(json.loads(shown.stdout))  # a link answer change may name the client
