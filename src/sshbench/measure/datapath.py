"""Source and sink of the bytes that go through ssh, fast enough never to be the bottleneck.

Measured on a 2-vCPU VM: Python writing 1 MiB buffers into a default-size
pipe reaches only 0.6-0.9 GB/s, as slow as ssh itself. With the pipe grown to
1 MiB (F_SETPIPE_SZ) and the bytes moved by splice(2) from /dev/zero, and to
/dev/null on the receiving end, no byte is copied through Python at all
(several GB/s; bench/datapath.py measures it on your machine).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import random
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from sshbench.measure import corpus
from sshbench.measure.corpus import PATTERN_BYTES

CHUNK = 1 << 20
PIPE_SIZE = 1 << 20
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


def grow_pipe(fd: int, size: int = PIPE_SIZE) -> int:
    """Enlarge a pipe's kernel buffer; returns the size in force (unchanged if the kernel refuses)."""
    with contextlib.suppress(OSError):
        return fcntl.fcntl(fd, _F_SETPIPE_SZ, size)
    return fcntl.fcntl(fd, getattr(fcntl, "F_GETPIPE_SZ", 1032))


Tick = Callable[[int], None]  # told the bytes moved by each chunk, for a live rate


def _ignore(moved: int) -> None:
    pass


def send_zeros(fd: int, nbytes: int, tick: Tick = _ignore) -> None:
    """Write exactly `nbytes` zero bytes to the pipe `fd` (BrokenPipeError if the reader went away)."""
    left = nbytes
    with open("/dev/zero", "rb", buffering=0) as zero:
        try:
            while left:
                moved = os.splice(zero.fileno(), fd, min(CHUNK, left))
                if moved <= 0:
                    raise BrokenPipeError(errno.EPIPE, "splice wrote nothing")
                left -= moved
                tick(moved)
            return
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS):
                raise
    buf = memoryview(bytes(CHUNK))  # splice unavailable: big writes instead
    while left:
        moved = os.write(fd, buf[: min(CHUNK, left)])
        left -= moved
        tick(moved)


def drain(fd: int, limit: int, tick: Tick = _ignore) -> tuple[int, bool]:
    """Consume the pipe `fd` into /dev/null until `limit` bytes arrived or EOF.

    Returns (bytes counted, True if EOF came first). Stops at `limit` so the
    caller can stop its clock at the exact moment the last byte arrived.
    """
    count = 0
    with open("/dev/null", "wb", buffering=0) as null:
        try:
            while count < limit:
                moved = os.splice(fd, null.fileno(), min(CHUNK, limit - count))
                if moved == 0:
                    return count, True
                count += moved
                tick(moved)
            return count, False
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS):
                raise
    buf = bytearray(CHUNK)
    while count < limit:
        got = os.readv(fd, [memoryview(buf)[: min(CHUNK, limit - count)]])
        if got == 0:
            return count, True
        count += got
        tick(got)
    return count, False


@dataclass(frozen=True)
class Payload:
    """What the bytes are: zeros (no file), or a pattern file that is streamed round and round.

    Zeros cost nothing to produce and are the default with compression off.
    Random bytes (incompressible), text (compressible, like logs) and the
    mixed corpus (a tar of a project-like tree) matter when compression is
    on. The pattern file is made
    once per run, so producing the data never slows the source down: it is
    spliced from the page cache like /dev/zero.
    """

    kind: str = "zero"
    path: str | None = None

    def send(self, fd: int, nbytes: int, tick: Tick = _ignore) -> None:
        """Write exactly `nbytes` of this payload to the pipe `fd`."""
        if self.path is None:
            send_zeros(fd, nbytes, tick)
            return
        size = os.path.getsize(self.path)
        with open(self.path, "rb", buffering=0) as pattern:
            offset, left = 0, nbytes
            while left:
                moved = os.splice(pattern.fileno(), fd, min(CHUNK, left, size - offset), offset_src=offset)
                if moved <= 0:
                    raise BrokenPipeError(errno.EPIPE, "splice wrote nothing")
                left -= moved
                offset = (offset + moved) % size
                tick(moved)

    def remote_source(self, nbytes: int) -> str:
        """POSIX sh that writes exactly `nbytes` of this payload to stdout on the server."""
        if self.path is None:
            return f"exec head -c {nbytes} /dev/zero"
        return f"while :; do cat {shlex.quote(self.path)} || exit; done | head -c {nbytes}"


def make_payload(kind: str, directory: str, seed: int) -> Payload:
    """Create the run's payload: nothing for zeros, a 16 MiB pattern file for random, text or mixed (a period
    longer than any compressor's window: measure/corpus.py)."""
    if kind == "zero":
        return Payload()
    path = os.path.join(directory, f"payload-{kind}.bin")
    if kind == "random":
        data = os.urandom(PATTERN_BYTES)
    elif kind == "mixed":
        data = corpus.mixed(PATTERN_BYTES)
    else:
        data = corpus.text(random.Random(seed), PATTERN_BYTES)
    with open(path, "wb") as fh:
        fh.write(data)
    return Payload(kind, path)
