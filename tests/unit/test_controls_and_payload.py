import os
import subprocess
import threading
import time
import zlib
from pathlib import Path

import pytest

from sshbench.measure.controls import parse_speed
from sshbench.measure.corpus import PATTERN_BYTES
from sshbench.measure.datapath import CHUNK, PACE_MAX_SECONDS, Payload, _Pace, drain, grow_pipe, make_payload
from sshbench.vocabulary.algorithms import EVP_OF
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


@pytest.mark.parametrize("kind", ["zero", "random", "text", "mixed"])
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


@pytest.mark.parametrize("kind", ["text", "mixed"])
def test_a_pattern_has_no_repeat_a_compressor_window_could_find(kind: str, tmp_path: Path) -> None:
    """zstd's window at the levels used is 2-8 MiB: a pattern that repeated within it would compress to nothing
    (the old 1 MiB text block, repeated, gave zstd 36:1). The whole pattern compresses no better than its most
    compressible quarter (the mixed tree's quarters differ: its kinds of file are shuffled)."""
    data = Path(make_payload(kind, str(tmp_path), seed=2).path or "").read_bytes()
    assert len(data) == PATTERN_BYTES
    whole = len(data) / len(zlib.compress(data, 6))
    quarter = PATTERN_BYTES // 4
    parts = [quarter / len(zlib.compress(data[i:i + quarter], 6)) for i in range(0, PATTERN_BYTES, quarter)]
    assert whole < max(parts) * 1.1
    for start in range(0, PATTERN_BYTES - 2 * CHUNK, 4 * CHUNK):  # no 64 KiB block occurs twice
        assert data.count(data[start:start + 65536]) == 1


def test_the_mixed_corpus_is_a_real_tar_of_kinds_of_file_and_the_same_every_time(tmp_path: Path) -> None:
    import contextlib
    import io
    import tarfile

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Path(make_payload("mixed", str(tmp_path / "a"), seed=1).path or "").read_bytes()
    again = Path(make_payload("mixed", str(tmp_path / "b"), seed=2).path or "").read_bytes()
    assert first == again, "a fixed seed: every run streams the same corpus"
    names: list[str] = []
    archive = tarfile.open(fileobj=io.BytesIO(first), mode="r|")  # noqa: SIM115 (read member by member)
    with contextlib.suppress(tarfile.ReadError):  # cut at 16 MiB: the last member is partial
        for member in archive:
            names.append(member.name)
    kinds = {name.split("/")[1] for name in names}
    assert {"docs", "src", "data", "logs", "media"} <= kinds
    assert not any(name.endswith("measure/corpus.py") for name in names), "no sshbench source: it changes by release"
    ratio = len(first) / len(zlib.compress(first, 6))
    assert 1.6 < ratio < 2.6, f"a project-like tree compresses about 2:1 with zlib, not {ratio:.2f}"


@pytest.mark.parametrize("kind", ["zero", "text"])
def test_remote_source_writes_exactly_n_bytes(kind: str, tmp_path: Path) -> None:
    payload = make_payload(kind, str(tmp_path), seed=3)
    for n in (PATTERN_BYTES * 2 + 7, PATTERN_BYTES * 3, 5, 0):
        source = payload.remote_source(n)
        out = subprocess.run(["sh", "-c", f"{source} | cat"], capture_output=True, check=False, timeout=60)
        assert len(out.stdout) == n, (n, source)  # piped on as sshbench's compressors read it: exact either way
    if kind != "zero":
        assert "| head" not in payload.remote_source(PATTERN_BYTES * 2), "no extra copy through a pipe"


def test_drain_stops_at_the_limit() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"x" * 1000)
    os.close(write_fd)
    assert drain(read_fd, 600) == (600, False)
    assert drain(read_fd, 10_000) == (400, True)
    os.close(read_fd)


def test_a_paced_source_feeds_a_slow_reader_every_byte_in_order(tmp_path: Path) -> None:
    """A reader that takes 45 KiB at a time with pauses (as ssh does) gets exactly the pattern, however the source
    paces itself: no byte lost or repeated across its non-blocking splices and sleeps."""
    payload = make_payload("text", str(tmp_path), seed=5)
    read_fd, write_fd = os.pipe()
    grow_pipe(write_fd)
    chunks: list[bytes] = []

    def reader() -> None:
        while data := os.read(read_fd, 45 * 1024):
            chunks.append(data)
            if len(chunks) % 16 == 0:
                time.sleep(0.002)

    thread = threading.Thread(target=reader)
    thread.start()
    n = PATTERN_BYTES // 2 + 999
    payload.send(write_fd, n)
    os.close(write_fd)
    thread.join(timeout=60)
    os.close(read_fd)
    assert b"".join(chunks) == Path(str(payload.path)).read_bytes()[:n]


def test_a_paced_source_whose_reader_goes_away_raises_broken_pipe() -> None:
    read_fd, write_fd = os.pipe()
    threading.Timer(0.05, os.close, args=(read_fd,)).start()
    with pytest.raises(BrokenPipeError):
        Payload().send(write_fd, 64 * CHUNK)
    os.close(write_fd)


def test_a_paced_sink_sees_the_last_byte_without_waiting_for_the_end_of_the_stream() -> None:
    """The writer sends in bursts and then keeps its end open: drain returns once the limit has arrived (its last
    half-pipe is read blocking), and counts every byte."""
    read_fd, write_fd = os.pipe()
    grow_pipe(write_fd)
    total = 3 * CHUNK + 17
    done = threading.Event()

    def writer() -> None:
        sent = 0
        while sent < total:
            sent += os.write(write_fd, bytes(min(100_000, total - sent)))
            time.sleep(0.001)
        done.wait(30)  # the stream stays open: only the count can end the drain
        os.close(write_fd)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert drain(read_fd, total) == (total, False)
    finally:
        done.set()
        thread.join(timeout=30)
    os.close(read_fd)


def test_the_pace_looks_sooner_after_a_pipe_ran_dry_and_later_while_its_reader_is_idle() -> None:
    read_fd, write_fd = os.pipe()
    size = grow_pipe(write_fd)
    os.write(write_fd, bytes(size))  # full: we are the source, resting
    pace = _Pace(write_fd)
    pace.seconds = 0.004
    pace.rest(filling=True)  # nobody read: idle, look later
    assert pace.seconds == pytest.approx(0.008)
    threading.Timer(0.001, lambda: os.read(read_fd, size)).start()  # the reader empties it meanwhile: it ran dry
    pace.rest(filling=True)
    assert pace.seconds == pytest.approx(0.004)
    for _ in range(20):
        pace.rest(filling=True)
    assert pace.seconds <= PACE_MAX_SECONDS
    os.close(read_fd)
    os.close(write_fd)
