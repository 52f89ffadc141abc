"""The steady state of a pipe sample, for one connection or N in parallel, from client-side marks.

One connection (measure/pipe.py's docstring): its steady state runs from
the moment a quarter of its bytes had moved (never before STEADY_AFTER) to
the moment the last had, and each side's CPU is read at both marks.

N connections sharing one transfer (--streams): the window in which every
stream was in its steady state at once, from the moment the LAST stream
passed its quarter mark to the moment the FIRST stream finished. The bytes
all streams moved inside that window over its length is the aggregate
rate; each side's CPU (all connections and compressors together) is read at
its two ends. A window that never opens (streams that hardly overlapped)
leaves the sample timed whole, as a small single transfer is. Each stream's
own rate is kept too, so an unfair share (one stream starved by the
others) shows.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sshbench.measure.datapath import Tick
from sshbench.plan.budget import steady_mark
from sshbench.results.model import Sample

Cpu = Callable[[], tuple[float | None, float | None, float | None]]  # CPU so far: client, server, link emulator


@dataclass
class _Stream:
    size: int
    start: int  # bytes after which its steady state begins (size + 1: too small to have one)
    moved: int = 0
    times: list[float] = field(default_factory=list)  # (time, bytes so far) at every chunk
    counts: list[int] = field(default_factory=list)
    entered: float | None = None  # when it passed its start mark
    finished: float | None = None  # when its last byte moved

    def at(self, when: float) -> int:
        """Bytes this stream had moved at `when` (the last chunk at or before it)."""
        index = bisect.bisect_right(self.times, when)
        return self.counts[index - 1] if index else 0

    @property
    def rate(self) -> float | None:
        """Its own steady rate (bytes/s), or its whole rate where it had no steady state."""
        if self.finished is None or not self.times:
            return None
        if self.entered is not None and self.finished > self.entered:
            return (self.moved - self.at(self.entered)) / (self.finished - self.entered)
        first = self.times[0]
        return self.moved / (self.finished - first) if self.finished > first else None


class SteadyWindow:
    """Ticks from N streams (each from its own thread), the window they shared and the CPU at its ends."""

    def __init__(self, sizes: list[int], tick: Tick, cpu: Cpu,
                 gates: list[Callable[[], bool]] | None = None) -> None:
        """`gates`: per stream, whether what it holds in flight is full yet, beyond its byte count: an upload
        through a compressor holds the compressed bytes' worth of payload in ssh's buffers and window (at 3:1,
        three times what plain bytes would), so it enters its steady state only once the compressor has put
        out STEADY_AFTER bytes of its own."""
        self.streams = [_Stream(size, start if (start := steady_mark(size)) is not None else size + 1)
                        for size in sizes]
        self.gates = gates or [lambda: True] * len(sizes)
        self.tick, self.cpu = tick, cpu
        self._lock = threading.Lock()
        self.open_time: float | None = None  # when the last stream entered its steady state
        self.close_time: float | None = None  # when the first stream moved its last byte
        self._cpu: dict[str, tuple[float | None, float | None, float | None]] = {}

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
                if stream.entered is None and stream.moved >= stream.start and self.gates[index]():
                    stream.entered = now
                    if self.open_time is None and all(s.entered is not None for s in self.streams):
                        self.open_time = now
                        ends.append("open")
                if stream.finished is None and stream.moved >= stream.size:
                    stream.finished = now
                    if self.close_time is None:  # the first to finish closes it, opened or not (then: none)
                        self.close_time = now
                        if self.open_time is not None:
                            ends.append("close")
                self.tick(count)
            for end in ends:  # CPU read outside the lock: the other streams go on meanwhile
                self._cpu[end] = self.cpu()
        return moved

    def fill(self, sample: Sample) -> None:
        """The aggregate steady state into `sample` (nothing where the window never opened), the bytes of its first
        half (in time), and each stream's own rate where there are several."""
        if len(self.streams) > 1:
            sample.stream_bytes_per_second = [rate for s in self.streams if (rate := s.rate) is not None]
        start, end = self.open_time, self.close_time
        before, after = self._cpu.get("open"), self._cpu.get("close")
        if start is None or end is None or before is None or after is None or end <= start:
            return
        moved = sum(s.at(end) - s.at(start) for s in self.streams)
        if moved <= 0:
            return
        sample.steady_bytes, sample.steady_seconds = moved, end - start
        middle = (start + end) / 2
        sample.steady_half_bytes = sum(s.at(middle) - s.at(start) for s in self.streams)
        spent = [None if a is None or b is None else max(0.0, a - b) for a, b in zip(after, before, strict=True)]
        sample.client_cpu_steady_seconds, sample.server_cpu_steady_seconds, sample.link_cpu_steady_seconds = spent
