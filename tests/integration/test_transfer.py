"""File methods (scp, scp -O, sftp, rsync) against the real embedded sshd, with real files, both directions."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from sshbench.measure.datapath import Payload, make_payload
from sshbench.measure.filetool import TransferFiles, prepared_files, run_transfer_sample
from sshbench.measure.pipe import SampleSettings
from sshbench.options import FileShape
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.localfiles import LocalFiles
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.units import MiB

CIPHER = "aes128-ctr"
MAC = "hmac-sha2-256-etm@openssh.com"
# Large enough that the data phase outlasts the noise of the 1-byte run on a loaded 2-core CI machine:
# 3 MiB once took 0.135 s against 0.136 s for 1 byte (5 ms of data at 600 MB/s) and failed the sample.
FILE_BYTES = 64 * MiB + 17
METHODS = ["scp", "scp-legacy", "sftp", "sftp-B131072-R128", "rsync"]


@pytest.fixture(scope="module")
def target(server: EmbeddedOpenSSH) -> EmbeddedTarget:
    return EmbeddedTarget(server)


@pytest.fixture(scope="module")
def payload(server: EmbeddedOpenSSH) -> Payload:
    assert server.dir is not None
    return make_payload("random", server.dir, seed=3)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("work")


@pytest.fixture(scope="module")
def one_file(target: EmbeddedTarget, payload: Payload, workdir: Path) -> Iterator[TransferFiles]:
    with prepared_files(target, str(workdir), FileShape(FILE_BYTES), payload, sink_file=True,
                        verify=True) as files:
        yield files


def _case(method: str, direction: Direction) -> Case:
    return Case(CaseKind.CIPHER, direction, cipher=CIPHER, mac=MAC, method=method)


@pytest.mark.parametrize("direction", [Direction.UPLOAD, Direction.DOWNLOAD])
@pytest.mark.parametrize("method", METHODS)
def test_each_method_moves_a_verified_file(target: EmbeddedTarget, one_file: TransferFiles, payload: Payload,
                                           method: str, direction: Direction) -> None:
    sample = run_transfer_sample(target, _case(method, direction), one_file, 1, 60, SampleSettings(payload))
    assert sample.ok, (sample.error, sample.stderr_tail)
    assert sample.verified == "size+sha256"
    assert sample.bytes_received == FILE_BYTES
    negotiated = sample.negotiated
    assert negotiated is not None and negotiated.cipher_c2s == CIPHER and negotiated.mac_s2c == MAC
    assert sample.total_seconds and sample.overhead_seconds and sample.data_seconds
    assert sample.total_seconds == pytest.approx(sample.overhead_seconds + sample.data_seconds)
    # both sides' CPU, from wait4: the tool with its ssh, and sshd with its scp/sftp/rsync child
    assert sample.client_cpu_seconds and sample.server_cpu_seconds
    assert sample.client_cpu_data_seconds is not None and sample.server_cpu_data_seconds is not None
    carried = sample.wire_bytes_sent if direction is Direction.UPLOAD else sample.wire_bytes_received
    assert carried is not None and carried > FILE_BYTES  # ssh's own count: payload plus packet overhead
    received = one_file.received(tiny=False, server=direction is Direction.UPLOAD)
    assert not os.path.exists(received), "each received file is removed after its check"


@pytest.mark.parametrize("method", ["scp", "scp-legacy", "sftp", "rsync"])
def test_many_small_files_arrive_complete(target: EmbeddedTarget, payload: Payload, workdir: Path,
                                         method: str) -> None:
    # 50 MiB in all: 12.5 MiB once took no longer than the 1-byte run on a busy 2-vCPU machine (0.221 s vs 0.23 s)
    shape = FileShape(MiB, 50, directory=True)
    with prepared_files(target, str(workdir), shape, payload, sink_file=True, verify=True) as files:
        for direction in (Direction.UPLOAD, Direction.DOWNLOAD):
            sample = run_transfer_sample(target, _case(method, direction), files, 1, 60, SampleSettings(payload))
            assert sample.ok, (method, direction, sample.error, sample.stderr_tail)
            assert sample.bytes_received == 50 * MiB and sample.verified == "size+sha256"


def test_null_sink_is_checked_by_exit_status_and_ssh_byte_count(target: EmbeddedTarget, workdir: Path) -> None:
    with prepared_files(target, str(workdir), FileShape(FILE_BYTES), Payload(), sink_file=False,
                        verify=False) as files:
        assert files.received(tiny=False, server=True) == "/dev/null"
        for direction in (Direction.UPLOAD, Direction.DOWNLOAD):
            sample = run_transfer_sample(target, _case("sftp", direction), files, 1, 60, SampleSettings())
            assert sample.ok, (sample.error, sample.stderr_tail)
            assert sample.verified == "exit status"


class _Damaging(LocalFiles):
    """The server's disk misbehaving after the tool said it was done: the checks must notice."""

    def __init__(self, damage: str) -> None:
        self.damage = damage

    def size(self, path: str) -> tuple[int, int] | None:
        if os.path.isfile(path) and os.path.getsize(path) > 1:
            with open(path, "r+b") as fh:
                if self.damage == "truncate":
                    fh.truncate(os.path.getsize(path) - 1000)
                else:
                    fh.seek(12345)
                    byte = fh.read(1)
                    fh.seek(12345)
                    fh.write(bytes([byte[0] ^ 0xFF]))
        return super().size(path)


