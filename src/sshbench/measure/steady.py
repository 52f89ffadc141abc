"""The steady state of a pipe sample, for one connection or N in parallel: one definition for every case.

Why one definition: a comparison of 1 and 4 streams, or of no compression
and lz4, is only true when both are timed alike. Before, a stream count
whose streams hardly overlapped had no steady window and was timed whole,
logins and TCP's ramp included, then ranked against steady one-stream
samples (loopback: "4 streams 0.49x"; by hand 0.65x).

The transfer's steady state runs from the moment every stream is past its
start (its steady mark: a quarter of its bytes, never before STEADY_AFTER:
process start and TCP's ramp are behind it) to the moment the LAST stream's
last byte arrived. What it counts is a hand measurement's difference of two
sizes taken inside one transfer: what the split still had to move when a
quarter-sized split would have ended. How that split ends depends on the
parts (measure/parts.py). Independent parts (each held by its own window or
losses) keep their pace, so the quarter-sized split ends when its slowest
part does, at the open: the window counts N times the least-advanced
stream's remaining bytes (an equal split's, its share of the total where
the parts differ by the remainder); a start stagger cancels exactly and a
slow part's tail stays in, as for a user who waits for the last part.
Parts that share one bottleneck (a CPU, one link) hand it to the laggard
once they end, so that split ends when a quarter of the bytes are through:
the window counts the bytes still to come, and which part lagged at the
open is noise the transfer makes up. The transfer's own tail says which:
whether the last part ended when the rest's bytes at the rate all had
together said (shared), or when its own rate said (independent).
One stream is the case N = 1: its bytes after the mark, to its arrival.
Streams that never all ran together (the first ended before the last was
past its mark) have no window.

Other timings were tried against the hand and missed. To the first
stream's end (the span all N ran) left the slow stream's tail out: 16
streams over rtt=150ms read 1.12 of the hand (99.5 against 88.9 MB/s), and
by hand that tail grew with the size (16 x 12 MiB: 0.8-1.7 s between the
first and the last end; 16 x 48 MiB: 2.2-2.8 s). The bytes still to come
for every case counted the stagger of independent parts: 8 streams over
rtt=40ms with 1% loss read 0.79-0.85 of the hand, 16 over rtt=150ms 0.83.
The equal split for every case counted bytes shared parts had already
moved: 4 loopback streams read 1.05 of the hand (still to come: 1.00).
How far apart the parts ended is kept (Sample.tail_seconds), and how
independent they were (Sample.parts_independent).

Counted where the bytes arrive (`Basis.DELIVERED`): a download's
receiver is our own sink; an upload's is the server's `wc -c`, whose
/proc/PID/io our side reads when the server is ours (embedded). Buffers and
windows in between then cannot make a rate look higher than the link
carried (writer-side marks did: 9.03 MB/s through a 8.86 MB/s ceiling).
A real host's upload receiver cannot be read, so there the window is
writer-timed (`Basis.SENT`): from the last stream past its mark to the
last stream's last byte written, by the writers' marks; every case on that
path shares it, and results say which basis each sample has.

Each side's CPU (all connections and compressors) and each stream's sending
TCP socket (retransmissions, congestion window: plumbing/tcpinfo.py) are
read at the window's two ends; the CPU is said per byte of the window (each
stream's own CPU per byte over its steady part, weighted by its bytes). A
sample with no window (streams too small for a steady state) has none of
these and is not counted (measure/physics.py).
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sshbench.measure.datapath import Tick
from sshbench.measure.parts import independence
from sshbench.plan.budget import steady_mark
from sshbench.plumbing.tcpinfo import TcpInfo
from sshbench.results.model import Sample
from sshbench.results.tcpfacts import Basis, TcpFacts

Cpu = Callable[[], tuple[float | None, float | None]]  # one connection's CPU so far: client side, server side


@dataclass(frozen=True)
class LinkReading:
    """The emulated link at one moment: its wire process's CPU so far, and the seconds its line in the data's
    direction has sat idle up to that moment (targets/link/meter.py; None: no emulator, or a link with no rate)."""

    cpu_seconds: float | None
    idle_seconds: float | None


Link = Callable[[float], LinkReading]  # the link as of a moment (time.perf_counter): one process for every stream


def no_link(_at: float) -> LinkReading:
    """A path with no emulated link (loopback, a real host)."""
    return LinkReading(None, None)
# How often an upload's receiver count is read once its writer has finished: a quarter of the time the bytes still
# on their way need at the rate just seen, between these bounds. A fixed 0.5 ms cost this process 2,000 reads of
# /proc a second per stream for as long as the pipe and the buffers took to drain (0.3 s a stream of SSH zlib under
# load), CPU taken from the streams' own scheduling group, which a user's idle shell never takes.
DELIVERY_POLL_SECONDS = 0.0005
DELIVERY_POLL_MAX_SECONDS = 0.02
# A stream's CPU and sending socket are read a second time when it has moved this share of its bytes: at its very
# end the connection may already be gone (a download's server exits as its last bytes reach us)
LATE_SHARE = 0.9


@dataclass
class Probe:
    """What a stream offers beyond its own byte count."""

    gate: Callable[[], bool] = lambda: True  # SENT basis: what it holds in flight is full (a compressor's output)
    delivered: Callable[[], int | None] | None = None  # bytes its receiver has taken so far (upload, DELIVERED)
    tcp: Callable[[], TcpInfo | None] = lambda: None  # the counters of its sending TCP socket
    cpu: Cpu = lambda: (None, None)


@dataclass(frozen=True)
class _Reading:
    """A stream's CPU (client side, server side) when it had moved `moved` bytes."""

    moved: int
    client: float | None
    server: float | None


