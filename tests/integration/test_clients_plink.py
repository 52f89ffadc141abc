"""PuTTY's plink measured like ssh: its driver runs the real plink 0.78 against the real embedded OpenSSH server on
loopback (the run's temporary keys, its key converted by puttygen), the bytes are counted by the receiver, what it
negotiated is plink's own -v word and the server's log alike, its window the server's log's; what it cannot be
made to use fails in one line (before connecting where it lacks the name), a run skips those cases saying so, a
host key not pinned ends the connection, and the real ~/.putty, ~/.config/putty and ~/.ssh are never touched."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from sshbench.clientparts import DriverLine
from sshbench.clientparts.plink import PLINK
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers import embedded_server
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.conftest import leftovers, only_rsa_pinned, untouched
from tests.integration.cli_helpers import sshbench
from tests.integration.other_servers import missing
from tests.integration.test_json_outputs import validator

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(PLINK.unavailable() is not None, reason=str(PLINK.unavailable()))]

SIZE = 8 << 20
CIPHER = "aes256-ctr"  # what plink 0.78 agrees with the embedded sshd 9.2p1: its first of what the server offers
MAC = "hmac-sha2-256"
KEX = "sntrup761x25519-sha512@openssh.com"
OTHER = "aes128-ctr"  # one it has, and cannot be made to agree: it has no option to choose a cipher
LACKED = "blowfish-cbc"  # one it takes only after a question -batch refuses (below its warning line)
HOMES = [os.path.expanduser(p) for p in ("~/.ssh", "~/.putty", "~/.config/putty")]


@pytest.fixture(scope="module")
def target(server: EmbeddedOpenSSH) -> EmbeddedTarget:
    return EmbeddedTarget(server)


@pytest.fixture(autouse=True)
def homes_untouched(server: EmbeddedOpenSSH) -> Iterator[None]:
    with untouched(HOMES, server.workdir, "plink"):
        yield None


def _case(direction: Direction, cipher: str = CIPHER, kex: str = KEX, compression: str = "off",
          streams: int = 1) -> Case:
    case = Case(CaseKind.CIPHER, direction, cipher=cipher, mac=MAC, kex=kex)
    return replace(case, compression=compression, streams=streams).at("client", "plink")


def _driver_line(lines: list[str]) -> DriverLine | None:
    return next((found for text in reversed(lines) if (found := DriverLine.parse(text)) is not None), None)


@pytest.mark.parametrize("direction", [Direction.UPLOAD, Direction.DOWNLOAD])
def test_a_plink_sample_moves_its_bytes_with_what_plink_and_the_server_both_say(
        target: EmbeddedTarget, server: EmbeddedOpenSSH, direction: Direction) -> None:
    strangers = server.strangers
    sample = run_sample(target, _case(direction), SIZE, 1, 60, SampleSettings())
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.bytes_received == SIZE and sample.verified == "count"  # the receiver's count, not plink's
    negotiated = sample.negotiated
    assert negotiated is not None and sample.negotiated_from == "server log"  # and plink's -v agreed, field by field
    assert negotiated.cipher_c2s == negotiated.cipher_s2c == CIPHER and negotiated.kex == KEX
    assert negotiated.mac_c2s == negotiated.mac_s2c == MAC and negotiated.hostkey == "ssh-ed25519"
    assert negotiated.compression_c2s == negotiated.compression_s2c == "none"
    assert negotiated.server_version is not None and negotiated.server_version.startswith("OpenSSH_9")
    assert sample.client_window_bytes == PLINK.window.value  # OUR_V2_BIGWIN, as the server saw it
    # wait4: plink is the driver's reaped child, so its CPU is in the connection's client CPU
    assert sample.client_cpu_seconds and sample.server_cpu_seconds
    assert sample.client_cpu_setup_seconds is not None and sample.client_cpu_seconds > sample.client_cpu_setup_seconds
    assert sample.data_seconds and sample.throughput_bytes_per_second
    assert server.strangers == strangers, "announced by its process: the listener served it"
    made = Path(server.workdir, "plink-home")
    assert (made / "identity.ppk").read_text().startswith("PuTTY-User-Key-File-3: ssh-ed25519")
    assert oct((made / "identity.ppk").stat().st_mode & 0o777) == "0o600" and (made / "putty").is_dir()


def test_with_ssh_compression_plink_is_given_c_and_says_which_zlib(target: EmbeddedTarget) -> None:
    sample = run_sample(target, _case(Direction.UPLOAD, compression="ssh"), SIZE, 1, 60, SampleSettings())
    assert sample.ok, (sample.error, sample.stderr_tail)
    negotiated = sample.negotiated
    assert negotiated is not None and sample.negotiated_from == "server log" and sample.bytes_received == SIZE
    assert negotiated.compression_c2s == negotiated.compression_s2c == "zlib@openssh.com"


def test_two_plink_streams_share_one_prepared_home(target: EmbeddedTarget) -> None:
    sample = run_sample(target, _case(Direction.UPLOAD, streams=2), SIZE, 1, 60, SampleSettings())
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.bytes_received == SIZE and sample.stream_status == ["ok", "ok"]
    assert sample.negotiated_from == "server log"


def test_a_cipher_plink_lacks_is_refused_before_connecting(target: EmbeddedTarget, server: EmbeddedOpenSSH) -> None:
    before = len(server.log_tail(1000))
    sample = run_sample(target, _case(Direction.UPLOAD, LACKED), SIZE, 1, 60, SampleSettings())
    assert not sample.ok and sample.negotiated_from is None and sample.exit_status == 255
    assert sample.error is not None and sample.error.endswith(
        f"plink 0.78 cannot use cipher {LACKED} (it has: aes256-ctr, aes256-cbc, rijndael-cbc@lysator.liu.se, "
        "aes192-ctr, aes192-cbc, aes128-ctr, aes128-cbc, chacha20-poly1305@openssh.com, aes128-gcm@openssh.com, "
        "aes256-gcm@openssh.com, 3des-ctr, 3des-cbc)"), sample.error
    assert len(server.log_tail(1000)) == before, "refused before connecting: the server saw no connection"


def test_a_cipher_plink_has_but_does_not_choose_fails_in_one_line_naming_what_it_took(
        target: EmbeddedTarget) -> None:
    """The driver cannot tell plink a cipher; the run never asks for this (it skips the case, below), but a driver
    asked anyway learns it once connected: its one line says what plink agreed, and the sample fails on the
    server's log, which says the same."""
    sample = run_sample(target, _case(Direction.UPLOAD, OTHER), SIZE, 1, 60, SampleSettings())
    assert not sample.ok and sample.exit_status == 255
    assert sample.error is not None and sample.error.endswith(
        f"asked for client->server cipher {OTHER} but {CIPHER} was negotiated"), sample.error
    assert f"sshbench-client plink: asked for {OTHER} but plink 0.78 agreed {CIPHER} (cipher_c2s): plink has no " \
           "option to choose it, and takes its first that the server offers" in sample.stderr_tail, sample.stderr_tail


