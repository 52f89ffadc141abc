"""asyncssh measured like ssh and paramiko (issue 64): its driver against the real embedded OpenSSH server, both
directions, its bytes counted by the receiver, its cipher proven by the server's own log, its CPU by wait4; a name
it lacks (the sntrup761 key exchange OpenSSH 9.2 prefers, a cipher OpenSSH dropped) refused with its reason before
it connects, and skipped by a run with that reason; and a run of `--client openssh,asyncssh` compares the two."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sshbench.clientparts.asyncssh import ASYNCSSH
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.conftest import leftovers
from tests.integration.cli_helpers import sshbench
from tests.integration.test_clients import SIZE, against_dropbear, assert_compared, assert_proven

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(ASYNCSSH.unavailable() is not None, reason=str(ASYNCSSH.unavailable()))]

KEX = "curve25519-sha256"  # asyncssh has both of Curve25519's names; the plain one is what a run holds fixed
MAC = "hmac-sha2-256-etm@openssh.com"
SNTRUP = "sntrup761x25519-sha512@openssh.com"  # OpenSSH 9.2's first choice; asyncssh has it only with liboqs


@pytest.fixture(scope="module")
def target(server: EmbeddedOpenSSH) -> EmbeddedTarget:
    return EmbeddedTarget(server)


def _case(direction: Direction, cipher: str, mac: str = MAC, kex: str = KEX) -> Case:
    aead = "gcm" in cipher or "chacha" in cipher
    return Case(CaseKind.CIPHER, direction, cipher=cipher, mac=None if aead else mac, kex=kex).at("client", "asyncssh")


@pytest.mark.parametrize(("direction", "cipher"), [(Direction.UPLOAD, "chacha20-poly1305@openssh.com"),
                                                   (Direction.DOWNLOAD, "aes128-ctr"),
                                                   (Direction.UPLOAD, "aes128-ctr")])
def test_an_asyncssh_sample_moves_its_bytes_with_the_cipher_the_server_proves(
        target: EmbeddedTarget, direction: Direction, cipher: str) -> None:
    sample = run_sample(target, _case(direction, cipher), SIZE, 1, 60, SampleSettings())
    assert_proven(sample, ASYNCSSH, cipher, KEX, MAC)
    negotiated = sample.negotiated
    assert negotiated is not None and negotiated.compression_c2s == negotiated.compression_s2c == "none"
    phases = sample.phases  # its own marks: the TCP connect, asyncssh's "Completed key exchange", auth_completed
    assert phases["tcp_connected"] <= phases["newkeys_received"] <= phases["authenticated"] <= phases["session_open"]


def test_against_a_server_that_logs_no_negotiation_the_driver_s_word_is_checked(client: ClientInfo) -> None:
    negotiated = against_dropbear(client, _case(Direction.UPLOAD, "aes128-ctr", "hmac-sha2-256"))
    assert negotiated.kex == KEX and negotiated.hostkey  # its KEXINITs, by asyncssh's own rule


@pytest.mark.parametrize(("case", "said"), [
    (_case(Direction.UPLOAD, "aes128-ctr", kex=SNTRUP), f"cannot use key exchange {SNTRUP} (it has: "),
    (_case(Direction.DOWNLOAD, "rijndael-cbc@lysator.liu.se"), "cannot use cipher rijndael-cbc@lysator.liu.se (it "
     "has: chacha20-poly1305@openssh.com, aes256-gcm@openssh.com, aes128-gcm@openssh.com, aes256-ctr, "),
], ids=["kex", "cipher"])
def test_a_name_asyncssh_lacks_fails_with_its_reason_and_nothing_else_is_negotiated(
        target: EmbeddedTarget, server: EmbeddedOpenSSH, case: Case, said: str) -> None:
    before = len(server.log_tail(1000))
    sample = run_sample(target, case, SIZE, 1, 60, SampleSettings())
    assert not sample.ok and sample.negotiated_from is None and sample.exit_status == 255
    assert sample.error is not None and f": asyncssh 2.24.1 {said}" in sample.error, sample.error
    assert len(server.log_tail(1000)) == before, "refused before connecting: the server saw no connection"


def test_a_run_compares_asyncssh_with_openssh_s_ssh_case_by_case(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("--client", "openssh,asyncssh", "--ciphers", "chacha20-poly1305@openssh.com",
                    "--macs", "none", "--kex", "none", "--hostkeys", "none", "--directions", "download",
                    "--no-controls", "--runs", "2", "--size", "4MiB", "--output", str(out), tmpdir=tmp_path)
    data = assert_compared(done, out, ASYNCSSH, "cipher:chacha20-poly1305@openssh.com:download")
    ours = [s for s in data["samples"] if s["case_id"].endswith("^asyncssh") and not s["warmup"]]
    assert all(s["client_window_bytes"] == ASYNCSSH.window.value for s in ours)
    assert {record["case"]["kex"] for record in data["cases"]} == {KEX}, "a partner every client has: its own name"
    assert not leftovers(str(tmp_path))


def test_a_run_skips_the_cases_of_a_key_exchange_asyncssh_lacks_saying_so(tmp_path: Path) -> None:
    """The driver is asked once what it has (--probe); a partner it lacks skips its cases before any sample."""
    out = tmp_path / "r.json"
    done = sshbench("--client", "openssh,asyncssh", "--ciphers", "aes128-ctr", "--macs", "none", "--kex", "none",
                    "--hostkeys", "none", "--directions", "upload", "--partner-kex", SNTRUP, "--no-controls",
                    "--runs", "2", "--size", "1MiB", "--output", str(out), tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    records = {record["case"]["id"]: record for record in json.loads(out.read_text())["cases"]}
    ours = records["cipher:aes128-ctr:upload^asyncssh"]
    assert ours["status"] == "skipped", ours
    assert ours["reason"].startswith(f"asyncssh 2.24.1 cannot use key exchange {SNTRUP} (it has: "), ours["reason"]
    assert records["cipher:aes128-ctr:upload"]["status"] != "skipped"  # ssh's own case is measured as ever