@dataclass
class _Stream:
    size: int
    start: int  # bytes after which its steady state begins (size + 1: too small to have one)
    probe: Probe
    moved: int = 0
    times: list[float] = field(default_factory=list)  # (time, bytes so far) at every chunk
    counts: list[int] = field(default_factory=list)
    entered: float | None = None  # when it passed its start mark
    finished: float | None = None  # when its last byte moved on our side
    arrived: float | None = None  # when its receiver had its last byte
    received_open: int | None = None  # an upload's bytes at its receiver when the window opened (DELIVERED) ...
    received_first: int | None = None  # ... and when the first stream arrived
    cpu_mark: _Reading | None = None  # its CPU at its own mark ...
    cpu_late: _Reading | None = None  # ... and at LATE_SHARE of its bytes
    tcp_open: TcpInfo | None = None  # its sending socket's counters when the window opened ...
    tcp_late: TcpInfo | None = None  # ... and at LATE_SHARE of its bytes (read only after the open)

    def at(self, when: float) -> int:
        """Bytes this stream had moved at `when` (the last chunk at or before it)."""
        index = bisect.bisect_right(self.times, when)
        return self.counts[index - 1] if index else 0

    def between(self, when: float) -> float:
        """Bytes this stream had moved at `when`, read between its chunks (a rate from `at` is off by up to a
        chunk at each end: a 1 MiB chunk in 28 MiB, 4%)."""
        index = bisect.bisect_right(self.times, when)
        if index == 0 or index == len(self.times):
            return float(self.at(when))
        before, after = self.times[index - 1], self.times[index]
        low, high = self.counts[index - 1], self.counts[index]
        return low + (high - low) * (when - before) / (after - before) if after > before else float(high)

    def read_cpu(self) -> _Reading:
        client, server = self.probe.cpu()
        return _Reading(self.moved, client, server)

    def cpu_per_byte(self) -> tuple[float | None, float | None]:
        """Client and server CPU seconds per byte over its own steady part (its mark to LATE_SHARE)."""
        first, last = self.cpu_mark, self.cpu_late
        if first is None or last is None or last.moved <= first.moved:
            return None, None
        moved = last.moved - first.moved
        return (None if first.client is None or last.client is None else max(0.0, last.client - first.client) / moved,
                None if first.server is None or last.server is None else max(0.0, last.server - first.server) / moved)

    @property
    def rate(self) -> float | None:
        """Its own rate (bytes/s) from its mark to its last byte, or whole where it had no mark."""
        if self.finished is None or not self.times:
            return None
        end = self.arrived or self.finished
        if self.entered is not None and end > self.entered:
            return (self.moved - self.at(self.entered)) / (end - self.entered)
        first = self.times[0]
        return self.moved / (end - first) if end > first else None