def test_a_host_key_not_pinned_ends_the_connection_without_a_question(server: EmbeddedOpenSSH,
                                                                      tmp_path: Path) -> None:
    """Only the server's RSA key pinned: plink takes the server's ed25519 key, which no -hostkey names, and ends the
    connection (in -batch, without asking); nothing is stored of it."""
    request, private = only_rsa_pinned(server, tmp_path)
    done = subprocess.run(request.argv(PLINK), input="y\n", capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 255 and "reached" not in done.stdout
    assert done.stderr.splitlines()[-1] == "sshbench-client plink: FATAL ERROR: Host key not in manually configured " \
                                           "list", done.stderr
    assert _driver_line(done.stderr.splitlines()) is None
    assert not list((private / "plink-home" / "putty").glob("sshhostkeys*")), "nothing was stored"


def test_against_dropbear_which_logs_nothing_plink_s_own_word_is_the_proof(client: ClientInfo) -> None:
    if (reason := missing("dropbear")) is not None:
        pytest.skip(f"dropbear: {reason}")
    with embedded_server("dropbear", client, None) as dropbear:
        case = _case(Direction.DOWNLOAD, kex="curve25519-sha256")  # Dropbear 2022.83 has no NTRU Prime
        sample = run_sample(EmbeddedTarget(dropbear), case, SIZE, 1, 60, SampleSettings())
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.negotiated_from == "driver" and sample.client_window_bytes is None and sample.bytes_received == SIZE
    negotiated = sample.negotiated
    assert negotiated is not None and negotiated.cipher_s2c == CIPHER and negotiated.kex == "curve25519-sha256"
    assert negotiated.server_version is not None and negotiated.server_version.startswith("dropbear_")


def test_a_run_compares_plink_with_openssh_s_ssh_and_skips_what_it_cannot_be_held_at(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("--client", "openssh,plink", "--ciphers", f"{CIPHER},{OTHER}", "--macs", "none", "--kex", "none",
                    "--hostkeys", "none", "--directions", "download", "--no-controls", "--runs", "2", "--size", "4MiB",
                    "--output", str(out), tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(out.read_text())
    records = {record["case"]["id"]: record for record in data["cases"]}
    assert {f"cipher:{CIPHER}:download", f"cipher:{CIPHER}:download^plink", f"cipher:{OTHER}:download"} <= set(records)
    other = records[f"cipher:{OTHER}:download^plink"]
    assert other["status"] == "skipped" and (f"PuTTY's plink 0.78 cannot use cipher {OTHER} here: plink has no option "
                                             f"to choose one: it takes its first that the server offers, {CIPHER}"
                                             in json.dumps(other)), other
    (facts,) = data["environment"]["clients"]
    assert facts["name"] == "plink" and facts["version"] == "0.78" and facts["window"] == PLINK.window.value
    assert {record["case"]["kex"] for record in data["cases"]} == {KEX}, "plink's one key exchange, for every client"
    assert {record["case"]["mac"] for record in data["cases"]} == {MAC}
    ours = [s for s in data["samples"] if s["case_id"].endswith("^plink") and not s["warmup"]]
    assert ours and all(s["ok"] and s["negotiated_from"] == "server log" for s in ours)
    assert all(s["client_window_bytes"] == PLINK.window.value for s in ours)
    assert "PuTTY's plink as the client" in done.stdout
    assert not leftovers(str(tmp_path))
    validator("results").validate(data)
