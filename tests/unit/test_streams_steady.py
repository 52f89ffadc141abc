"""The steady state of N streams, the compression choices, and case ids with streams and compression."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.compressors import choice, parse_compression
from sshbench.measure import steady
from sshbench.measure.pipe import shares
from sshbench.results.model import Case, CaseKind, Direction, Sample
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.units import MiB


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _sample() -> Sample:
    return Sample(case_id="c", round=1, warmup=False, ok=True, started_at="", size_bytes=0)


def test_n_streams_are_timed_over_the_window_they_all_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two streams of 64 MiB: A at 100 MB/s from t=0, B at 50 MB/s from t=0.2. The window opens when B passes
    its quarter mark and closes when A finishes; inside it both move at their own rates: 150 MB/s together."""
    clock = _Clock()
    monkeypatch.setattr("sshbench.measure.steady.time.perf_counter", clock)
    cpu = iter([(1.0, 2.0, None), (1.5, 2.75, None)])
    window = steady.SteadyWindow([64 * MiB, 64 * MiB], lambda _n: None, lambda: next(cpu))
    ticks = [window.marks(0), window.marks(1)]
    events = sorted([(i * MiB / 100e6, 0) for i in range(1, 65)] + [(0.2 + i * MiB / 50e6, 1) for i in range(1, 65)])
    for when, stream in events:
        clock.now = when
        ticks[stream](MiB)
    sample = _sample()
    window.fill(sample)
    assert sample.steady_seconds is not None and sample.steady_bytes is not None
    rate = sample.steady_bytes / sample.steady_seconds
    assert 140e6 < rate < 160e6, rate
    assert sample.client_cpu_steady_seconds == pytest.approx(0.5) and sample.server_cpu_steady_seconds == 0.75
    assert [round(r / 1e6) for r in sample.stream_bytes_per_second] == [100, 50]


def test_streams_that_never_overlap_in_their_steady_state_are_timed_whole() -> None:
    window = steady.SteadyWindow([16 * MiB, 16 * MiB], lambda _n: None, lambda: (None, None, None))
    first, second = window.marks(0), window.marks(1)
    for _ in range(16):
        first(MiB)
    for _ in range(16):
        second(MiB)
    sample = _sample()
    window.fill(sample)
    assert sample.steady_bytes is None, "the second entered its steady state after the first had finished"


def test_a_gate_holds_the_steady_state_back_until_what_is_in_flight_is_full() -> None:
    full = [False]
    window = steady.SteadyWindow([64 * MiB], lambda _n: None, lambda: (0.0, 0.0, None), [lambda: full[0]])
    tick = window.marks(0)
    for index in range(64):
        full[0] = index >= 40
        tick(MiB)
    assert window.streams[0].entered is not None
    assert window.streams[0].at(window.streams[0].entered) == 41 * MiB, "not at its quarter mark (16 MiB)"


@given(st.integers(min_value=0, max_value=2**40), st.integers(min_value=1, max_value=64))
def test_shares_add_up_and_differ_by_less_than_the_stream_count(size: int, streams: int) -> None:
    parts = shares(size, streams)
    assert len(parts) == streams and sum(parts) == size
    assert max(parts) - min(parts) < streams


def test_compression_choices_are_canonical_with_their_level() -> None:
    assert parse_compression("off,SSH, zstd,zstd:1,gzip,lz4:9,zstd") == ("off", "ssh", "zstd:3", "zstd:1", "gzip:6",
                                                                        "lz4:9")
    assert choice("zstd:19").label == "zstd -19" and choice("ssh").label == "SSH zlib"
    for bad in ("zstd:20", "brotli", "ssh:6", "off:1", "gzip:0", "", "zstd:-1"):
        with pytest.raises(UsageError):
            parse_compression(bad)


def test_case_ids_and_groups_carry_streams_and_compression_and_plain_ones_stay_as_they_were() -> None:
    plain = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", link="rtt=20ms")
    assert plain.id == "cipher:aes128-ctr:upload@rtt=20ms" and plain.plain
    varied = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", link="rtt=20ms", streams=4,
                  compression="zstd:3", build="hpn")
    assert varied.id == "cipher:aes128-ctr:upload*4~zstd:3#hpn@rtt=20ms"
    assert varied.group == "cipher:upload*4~zstd:3#hpn@rtt=20ms" and not varied.plain
