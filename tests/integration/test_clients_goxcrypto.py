"""Go's x/crypto/ssh measured like ssh (issue 64): its compiled driver against the real embedded OpenSSH server, both
directions, its bytes counted by the receiver, its cipher proven by the server's own log, its window as the server
saw it, its CPU by wait4; a name it lacks refused with its reason before it connects; a host key known_hosts does
not hold for the algorithm it chose ends the connection; a run of `--client openssh,goxcrypto` compares the two;
and `sshbench clients install` builds it from the pinned modules without the network once they are fetched."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from sshbench.clientparts import DriverLine
from sshbench.clientparts.goxcrypto import GOXCRYPTO
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.plumbing import procs
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.conftest import leftovers, only_rsa_pinned, untouched
from tests.integration.cli_helpers import sshbench
from tests.integration.test_clients import SIZE, against_dropbear, assert_compared, assert_proven

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(GOXCRYPTO.unavailable() is not None, reason=str(GOXCRYPTO.unavailable()))]

KEX = "curve25519-sha256"  # what a run holds fixed with Go in it: it has both of Curve25519's names
MAC = "hmac-sha2-256-etm@openssh.com"
SNTRUP = "sntrup761x25519-sha512@openssh.com"  # OpenSSH 9.2's first choice, which x/crypto/ssh does not have
COMM = "sshbench-goxcrypto"[:15]  # /proc/PID/comm keeps 15 characters


@pytest.fixture(scope="module")
def target(server: EmbeddedOpenSSH) -> EmbeddedTarget:
    return EmbeddedTarget(server)


@pytest.fixture(autouse=True)
def home_untouched(server: EmbeddedOpenSSH) -> Iterator[None]:
    with untouched([os.path.expanduser("~/.ssh")], server.workdir, COMM):
        yield None


def _case(direction: Direction, cipher: str, mac: str = MAC, kex: str = KEX) -> Case:
    aead = "gcm" in cipher or "chacha" in cipher
    return Case(CaseKind.CIPHER, direction, cipher=cipher, mac=None if aead else mac, kex=kex).at("client",
                                                                                                   "goxcrypto")


@pytest.mark.parametrize(("direction", "cipher"), [(Direction.UPLOAD, "aes128-gcm@openssh.com"),
                                                   (Direction.DOWNLOAD, "chacha20-poly1305@openssh.com"),
                                                   (Direction.DOWNLOAD, "aes128-ctr")])
def test_a_go_sample_moves_its_bytes_with_the_cipher_the_server_proves(
        target: EmbeddedTarget, direction: Direction, cipher: str) -> None:
    sample = run_sample(target, _case(direction, cipher), SIZE, 1, 60, SampleSettings())
    assert_proven(sample, GOXCRYPTO, cipher, KEX, MAC)  # and its window, 2 MiB, as the server logged it
    negotiated = sample.negotiated
    assert negotiated is not None and negotiated.compression_c2s == negotiated.compression_s2c == "none"
    phases = sample.phases  # its own marks: the TCP connect, its host key callback, NewClientConn's return
    assert phases["tcp_connected"] <= phases["newkeys_received"] <= phases["authenticated"] <= phases["session_open"]


def test_two_go_streams_through_a_compressor_end_promptly(target: EmbeddedTarget) -> None:
    for direction in (Direction.UPLOAD, Direction.DOWNLOAD):
        case = replace(_case(direction, "aes128-ctr"), streams=2, compression="gzip:1")
        sample = run_sample(target, case, SIZE, 1, 60, SampleSettings())
        assert sample.ok, (direction, sample.error, sample.stderr_tail)
        assert sample.bytes_received == SIZE and sample.stream_status == ["ok", "ok"]
        assert sample.negotiated_from == "server log" and sample.client_compressor_cpu_seconds


@pytest.mark.parametrize(("case", "said"), [
    (_case(Direction.UPLOAD, "aes128-ctr", kex=SNTRUP), f"cannot use key exchange {SNTRUP} (it has: mlkem768x25519-"
     "sha256, curve25519-sha256, "),
    (_case(Direction.DOWNLOAD, "aes256-cbc"), "cannot use cipher aes256-cbc (it has: aes128-gcm@openssh.com, "),
], ids=["kex", "cipher"])
def test_a_name_go_lacks_fails_with_its_reason_before_connecting(
        target: EmbeddedTarget, server: EmbeddedOpenSSH, case: Case, said: str) -> None:
    """x/crypto/ssh drops a name it lacks silently (ssh.Config's documentation); its driver refuses it instead."""
    before = len(server.log_tail(1000))
    sample = run_sample(target, case, SIZE, 1, 60, SampleSettings())
    assert not sample.ok and sample.negotiated_from is None and sample.exit_status == 255
    assert sample.error is not None and f": x/crypto/ssh 0.58.0 {said}" in sample.error, sample.error
    assert len(server.log_tail(1000)) == before, "refused before connecting: the server saw no connection"


def test_a_host_key_known_hosts_does_not_hold_ends_the_connection(server: EmbeddedOpenSSH, tmp_path: Path) -> None:
    """Only the server's ed25519 key known: x/crypto/ssh prefers ECDSA and RSA (common.go defaultHostKeyAlgos; it
    agrees ecdsa-sha2-nistp256 with the embedded server) and knownhosts refuses the key it is shown, in one line;
    nothing is written anywhere (knownhosts only reads)."""
    request, private = only_rsa_pinned(server, tmp_path)
    endpoint = server.endpoint()
    known = Path(request.known_hosts)
    known.write_text("".join(line for line in Path(endpoint.known_hosts).read_text().splitlines(True)
                             if " ssh-ed25519 " in line))
    before = known.read_text()
    done = procs.run_text(request.argv(GOXCRYPTO), 60)
    assert done.returncode == 255 and "reached" not in done.stdout
    last = done.stderr.splitlines()[-1]
    assert last.startswith("sshbench-client goxcrypto: ssh: handshake failed: knownhosts: key mismatch"), done.stderr
    assert not any(DriverLine.parse(line) for line in done.stderr.splitlines())
    assert known.read_text() == before and sorted(p.name for p in private.iterdir()) == ["client_ed25519",
                                                                                         "known_hosts"]


def test_against_a_server_that_logs_no_negotiation_the_driver_s_word_is_checked(client: ClientInfo) -> None:
    negotiated = against_dropbear(client, _case(Direction.UPLOAD, "aes128-ctr", "hmac-sha2-256"))
    assert negotiated.kex == KEX and negotiated.hostkey  # as the library's AlgorithmsConnMetadata says


def test_a_run_compares_go_with_openssh_s_ssh_case_by_case(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("--client", "openssh,goxcrypto", "--ciphers", "aes128-gcm@openssh.com", "--macs", "none",
                    "--kex", "none", "--hostkeys", "none", "--directions", "download", "--no-controls",
                    "--runs", "2", "--size", "4MiB", "--output", str(out), tmpdir=tmp_path)
    data = assert_compared(done, out, GOXCRYPTO, "cipher:aes128-gcm@openssh.com:download")
    ours = [s for s in data["samples"] if s["case_id"].endswith("^goxcrypto") and not s["warmup"]]
    assert all(s["client_window_bytes"] == GOXCRYPTO.window.value for s in ours)
    assert {record["case"]["kex"] for record in data["cases"]} == {KEX}
    assert not leftovers(str(tmp_path))


def test_clients_install_builds_it_from_the_pinned_modules_offline_and_only_once(tmp_path: Path) -> None:
    """With the modules fetched (this test runs where the driver was built), the build needs no network
    (GOPROXY=off); the program it made says the pinned version, and a second install builds nothing."""
    env = {"SSHBENCH_DRIVERS": str(tmp_path / "drivers"), "GOPROXY": "off", "GOFLAGS": "-mod=readonly"}
    done = sshbench("clients", "install", "goxcrypto", tmpdir=tmp_path, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    made = tmp_path / "drivers" / "goxcrypto"
    assert sorted(p.name for p in made.iterdir()) == [".sshbench-build", "sshbench-goxcrypto"]
    stamp = json.loads((made / ".sshbench-build").read_text())
    assert stamp["release"] == "0.58.0" and stamp["module"] == "golang.org/x/crypto" and stamp["toolchain"]
    again = sshbench("clients", "install", "all", tmpdir=tmp_path, env=env)
    assert again.returncode == 0 and "is built from this sshbench's sources" in again.stderr, again.stderr
    assert not [p for p in (tmp_path / "drivers").iterdir() if p.name != "goxcrypto"], "no build left half made"
    shutil.rmtree(tmp_path / "drivers")
