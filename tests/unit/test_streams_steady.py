"""The steady state of N streams, the compression choices, and case ids with streams and compression."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.compressors import choice, parse_compression
from sshbench.measure import parts, steady
from sshbench.measure.pipe import shares
from sshbench.results.model import Case, CaseKind, Direction, Sample
from sshbench.results.tcpfacts import Basis
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.units import MiB


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _sample() -> Sample:
    return Sample(case_id="c", round=1, warmup=False, ok=True, started_at="", size_bytes=0)


def _run(window: steady.SteadyWindow, clock: _Clock, rates: list[float], starts: list[float],
         size: int = 64 * MiB) -> None:
    """Each stream moves `size` in 1 MiB chunks at its rate from its start, in time order."""
    ticks = [window.marks(i) for i in range(len(rates))]
    paced = enumerate(zip(rates, starts, strict=True))
    chunks = range(1, size // MiB + 1)
    events = sorted((start + i * MiB / rate, index) for index, (rate, start) in paced for i in chunks)
    for when, index in events:
        clock.now = when
        ticks[index](MiB)


class _Cpu:
    """A stream's CPU: `per_byte` seconds for every byte it has moved (client side; the server twice that)."""

    def __init__(self, window: list[steady.SteadyWindow], index: int, per_byte: float) -> None:
        self.window, self.index, self.per_byte = window, index, per_byte

    def __call__(self) -> tuple[float | None, float | None]:
        moved = self.window[0].streams[self.index].moved
        return moved * self.per_byte, 2 * moved * self.per_byte


