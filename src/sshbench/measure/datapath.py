"""Source and sink of the bytes that go through ssh, fast enough never to be the bottleneck.

Measured on a 2-vCPU VM: Python writing 1 MiB buffers into a default-size
pipe reaches only 0.6-0.9 GB/s, as slow as ssh itself. With the pipe grown to
1 MiB (F_SETPIPE_SZ) and the bytes moved by splice(2) from /dev/zero, and to
/dev/null on the receiving end, no byte is copied through Python at all
(several GB/s; bench/datapath.py measures it on your machine).

Paced, not ping-ponged: a blocking splice into a full pipe wakes each time
the reader takes a little (ssh reads about 45 KiB at a time), so sshbench's
own process woke 31,000 times per GiB and spent 0.4-0.7 CPU s/GiB doing it,
against ssh's own ~2 on the client (aes128-gcm, AMD EPYC). Where the
client's CPU is the limit (several streams; a loaded machine) that was taken
from the transfer, which a user's `ssh HOST cmd < FILE` never pays. So each
end moves what the pipe can take without blocking, then sleeps until about
half the pipe has moved through at the rate just seen (FIONREAD tells),
sooner after the pipe ran dry meanwhile; a download's last half-pipe is
drained blocking, so its last byte is still timed the moment it arrives.
bench/source_pacing.py sets the two side by side (docs/methodology.md).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import random
import shlex
import struct
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass

from sshbench.measure import corpus
from sshbench.measure.corpus import PATTERN_BYTES

CHUNK = 1 << 20
PIPE_SIZE = 1 << 20
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
_F_GETPIPE_SZ = getattr(fcntl, "F_GETPIPE_SZ", 1032)
PACE_PARTS = 2  # a paced end wakes when about 1/PACE_PARTS of the pipe has moved through
PACE_MIN_SECONDS = 0.0001
PACE_MAX_SECONDS = 0.02  # a slow reader (a thin link) is still looked at 50 times a second


def grow_pipe(fd: int, size: int = PIPE_SIZE) -> int:
    """Enlarge a pipe's kernel buffer; returns the size in force (unchanged if the kernel refuses)."""
    with contextlib.suppress(OSError):
        return fcntl.fcntl(fd, _F_SETPIPE_SZ, size)
    return fcntl.fcntl(fd, _F_GETPIPE_SZ)


Tick = Callable[[int], None]  # told the bytes moved by each chunk, for a live rate


def _ignore(moved: int) -> None:
    pass


class _Pace:
    """When a paced end (measure/datapath.py's docstring) looks at its pipe again: after about half the pipe
    has moved through at the other end's recent rate, sooner after the pipe ran dry (or full) meanwhile."""

    def __init__(self, pipe: int) -> None:
        self.pipe = pipe
        try:
            self.size = fcntl.fcntl(pipe, _F_GETPIPE_SZ)
        except OSError:
            self.size = PIPE_SIZE
        self.seconds = PACE_MIN_SECONDS

    def level(self) -> int:
        """Bytes in the pipe now (FIONREAD works on either end of a pipe)."""
        try:
            return int(struct.unpack("i", fcntl.ioctl(self.pipe, termios.FIONREAD, b"\0\0\0\0"))[0])
        except OSError:
            return 0

    def rest(self, filling: bool) -> None:
        """Sleep, then set the next sleep from what the other end moved meanwhile. `filling`: we write the pipe
        (it was full when we began to sleep), else we read it (it was empty)."""
        before = self.level()
        time.sleep(self.seconds)
        after = self.level()
        moved = before - after if filling else after - before
        ran_out = after == 0 if filling else after >= self.size
        if ran_out:
            self.seconds /= 2  # the other end may have waited on us: look sooner
        elif moved > 0:  # toward the sleep that lets half the pipe go, by at most a doubling or a halving a
            # step: a connection's first moments (TCP's ramp) would otherwise set a sleep its full rate outruns
            self.seconds *= min(2.0, max(0.5, self.size / PACE_PARTS / moved))
        else:
            self.seconds *= 2  # the other end is idle (a link stalls, a peer thinks)
        self.seconds = min(PACE_MAX_SECONDS, max(PACE_MIN_SECONDS, self.seconds))


Move = Callable[[int, int], int]  # splice(count, flags) -> bytes moved


