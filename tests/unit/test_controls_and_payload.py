import os
import subprocess
import threading
import zlib
from pathlib import Path

import pytest

from sshbench.algorithms import EVP_OF
from sshbench.measure.controls import parse_speed
from sshbench.measure.datapath import CHUNK, PATTERN_BYTES, Payload, drain, grow_pipe, make_payload
from tests.conftest import recorded


def test_parse_openssl_speed_machine_readable_output() -> None:
    ops, seconds, rate = parse_speed(recorded("openssl-speed-3.0-aes-128-gcm.txt")) or (0, 0.0, 0.0)
    assert (ops, seconds) == (338049, 0.99)
    assert rate == pytest.approx(5594540218.18)
    assert parse_speed("garbage") is None


def test_every_aead_and_default_cipher_has_a_primitive() -> None:
    for cipher in ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com",
                   "aes128-ctr", "3des-cbc"):
        assert cipher in EVP_OF


def _through_pipe(payload: Payload, nbytes: int) -> bytes:
    read_fd, write_fd = os.pipe()
    grow_pipe(write_fd)
    chunks: list[bytes] = []

    def reader() -> None:
        while data := os.read(read_fd, CHUNK):
            chunks.append(data)

    thread = threading.Thread(target=reader)
    thread.start()
    payload.send(write_fd, nbytes)
    os.close(write_fd)
    thread.join()
    os.close(read_fd)
    return b"".join(chunks)


@pytest.mark.parametrize("kind", ["zero", "random", "text"])
def test_payload_sends_exactly_n_bytes_of_its_pattern(kind: str, tmp_path: Path) -> None:
    payload = make_payload(kind, str(tmp_path), seed=3)
    n = PATTERN_BYTES + 12345  # wraps around the pattern file
    data = _through_pipe(payload, n)
    assert len(data) == n
    if payload.path is None:
        assert data == bytes(n)
    else:
        pattern = Path(payload.path).read_bytes()
        assert data == (pattern * 2)[:n]


def test_text_compresses_and_random_does_not(tmp_path: Path) -> None:
    text = Path(make_payload("text", str(tmp_path), 1).path or "").read_bytes()[: 4 * CHUNK]
    rand = Path(make_payload("random", str(tmp_path), 1).path or "").read_bytes()[: 4 * CHUNK]
    assert 2.0 < len(text) / len(zlib.compress(text)) < 6.0  # like logs and prose
    assert len(rand) / len(zlib.compress(rand)) < 1.01


@pytest.mark.parametrize("kind", ["zero", "text"])
def test_remote_source_writes_exactly_n_bytes(kind: str, tmp_path: Path) -> None:
    payload = make_payload(kind, str(tmp_path), seed=3)
    n = PATTERN_BYTES * 2 + 7
    out = subprocess.run(["sh", "-c", payload.remote_source(n)], capture_output=True, check=False, timeout=60)
    assert len(out.stdout) == n


def test_drain_stops_at_the_limit() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"x" * 1000)
    os.close(write_fd)
    assert drain(read_fd, 600) == (600, False)
    assert drain(read_fd, 10_000) == (400, True)
    os.close(read_fd)