def test_n_streams_are_timed_as_an_equal_split_from_the_last_mark_to_the_last_arrival(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two streams of 64 MiB, counted at the receiver (a download): A at 100 MB/s from t=0, B at 50 MB/s from
    t=0.2. The window opens when B passes its quarter mark and closes when B, the last, has its last byte; it
    counts what the split had left at the open, twice B's remaining bytes (B is the least advanced): 100 MB/s,
    what a user splitting one transfer in two equal parts gets, waiting for the slower. The window while both
    ran read 150 (the slow part's tail left out); the bytes actually received in it, 86 (its start stagger in)."""
    clock = _Clock()
    monkeypatch.setattr("sshbench.measure.steady.time.perf_counter", clock)
    holder: list[steady.SteadyWindow] = []
    probes = [steady.Probe(cpu=_Cpu(holder, 0, 1e-9)), steady.Probe(cpu=_Cpu(holder, 1, 1e-9))]
    window = steady.SteadyWindow([64 * MiB, 64 * MiB], lambda _n: None, steady.no_link, probes, Basis.DELIVERED)
    holder.append(window)
    _run(window, clock, [100e6, 50e6], [0.0, 0.2])
    sample = _sample()
    window.fill(sample)
    opened, closed = 0.2 + 16 * MiB / 50e6, 0.2 + 64 * MiB / 50e6
    assert sample.steady_seconds == pytest.approx(closed - opened) and sample.steady_seconds is not None
    assert sample.steady_bytes == 2 * (64 - 16) * MiB
    assert sample.steady_bytes / sample.steady_seconds == pytest.approx(100e6, rel=0.01)
    # each side's CPU per byte of the window is the streams' own (1 ns client, 2 ns server)
    assert sample.client_cpu_steady_seconds == pytest.approx(sample.steady_bytes * 1e-9, rel=0.02)
    assert sample.server_cpu_steady_seconds == pytest.approx(sample.steady_bytes * 2e-9, rel=0.02)
    assert sample.timing is Basis.DELIVERED
    assert [round(r / 1e6) for r in sample.stream_bytes_per_second] == [100, 50]
    # B's tail is said beside the rate: its last byte came this long after A's
    assert sample.tail_seconds == pytest.approx(closed - 64 * MiB / 100e6, abs=0.03)


def test_a_start_stagger_cancels_as_a_hand_s_difference_of_two_sizes_cancels_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Four streams at one rate (25 MB/s), started 0.3 s apart (their logins): the split moves 100 MB/s once
    all run, and so says the window, though its parts end 0.9 s apart and what the receivers took between the
    last mark and the last arrival, over that time, is less."""
    clock = _Clock()
    monkeypatch.setattr("sshbench.measure.steady.time.perf_counter", clock)
    window = steady.SteadyWindow([64 * MiB] * 4, lambda _n: None, steady.no_link, [steady.Probe()] * 4,
                                 Basis.DELIVERED)
    _run(window, clock, [25e6] * 4, [0.0, 0.3, 0.6, 0.9])
    sample = _sample()
    window.fill(sample)
    assert sample.steady_bytes is not None and sample.steady_seconds is not None
    assert sample.steady_bytes / sample.steady_seconds == pytest.approx(100e6, rel=0.01)
    assert sample.tail_seconds == pytest.approx(0.9, abs=0.05)
    assert sample.steady_half_bytes == pytest.approx(sample.steady_bytes / 2, rel=0.05)


def test_an_upload_s_window_closes_at_the_last_arrival_with_every_receiver_read_at_the_open(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two uploads counted at their receivers (the servers' wc): the window opens when B is past its mark, each
    receiver read then, and closes when B's receiver has its last byte (waited for after its writer ended):
    twice B's rate, 100 MB/s, the slower part setting the pace of the split."""
    clock = _Clock()
    monkeypatch.setattr("sshbench.measure.steady.time.perf_counter", clock)
    monkeypatch.setattr("sshbench.measure.steady.time.sleep", lambda seconds: setattr(clock, "now",
                                                                                       clock.now + seconds))
    rates, starts = [100e6, 50e6], [0.0, 0.2]

    def received(index: int) -> int:  # each receiver 10 ms behind its writer: what is in flight
        return max(0, min(64 * MiB, int((clock.now - 0.01 - starts[index]) * rates[index])))

    window = steady.SteadyWindow([64 * MiB, 64 * MiB], lambda _n: None, steady.no_link,
                                 [steady.Probe(delivered=lambda: received(0)),
                                  steady.Probe(delivered=lambda: received(1))], Basis.DELIVERED)
    ticks = [window.marks(0), window.marks(1)]
    events = sorted((start + i * MiB / rate, index) for index, (rate, start) in enumerate(zip(rates, starts,
                                                                                            strict=True))
                    for i in range(1, 65))
    for when, index in events:
        clock.now = when
        ticks[index](MiB)
        if index == 0 and window.streams[0].finished is not None and window.streams[0].arrived is None:
            window.wait_delivered(0, deadline=100.0)  # polls until its receiver has them, 10 ms later
            assert window.close_time is None  # A arrived first: the window stays open for B
    window.wait_delivered(1, deadline=100.0)
    sample = _sample()
    window.fill(sample)
    assert sample.steady_bytes is not None and sample.steady_seconds is not None
    assert sample.steady_bytes / sample.steady_seconds == pytest.approx(100e6, rel=0.02)
    assert window.close_time == pytest.approx(0.2 + 64 * MiB / 50e6 + 0.01, abs=0.002)


def test_an_upload_is_counted_at_its_receiver_so_buffers_still_filling_cannot_inflate_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer runs ahead of the receiver by what the buffers hold, and those grow during the window (TCP's
    autotuning): 2 MiB at the mark, 8 MiB at the writer's end. The writer's marks say more than the link
    carried; the receiver's count (the server's wc, read at the open and waited for at the end) says what it
    did: 50 MB/s."""
    clock = _Clock()
    monkeypatch.setattr("sshbench.measure.steady.time.perf_counter", clock)
    monkeypatch.setattr("sshbench.measure.steady.time.sleep", lambda seconds: setattr(clock, "now",
                                                                                       clock.now + seconds))
    rate = 50e6

    def received() -> int:
        return min(64 * MiB, int(clock.now * rate))

    window = steady.SteadyWindow([64 * MiB], lambda _n: None, steady.no_link,
                                 [steady.Probe(delivered=received)], Basis.DELIVERED)
    tick = window.marks(0)
    moved = 0
    while moved < 64 * MiB:  # the writer: ahead of the receiver by 2 MiB, growing to 8 MiB
        moved += MiB
        ahead = 2 * MiB + 6 * MiB * moved / (64 * MiB)
        clock.now = max(0.0, (moved - ahead) / rate)
        tick(MiB)
    window.wait_delivered(0, deadline=100.0)
    sample = _sample()
    window.fill(sample)
    assert sample.steady_bytes is not None and sample.steady_seconds is not None
    assert sample.steady_bytes / sample.steady_seconds == pytest.approx(rate, rel=0.01)
    stream = window.streams[0]
    assert stream.finished is not None and window.open_time is not None
    writer = (64 * MiB - stream.at(window.open_time)) / (stream.finished - window.open_time)  # its own marks
    assert writer > 1.1 * rate, "the writer's marks overstate it by the buffers' growth"


def test_writer_timing_is_the_same_split_by_the_writers_marks(monkeypatch: pytest.MonkeyPatch) -> None:
    """SENT (a real host's upload): from the last stream past its mark to the last stream's last byte written,
    the split's bytes left at the open: twice the slower part's rate, 100 MB/s."""
    clock = _Clock()
    monkeypatch.setattr("sshbench.measure.steady.time.perf_counter", clock)
    window = steady.SteadyWindow([64 * MiB, 64 * MiB], lambda _n: None, steady.no_link,
                                 [steady.Probe(), steady.Probe()], Basis.SENT)
    _run(window, clock, [100e6, 50e6], [0.0, 0.2])
    sample = _sample()
    window.fill(sample)
    assert sample.steady_seconds is not None and sample.steady_bytes is not None
    assert sample.steady_bytes / sample.steady_seconds == pytest.approx(100e6, rel=0.01)
    assert sample.timing is Basis.SENT


def test_streams_that_never_overlap_have_no_window_on_either_basis() -> None:
    """One definition: from every stream past its mark. Streams that never ran together (the first ended before
    the last was past its mark) have none (their case is re-sized until they do, measure/physics.py)."""
    for basis, has in ((Basis.DELIVERED, False), (Basis.SENT, False)):
        window = steady.SteadyWindow([16 * MiB, 16 * MiB], lambda _n: None, steady.no_link,
                                     [steady.Probe(), steady.Probe()], basis)
        first, second = window.marks(0), window.marks(1)
        for _ in range(16):
            first(MiB)
        for _ in range(16):
            second(MiB)
        sample = _sample()
        window.fill(sample)
        assert (sample.steady_bytes is not None) is has, basis


def test_a_gate_holds_a_writer_timed_steady_state_back_until_what_is_in_flight_is_full() -> None:
    full = [False]
    window = steady.SteadyWindow([64 * MiB], lambda _n: None, steady.no_link,
                                 [steady.Probe(gate=lambda: full[0])], Basis.SENT)
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


def test_delivery_looks_close_in_on_the_arrival_and_stay_bounded() -> None:
    """An upload's receiver is read a quarter of the rest's time apart at the rate seen, never less than 0.5 ms nor
    more than 20 ms apart; a steady stream's arrival is seen at most 0.5 ms late; a stall backs off."""
    assert steady.next_look(None, 0.0, 0, 100 * MiB, 0.0) == steady.DELIVERY_POLL_SECONDS
    # 10 MB/s, 4 MB to go: 0.4 s at that rate, so the next look in 0.1 s, capped at 20 ms
    assert steady.next_look((0.0, 0), 0.1, 1_000_000, 5_000_000, 0.001) == steady.DELIVERY_POLL_MAX_SECONDS
    # 10 MB/s, 40 kB to go: 4 ms, so 1 ms
    assert steady.next_look((0.0, 0), 0.1, 1_000_000, 1_040_000, 0.001) == pytest.approx(0.001)
    # no progress since the last look: twice the last pause, capped
    assert steady.next_look((0.0, 500), 0.01, 500, 1_000, 0.004) == pytest.approx(0.008)
    assert steady.next_look((0.0, 500), 0.01, 500, 1_000, 0.015) == steady.DELIVERY_POLL_MAX_SECONDS
    # a steady 10 MB/s stream with 3 MB to go, looked at as wait_delivered does: the look after the arrival is
    # at most the floor late, and the looks are few (not 2,000 a second)
    size, rate, now, count, seen, pause, looks = 3_000_000 + 1, 10e6, 0.0, 1, None, 0.0, 0
    while count < size:
        pause = steady.next_look(seen, now, count, size, pause)
        seen = (now, count)
        now += pause
        count = min(size, 1 + int(now * rate))
        looks += 1
    assert now - (size - 1) / rate <= steady.DELIVERY_POLL_SECONDS + 1e-9
    assert looks < 40


def _shared(window: steady.SteadyWindow, clock: _Clock, total: float, starts: list[float], size: int = 64 * MiB,
            step: float = 0.0005) -> None:
    """Streams that share one bottleneck of `total` bytes/s (a CPU, one link): each of those running gets an equal
    share, and a part that ends hands its share to the rest. 1 MiB chunks, ticked as they complete."""
    ticks = [window.marks(i) for i in range(len(starts))]
    moved, told = [0.0] * len(starts), [0] * len(starts)
    for step_index in range(1, 100_000):
        clock.now = step_index * step
        running = [i for i, start in enumerate(starts) if start <= clock.now and told[i] < size]
        if not running:
            break
        for i in running:
            moved[i] = min(float(size), moved[i] + total / len(running) * step)
            while told[i] + MiB <= moved[i]:
                told[i] += MiB
                ticks[i](MiB)


def test_parts_that_share_one_bottleneck_count_the_bytes_still_to_come(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four streams sharing 100 MB/s (one CPU), started 0.1 s apart (their logins). The last one started lags all
    the way, then takes the whole bottleneck once the others end: a quarter-sized split ends about when a quarter
    of the bytes are through, so a hand's two-size difference says 100 MB/s. The equal split (N x the laggard's
    bytes left at the open) said more: it counted bytes the others had already moved."""
    clock = _Clock()
    monkeypatch.setattr("sshbench.measure.steady.time.perf_counter", clock)
    window = steady.SteadyWindow([64 * MiB] * 4, lambda _n: None, steady.no_link, [steady.Probe()] * 4,
                                 Basis.DELIVERED)
    _shared(window, clock, 100e6, [0.0, 0.1, 0.2, 0.3])
    sample = _sample()
    window.fill(sample)
    assert sample.steady_bytes is not None and sample.steady_seconds is not None
    assert sample.parts_independent == 0.0
    assert sample.steady_bytes / sample.steady_seconds == pytest.approx(100e6, rel=0.01)
    start = window.open_time
    assert start is not None
    split = 4 * (64 * MiB - min(s.at(start) for s in window.streams))
    assert split / sample.steady_seconds > 1.04 * 100e6, "the equal split's count reads high here"


def test_independent_parts_are_said_so_and_keep_the_equal_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two cases above whose parts keep their own pace (uneven rates; one rate, staggered starts) read as
    independent: the equal split stays their count."""
    for rates, starts in (([100e6, 50e6], [0.0, 0.2]), ([25e6] * 4, [0.0, 0.3, 0.6, 0.9])):
        clock = _Clock()
        monkeypatch.setattr("sshbench.measure.steady.time.perf_counter", clock)
        window = steady.SteadyWindow([64 * MiB] * len(rates), lambda _n: None, steady.no_link,
                                     [steady.Probe()] * len(rates), Basis.DELIVERED)
        _run(window, clock, rates, starts)
        sample = _sample()
        window.fill(sample)
        assert sample.parts_independent == 1.0, (rates, starts)


@given(st.lists(st.floats(0, 1e9), min_size=2, max_size=8), st.floats(0.01, 10), st.floats(0, 10))
def test_independence_is_a_share(rates: list[float], span: float, tail: float) -> None:
    sizes = [100 * MiB] * len(rates)
    at_open = [10.0 * MiB] * len(rates)
    at_first = [min(100.0 * MiB, 10 * MiB + r * span) for r in rates]
    assert 0.0 <= parts.independence(sizes, at_open, at_first, (0.0, span, span + tail)) <= 1.0
