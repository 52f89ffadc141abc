"""Dropbear's dbclient measured like ssh (issue 64): its driver becomes dbclient against the real embedded OpenSSH
server, the bytes are counted by the receiver, what it negotiated (cipher, MAC, its one key exchange, no
compression) and the window it advertised are the server's own log's word, its CPU is wait4's; a cipher it lacks
fails with its reason, before connecting, and a run skips that case saying so. The real ~/.ssh is never touched."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from sshbench.clientparts.dbclient import DBCLIENT
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.conftest import leftovers, only_rsa_pinned, untouched
from tests.integration.cli_helpers import sshbench
from tests.integration.test_json_outputs import validator

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(DBCLIENT.unavailable() is not None, reason=str(DBCLIENT.unavailable()))]

SIZE = 8 << 20
KEX = "curve25519-sha256"  # the one it negotiates: its first, and it has no option to choose another
MAC = "hmac-sha2-256"  # of its two MACs (hmac-sha1 the other), the one the run holds for non-AEAD ciphers
LACKED = "aes128-gcm@openssh.com"  # Dropbear builds GCM only with DROPBEAR_ENABLE_GCM_MODE (0 by default)
SSH_DIR = os.path.expanduser("~/.ssh")


@pytest.fixture(scope="module")
def target(server: EmbeddedOpenSSH) -> EmbeddedTarget:
    return EmbeddedTarget(server)


@pytest.fixture(autouse=True)
def home_untouched(server: EmbeddedOpenSSH) -> Iterator[None]:
    with untouched([SSH_DIR], server.workdir, "dbclient"):
        yield None


def _case(direction: Direction, cipher: str) -> Case:
    aead = "chacha" in cipher or "gcm" in cipher
    return Case(CaseKind.CIPHER, direction, cipher=cipher, mac=None if aead else MAC, kex=KEX).at("client",
                                                                                                  "dbclient")


@pytest.mark.parametrize(("direction", "cipher"), [(Direction.UPLOAD, "aes128-ctr"),
                                                   (Direction.DOWNLOAD, "chacha20-poly1305@openssh.com")])
def test_a_dbclient_sample_moves_its_bytes_with_what_the_server_proves(
        target: EmbeddedTarget, server: EmbeddedOpenSSH, direction: Direction, cipher: str) -> None:
    sample = run_sample(target, _case(direction, cipher), SIZE, 1, 60, SampleSettings())
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.bytes_received == SIZE and sample.verified == "count"
    negotiated = sample.negotiated
    assert negotiated is not None and sample.negotiated_from == "server log"  # dbclient itself says nothing
    assert negotiated.cipher_c2s == negotiated.cipher_s2c == cipher and negotiated.kex == KEX
    assert negotiated.mac_c2s == negotiated.mac_s2c == ("<implicit>" if "chacha" in cipher else MAC)
    # dbclient always asks for zlib@openssh.com; its connection is served without, and the server says none
    assert negotiated.compression_c2s == negotiated.compression_s2c == "none"
    assert sample.client_window_bytes == DBCLIENT.window.value  # DEFAULT_RECV_WINDOW, as the server saw it
    # wait4: dbclient is the driver's own process (it execs), so its CPU is the connection's client CPU
    assert sample.client_cpu_seconds and sample.server_cpu_seconds
    assert sample.client_cpu_setup_seconds is not None and sample.client_cpu_seconds > sample.client_cpu_setup_seconds
    assert sample.data_seconds and sample.throughput_bytes_per_second
    made = Path(server.workdir, "dbclient-home")
    assert (made / ".ssh" / "known_hosts").is_file() and (made / "identity").is_file()  # in the run's 0700 dir


def test_two_dbclient_streams_share_one_prepared_home(target: EmbeddedTarget) -> None:
    sample = run_sample(target, replace(_case(Direction.UPLOAD, "aes128-ctr"), streams=2), SIZE, 1, 60,
                        SampleSettings())
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.bytes_received == SIZE and sample.stream_status == ["ok", "ok"]
    assert sample.negotiated_from == "server log"


def test_a_cipher_dbclient_lacks_fails_with_its_reason_before_connecting(
        target: EmbeddedTarget, server: EmbeddedOpenSSH) -> None:
    before = len(server.log_tail(1000))
    sample = run_sample(target, _case(Direction.UPLOAD, LACKED), SIZE, 1, 60, SampleSettings())
    assert not sample.ok and sample.negotiated_from is None and sample.exit_status == 255
    assert sample.error is not None and sample.error.endswith(
        f"dbclient 2022.83 cannot use cipher {LACKED} (it has: chacha20-poly1305@openssh.com, aes128-ctr, "
        "aes256-ctr)"), sample.error
    assert len(server.log_tail(1000)) == before, "refused before connecting: the server saw no connection"


def test_a_host_key_not_pinned_ends_the_connection_and_is_never_accepted(server: EmbeddedOpenSSH,
                                                                           tmp_path: Path) -> None:
    """Only the server's RSA key pinned: dbclient chooses ed25519, finds the line that matches nothing and exits
    ("host key mismatch"), where without it dbclient would ask, and read its answer from stdin (no tty here)."""
    request, private = only_rsa_pinned(server, tmp_path, cipher="aes128-ctr", mac=MAC)
    done = subprocess.run(request.argv(DBCLIENT), input="y\n", capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode != 0 and "reached" not in done.stdout
    assert "ssh-ed25519 host key mismatch for 127.0.0.1" in done.stderr, done.stderr
    assert "Do you want to continue" not in done.stderr
    pinned = (private / "dbclient-home" / ".ssh" / "known_hosts").read_text()
    assert len(pinned.splitlines()) == 8 and " ssh-rsa AAAA" in pinned, "nothing was added to it"


def test_a_run_compares_dbclient_with_openssh_s_ssh_and_skips_what_it_lacks(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("--client", "openssh,dbclient", "--ciphers", f"aes128-ctr,{LACKED}", "--macs", "none",
                    "--kex", "none", "--hostkeys", "none", "--directions", "download", "--no-controls", "--runs",
                    "2", "--size", "4MiB", "--output", str(out), tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(out.read_text())
    records = {record["case"]["id"]: record for record in data["cases"]}
    assert {"cipher:aes128-ctr:download", "cipher:aes128-ctr:download^dbclient"} <= set(records)
    lacked = records[f"cipher:{LACKED}:download^dbclient"]
    assert lacked["status"] == "skipped" and "dbclient 2022.83 cannot use cipher" in json.dumps(lacked)
    (facts,) = data["environment"]["clients"]
    assert facts["name"] == "dbclient" and facts["version"] == "2022.83" and facts["window"] == DBCLIENT.window.value
    assert {record["case"]["kex"] for record in data["cases"]} == {KEX}
    assert {record["case"]["mac"] for record in data["cases"] if "ctr" in record["case"]["id"]} == {MAC}
    ours = [s for s in data["samples"] if s["case_id"].endswith("^dbclient") and not s["warmup"]]
    assert ours and all(s["ok"] and s["negotiated_from"] == "server log" for s in ours)
    assert "Dropbear's dbclient as the client" in done.stdout
    assert not leftovers(str(tmp_path))
    validator("results").validate(data)