def _paced(move: Move, pipe: int, limit: int, tick: Tick, filling: bool, exact_tail: bool,
           chunk: int = CHUNK) -> tuple[int, bool]:
    """Splice up to `limit` bytes with `move`, paced (module docstring): (bytes moved, True if the source ended).
    With `exact_tail` the last 1/PACE_PARTS of a pipe is moved blocking, so its last byte is seen as it comes."""
    pace = _Pace(pipe)
    count = 0
    while count < limit:
        left = limit - count
        blocking = exact_tail and left <= pace.size // PACE_PARTS
        try:
            moved = move(min(chunk, left), 0 if blocking else os.SPLICE_F_NONBLOCK)
        except BlockingIOError:
            pace.rest(filling)
            continue
        if moved == 0:
            return count, True
        count += moved
        tick(moved)
    return count, False


def send_zeros(fd: int, nbytes: int, tick: Tick = _ignore, chunk: int = CHUNK) -> None:
    """Write exactly `nbytes` zero bytes to the pipe `fd` (BrokenPipeError if the reader went away), at most
    `chunk` bytes a splice."""
    with open("/dev/zero", "rb", buffering=0) as zero:
        try:
            _, ended = _paced(lambda count, flags: os.splice(zero.fileno(), fd, count, flags=flags), fd, nbytes,
                              tick, filling=True, exact_tail=False, chunk=chunk)
            if ended:
                raise BrokenPipeError(errno.EPIPE, "splice wrote nothing")
            return
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS):
                raise
    left = nbytes
    buf = memoryview(bytes(chunk))  # splice unavailable: big writes instead
    while left:
        moved = os.write(fd, buf[: min(chunk, left)])
        left -= moved
        tick(moved)


def drain(fd: int, limit: int, tick: Tick = _ignore, chunk: int = CHUNK) -> tuple[int, bool]:
    """Consume the pipe `fd` into /dev/null until `limit` bytes arrived or EOF, at most `chunk` bytes a splice.

    Returns (bytes counted, True if EOF came first). Stops at `limit` so the
    caller can stop its clock at the exact moment the last byte arrived.
    """
    with open("/dev/null", "wb", buffering=0) as null:
        try:
            return _paced(lambda count, flags: os.splice(fd, null.fileno(), count, flags=flags), fd, limit, tick,
                          filling=False, exact_tail=True, chunk=chunk)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS):
                raise
    count = 0
    buf = bytearray(chunk)
    while count < limit:
        got = os.readv(fd, [memoryview(buf)[: min(chunk, limit - count)]])
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

    def send(self, fd: int, nbytes: int, tick: Tick = _ignore, chunk: int = CHUNK) -> None:
        """Write exactly `nbytes` of this payload to the pipe `fd`, at most `chunk` bytes a splice."""
        if self.path is None:
            send_zeros(fd, nbytes, tick, chunk)
            return
        size = os.path.getsize(self.path)
        offset = 0
        with open(self.path, "rb", buffering=0) as pattern:
            def move(count: int, flags: int) -> int:
                nonlocal offset
                moved = os.splice(pattern.fileno(), fd, min(count, size - offset), offset_src=offset, flags=flags)
                offset = (offset + moved) % size
                return moved
            _, ended = _paced(move, fd, nbytes, tick, filling=True, exact_tail=False, chunk=chunk)
        if ended:
            raise BrokenPipeError(errno.EPIPE, "splice wrote nothing")

    def remote_source(self, nbytes: int) -> str:
        """POSIX sh that writes exactly `nbytes` of this payload to stdout on the server: the pattern whole as
        often as it fits, then its first bytes, each `cat` writing straight into what reads the source. Not
        `while :; do cat P; done | head -c N`: that `head` copied every byte through one more pipe on the
        server's CPU (pipes move about 1 GB/s a copy on a 2-vCPU VM), and where the server was the limit, as in
        4 Dropbear downloads through lz4, sshbench read about 0.8 of a hand's `lz4 < FILE`."""
        if self.path is None:
            return f"exec head -c {nbytes} /dev/zero"
        path = shlex.quote(self.path)
        size = os.path.getsize(self.path) if os.path.exists(self.path) else PATTERN_BYTES
        whole, rest = divmod(nbytes, size)
        return (f"{{ i={whole}; while [ $i -gt 0 ]; do cat {path} || exit; i=$((i - 1)); done; "
                f"head -c {rest} {path}; }}")


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