class SteadyWindow:
    """Ticks from N streams (each from its own thread), the window they shared, and CPU and TCP at its ends."""

    def __init__(self, sizes: list[int], tick: Tick, link: Link, probes: list[Probe], basis: Basis) -> None:
        self.streams = [_Stream(size, start if (start := steady_mark(size)) is not None else size + 1, probe)
                        for size, probe in zip(sizes, probes, strict=True)]
        self.basis = basis
        self.tick, self.link = tick, link
        self._lock = threading.Lock()
        self.open_time: float | None = None  # every stream past its mark
        self.close_time: float | None = None  # every stream's last byte has arrived (SENT: was written)
        self._link: dict[str, LinkReading] = {}  # the emulated link at the open and the close

    def marks(self, index: int) -> Tick:
        """The tick of stream `index`: told the bytes it moves, chunk by chunk."""
        stream = self.streams[index]

        def moved(count: int) -> None:
            now = time.perf_counter()
            ends: list[str] = []
            with self._lock:
                stream.moved += count
                stream.times.append(now)
                stream.counts.append(stream.moved)
                gated = self.basis is Basis.DELIVERED or stream.probe.gate()
                entered = stream.entered is None and stream.moved >= stream.start and gated
                if entered:
                    stream.entered = now
                    if self.open_time is None and all(s.entered is not None for s in self.streams):
                        self.open_time = now
                        ends.append("open")
                if stream.finished is None and stream.moved >= stream.size:
                    stream.finished = now
                    if not self._upload_delivered:  # our side is the receiver (download), or SENT timing: its
                        stream.arrived = now  # last byte is here; an upload's arrival is waited for (wait_delivered)
                        ends += self._closing(now)
                self.tick(count)
            # the readings outside the lock: the other streams go on meanwhile
            if entered:
                stream.cpu_mark = stream.read_cpu()
            self._read(ends)
            if stream.cpu_mark is not None and stream.cpu_late is None and stream.moved >= LATE_SHARE * stream.size:
                stream.cpu_late = stream.read_cpu()  # only this stream's thread changes its own counts
                if stream.tcp_open is not None:
                    stream.tcp_late = stream.probe.tcp()
        return moved

    @property
    def _upload_delivered(self) -> bool:
        return self.basis is Basis.DELIVERED and self.streams[0].probe.delivered is not None

    def _closing(self, now: float) -> list[str]:
        """Whether this arrival closes the window (called under the lock when a stream arrives; SENT: its last byte
        was written): the last stream's, once the window had opened (else there is none)."""
        if self.close_time is not None or any(s.arrived is None for s in self.streams):
            return []
        self.close_time = max(now, *(s.arrived for s in self.streams if s.arrived is not None))
        return ["close"] if self.open_time is not None else []

    def _read(self, ends: list[str]) -> None:
        """The readings at the window's ends: the emulated link at both (its line as of the end's moment); at the
        open, each stream's sending socket and (an upload counted at its receiver) its receiver's count. At the
        close every stream has arrived."""
        for end in ends:
            at = self.open_time if end == "open" else self.close_time
            assert at is not None
            self._link[end] = self.link(at)
            if end != "open":
                continue
            for stream in self.streams:
                stream.tcp_open = stream.probe.tcp()
                if self._upload_delivered:
                    stream.received_open = self._received(stream)

    def _received(self, stream: _Stream) -> int | None:
        """An upload stream's bytes at its receiver now; all of them once it arrived, or its sink read its last byte
        and ended (then it has them all)."""
        assert stream.probe.delivered is not None
        count = stream.probe.delivered()
        if stream.arrived is not None or (count is None and stream.finished is not None):
            return stream.size
        return None if count is None else min(count, stream.size)

    def wait_delivered(self, index: int, deadline: float) -> None:
        """An upload stream whose writer has finished: wait (until `deadline` at most) for its receiver to have
        every byte, and close the window when it is the last (DELIVERED; nothing to wait for otherwise). A sink
        gone meanwhile has read its last byte and exited: it arrived between the last look and now."""
        stream = self.streams[index]
        if not self._upload_delivered:
            return
        assert stream.probe.delivered is not None
        last_below = time.perf_counter()
        seen: tuple[float, int] | None = None
        pause = DELIVERY_POLL_SECONDS
        while True:
            count = stream.probe.delivered()
            now = time.perf_counter()
            if count is not None and count < stream.size and now <= deadline:
                last_below = now
                pause = next_look(seen, now, count, stream.size, pause)
                seen = (now, count)
                time.sleep(pause)
                continue
            arrived = now if count is not None else (last_below + now) / 2
            with self._lock:
                first = all(s.arrived is None for s in self.streams)
                stream.arrived = arrived
                ends = self._closing(arrived)
            if first and len(self.streams) > 1:  # where the others stood: how the tail went (independence)
                for other in self.streams:
                    other.received_first = self._received(other)
            self._read(ends)
            return

    def fill(self, sample: Sample) -> None:
        """The steady state into `sample` (nothing where the window never opened, or opened only after the first
        stream had ended), the bytes of its first half (in time), each stream's own rate where there are several,
        each side's CPU and the sending sockets' TCP facts over the window."""
        sample.timing = self.basis
        arrivals = [s.arrived for s in self.streams]
        first = min(a for a in arrivals if a is not None) if all(a is not None for a in arrivals) else None
        if len(self.streams) > 1:
            sample.stream_bytes_per_second = [rate for s in self.streams if (rate := s.rate) is not None]
            if first is not None and self.close_time is not None:
                sample.tail_seconds = max(0.0, self.close_time - first)
        start, end = self.open_time, self.close_time
        if start is None or end is None or first is None or first <= start:
            return
        at_open, at_first = self._at_open(), self._at_first(first)
        if at_open is None:
            return
        apart = 1.0 if at_first is None else independence(
            [s.size for s in self.streams], self._near_open(at_open), at_first, (start, first, end))
        left = self._left(at_open, apart)
        if left <= 0:
            return
        sample.steady_bytes, sample.steady_seconds = left, end - start
        if len(self.streams) > 1:
            sample.parts_independent = apart
        middle = (start + end) / 2  # our side's marks: they only say how much a rate varies within a sample
        sample.steady_half_bytes = self._left([s.at(start) for s in self.streams], apart) \
            - self._left([s.at(middle) for s in self.streams], apart)
        inside = [s.size - moved for s, moved in zip(self.streams, at_open, strict=True)]  # received in the window
        per_window = left / sum(inside) if sum(inside) > 0 else 1.0  # the window's bytes per byte received in it
        client, server = self._cpu_inside(inside)
        sample.client_cpu_steady_seconds = None if client is None else client * per_window
        sample.server_cpu_steady_seconds = None if server is None else server * per_window
        before, after = self._link.get("open"), self._link.get("close")
        if before is not None and after is not None:
            if before.cpu_seconds is not None and after.cpu_seconds is not None:
                sample.link_cpu_steady_seconds = max(0.0, after.cpu_seconds - before.cpu_seconds) * per_window
            if before.idle_seconds is not None and after.idle_seconds is not None:
                sample.link_idle_steady_seconds = min(end - start, max(0.0, after.idle_seconds - before.idle_seconds))
        sample.tcp = TcpFacts.between([s.tcp_open for s in self.streams], [s.tcp_late for s in self.streams])

    def _left(self, moved: list[int], apart: float) -> int:
        """What the split still had to move when its streams had moved `moved`, as a quarter-sized split would
        have ended: the bytes still to come where the parts share one bottleneck (`apart` 0), N times the
        least-advanced stream's remaining share of the total where they are independent (1), in between by
        `apart` (one stream: its own bytes left)."""
        total = sum(s.size for s in self.streams)
        done = min(count / s.size for s, count in zip(self.streams, moved, strict=True))
        split = total * (1 - min(1.0, done))
        still = sum(max(0, s.size - count) for s, count in zip(self.streams, moved, strict=True))
        return round(still + apart * (split - still))

    def _near_open(self, at_open: list[int]) -> list[float]:
        """Each stream's payload at the open, read between its chunks where the marks are the receivers' (an
        upload's receivers were read then)."""
        start = self.open_time
        assert start is not None
        return [float(count) for count in at_open] if self._upload_delivered else \
            [s.between(start) for s in self.streams]

    def _at_first(self, first: float) -> list[float] | None:
        """Each stream's payload at the receivers when the first stream arrived (an upload's read then; a
        download's and SENT's from the marks), or None where it was not read."""
        if self._upload_delivered:
            counts = [s.received_first for s in self.streams]
            return None if any(c is None for c in counts) else [float(c or 0) for c in counts]
        return [s.between(first) for s in self.streams]

    def _at_open(self) -> list[int] | None:
        """Each stream's payload when the window opened, counted at the receivers (DELIVERED: an upload's by its
        server's sink, a download's by ours), or as written (SENT)."""
        start = self.open_time
        assert start is not None
        if self._upload_delivered:
            if any(s.received_open is None for s in self.streams):
                return None
            return [s.received_open or 0 for s in self.streams]
        return [s.at(start) for s in self.streams]

    def _cpu_inside(self, inside: list[int]) -> tuple[float | None, float | None]:
        """Each side's CPU for the bytes received in the window: every stream's CPU per byte over its own steady
        part, times its bytes in the window (a stream that ended first cannot be read at the window's close: its
        server is gone)."""
        sides: list[float | None] = [0.0, 0.0]
        for stream, moved in zip(self.streams, inside, strict=True):
            for side, per_byte in enumerate(stream.cpu_per_byte()):
                current = sides[side]
                sides[side] = None if current is None or per_byte is None else current + per_byte * moved
        return sides[0], sides[1]


def next_look(seen: tuple[float, int] | None, now: float, count: int, size: int, pause: float) -> float:
    """Seconds until the receiver's count is read again: a quarter of what the rest needs at the rate since the
    last look (`seen`: its time and count), so the looks close in on the arrival and the last one is at most
    DELIVERY_POLL_SECONDS late while it stays steady; no progress since then doubles the last `pause`."""
    if seen is None:
        return DELIVERY_POLL_SECONDS
    moved, took = count - seen[1], now - seen[0]
    guess = (size - count) * took / moved / 4 if moved > 0 and took > 0 else 2 * pause
    return min(DELIVERY_POLL_MAX_SECONDS, max(DELIVERY_POLL_SECONDS, guess))

