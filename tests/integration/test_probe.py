"""One sample against the real embedded server: what it records, and how it fails."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from sshbench.measure.pipe import run_sample
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.base import ServerProcess
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.units import MiB

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("direction", [Direction.UPLOAD, Direction.DOWNLOAD])
@pytest.mark.parametrize(("cipher", "mac"), [("aes128-gcm@openssh.com", None),
                                             ("aes128-ctr", "hmac-sha2-256-etm@openssh.com")])
def test_transfer_sample_records_everything(server: EmbeddedOpenSSH, direction: Direction, cipher: str,
                                            mac: str | None) -> None:
    size = 8 * MiB + 123  # not a multiple of any buffer size
    case = Case(CaseKind.CIPHER, direction, cipher=cipher, mac=mac)
    sample = run_sample(EmbeddedTarget(server), case, size, round_no=1, timeout=60)
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.bytes_received == size
    neg = sample.negotiated
    assert neg is not None and neg.cipher_c2s == neg.cipher_s2c == cipher
    assert neg.mac_c2s == (mac or "<implicit>")
    assert sample.data_seconds is not None and sample.setup_seconds is not None
    assert sample.data_seconds > 0 and sample.setup_seconds > 0
    assert sample.total_seconds is not None and sample.total_seconds > sample.setup_seconds + sample.data_seconds
    for cpu in (sample.client_cpu_seconds, sample.server_cpu_seconds):
        assert cpu is not None and cpu > 0
    # the data phase is charged its own CPU, less than the connection's total
    for part, whole in ((sample.client_cpu_data_seconds, sample.client_cpu_seconds),
                        (sample.server_cpu_data_seconds, sample.server_cpu_seconds)):
        assert part is not None and whole is not None and 0 < part < whole
    assert sample.exit_status == 0 and not sample.warmup and sample.error is None


def test_setup_sample_times_the_handshake(server: EmbeddedOpenSSH) -> None:
    case = Case(CaseKind.KEX, Direction.SETUP, kex="curve25519-sha256")
    sample = run_sample(EmbeddedTarget(server), case, 0, round_no=0, timeout=30)
    assert sample.ok, sample.error
    assert sample.warmup and sample.size_bytes == 0 and sample.bytes_received is None
    assert sample.negotiated is not None and sample.negotiated.kex == "curve25519-sha256"
    assert sample.kex_seconds is not None and 0 < sample.kex_seconds < (sample.setup_seconds or 0)
    assert sample.server_cpu_seconds is not None


def test_hostkey_sample_uses_the_requested_key(server: EmbeddedOpenSSH) -> None:
    case = Case(CaseKind.HOSTKEY, Direction.SETUP, hostkey="ecdsa-sha2-nistp384")
    sample = run_sample(EmbeddedTarget(server), case, 0, round_no=1, timeout=30)
    assert sample.ok, sample.error
    assert sample.negotiated is not None and sample.negotiated.hostkey == "ecdsa-sha2-nistp384"


def test_refused_algorithm_is_a_failed_sample_with_reason(client: ClientInfo) -> None:
    sup = client.supported
    enable = type(sup)(cipher=("aes128-ctr",), mac=sup.mac, kex=sup.kex, hostkey=sup.hostkey)
    with EmbeddedOpenSSH(client, enable=enable) as srv:
        case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-ctr", mac="hmac-sha1")
        sample = run_sample(EmbeddedTarget(srv), case, MiB, round_no=1, timeout=30)
    assert not sample.ok
    assert sample.error == "server refused: no matching cipher found"
    assert any("no matching cipher" in line for line in sample.stderr_tail)


class _WrongPort(EmbeddedTarget):
    """A target whose ssh points at a port nobody listens on."""

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]:
        argv = super().ssh_argv(case, remote_command)
        return [*argv[:-2], "-o", "Port=1", *argv[-2:]]


def test_ssh_failure_is_recorded_with_stderr_tail(server: EmbeddedOpenSSH) -> None:
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", mac="hmac-sha1")
    sample = run_sample(_WrongPort(server), case, MiB, round_no=1, timeout=30)
    assert not sample.ok and sample.exit_status == 255
    assert sample.error == "ssh ended before the remote command started"
    assert any("Connection refused" in line for line in sample.stderr_tail)


@pytest.fixture
def silent_listener() -> Iterator[int]:
    """Accepts TCP and never says a word: the shape of a hung server."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield sock.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    sock.close()


class _Silent(EmbeddedTarget):
    def __init__(self, server: EmbeddedOpenSSH, port: int) -> None:
        super().__init__(server)
        self.port = port

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]:
        argv = super().ssh_argv(case, remote_command)
        return [*argv[:-2], "-o", f"Port={self.port}", *argv[-2:]]

    def server_process(self, peer_port: int) -> ServerProcess | None:
        return None


def test_hung_server_times_out(server: EmbeddedOpenSSH, silent_listener: int) -> None:
    case = Case(CaseKind.KEX, Direction.SETUP, kex="curve25519-sha256")
    sample = run_sample(_Silent(server, silent_listener), case, 0, round_no=1, timeout=2)
    assert not sample.ok and sample.error == "timed out after 2s"
    assert sample.total_seconds is not None and sample.total_seconds < 10
