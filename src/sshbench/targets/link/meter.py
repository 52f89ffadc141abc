"""The wire's own account of its line: how long each direction's rate-limited line has sat idle.

The emulated link is a process (wire.py) that waits for a CPU like any
other. On a busy machine it can fall behind, and then the link carries less
than the rate it was asked for: a figure below the line is then the
machine's, not the transfer's. The wire keeps, in a small shared memory file,
each direction's idle seconds so far and the moment its line is next free;
the seconds a line sat idle over a sample's steady window say how full the
link really was (1 - idle/window), measured by the link itself rather than
assumed from its label.

Layout (wire.py writes the same; it imports nothing of sshbench): per
direction, client to server first, a sequence number that is odd while the
wire writes, then idle seconds, next-free moment (CLOCK_MONOTONIC, the clock
of time.monotonic and time.perf_counter here) and IP bytes carried.
"""

from __future__ import annotations

import mmap
import os
import struct

SEQUENCE, FIELDS = struct.Struct("=q"), struct.Struct("=ddq")
SIZE = SEQUENCE.size + FIELDS.size
TRIES = 1000  # a read overlapping the wire's write is tried again; the wire writes 32 bytes, so a few suffice


class LineMeter:
    """The parent's end of the wire's meter: a memfd the wire maps too (its fd passed at spawn)."""

    def __init__(self) -> None:
        self.fd = os.memfd_create("sshbench-wire-meter")  # no file anywhere; close-on-exec: only the wire gets it
        os.ftruncate(self.fd, 2 * SIZE)
        self._map: mmap.mmap | None = mmap.mmap(self.fd, 2 * SIZE)

    def idle_seconds(self, upstream: bool, at: float) -> float | None:
        """Seconds the line toward the server (`upstream`) or back has sat idle, up to the moment `at`; None where
        the meter is closed or never settled (a wire that never wrote leaves zeros: idle since the clock began,
        which a window's difference cancels)."""
        if self._map is None:
            return None
        offset = 0 if upstream else SIZE
        for _ in range(TRIES):
            (before,) = SEQUENCE.unpack_from(self._map, offset)
            idle, line_free, _carried = FIELDS.unpack_from(self._map, offset + SEQUENCE.size)
            (after,) = SEQUENCE.unpack_from(self._map, offset)
            if before == after and before % 2 == 0:
                return float(idle) + max(0.0, at - float(line_free))
        return None

    def close(self) -> None:
        """Idempotent: unmap and close the parent's fd (the wire holds its own until it exits)."""
        if self._map is not None:
            self._map.close()
            self._map = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