@pytest.mark.parametrize(("damage", "message"), [("truncate", "truncated or incomplete"),
                                                 ("flip", "SHA-256 differs")])
def test_a_damaged_received_file_fails_the_sample(server: EmbeddedOpenSSH, payload: Payload, workdir: Path,
                                                  damage: str, message: str) -> None:
    target = EmbeddedTarget(server)
    with prepared_files(target, str(workdir), FileShape(1 * MiB), payload, sink_file=True, verify=True) as files:
        target.files = _Damaging(damage)
        sample = run_transfer_sample(target, _case("scp", Direction.UPLOAD), files, 1, 60, SampleSettings(payload))
    assert not sample.ok and sample.error is not None and message in sample.error


def test_refused_cipher_is_reported_not_measured(client: ClientInfo, payload: Payload, workdir: Path) -> None:
    sup = client.supported
    enable = type(sup)(cipher=("aes128-ctr",), mac=sup.mac, kex=sup.kex, hostkey=sup.hostkey)
    with EmbeddedOpenSSH(client, enable=enable) as srv:
        target = EmbeddedTarget(srv)
        with prepared_files(target, str(workdir), FileShape(MiB), payload, sink_file=True, verify=False) as files:
            case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-ctr", mac=MAC, method="sftp")
            sample = run_transfer_sample(target, case, files, 1, 30, SampleSettings(payload))
    assert not sample.ok and sample.error == "server refused: no matching cipher found"


def test_prepared_files_leave_nothing_on_either_side(target: EmbeddedTarget, payload: Payload,
                                                     tmp_path: Path) -> None:
    with prepared_files(target, str(tmp_path), FileShape(MiB, 3, directory=True), payload, sink_file=True,
                        verify=True) as files:
        assert os.path.isdir(files.client_dir) and os.path.isdir(files.server_dir)
        assert sorted(os.listdir(files.source(tiny=False, server=True))) == ["f000001", "f000002", "f000003"]
    assert list(tmp_path.iterdir()) == []


def test_zero_data_source_is_sparse(target: EmbeddedTarget, tmp_path: Path) -> None:
    with prepared_files(target, str(tmp_path), FileShape(256 * MiB), Payload(), sink_file=True,
                        verify=False) as files:
        source = os.stat(files.source(tiny=False, server=False))
        assert source.st_size == 256 * MiB and source.st_blocks * 512 < MiB
