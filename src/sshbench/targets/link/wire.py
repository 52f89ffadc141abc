"""The emulated wire: carry IP packets between two TUN devices, late, slow or lost as the link asks.

Why a process of our own and not netem: the kernel's netem qdisc is a module
many kernels lack (microVMs, minimal cloud kernels, some containers). A TUN
device hands whole IP packets to a process, so a short loop can do what
netem does - hold each packet for the one-way delay (with jitter, never
reordering), serialise it at the link rate, drop it with the loss
probability or when the queue is full - while TCP, SSH and every tool above
them run unchanged, end to end, in the kernel. Its own CPU is measured and
recorded (it shares the machine with what it carries).

Run as a file (`python -S wire.py CONTROL_FD A_FD B_FD DELAY_S JITTER_S RATE_BPS LOSS LIMIT SEED METER_FD`):
no sshbench imports. A_FD/B_FD are the two TUN devices' open fds (client side, server side), created in
their namespaces by the parent. METER_FD is a small shared memory file (a memfd) where the wire keeps,
for each direction, how long its rate-limited line has sat idle and when it is next free: the line's own
account of how full it was, which a busy machine can leave below the rate asked for (the wire is a process
and waits for a CPU like any other). emulated.LinkPath.line_idle reads it under a sequence number. It exits
when CONTROL_FD (a pipe from the parent) reaches end of file:
also when the parent dies, however it dies.
"""

import collections
import errno
import mmap
import os
import random
import select
import struct
import sys
import time

MAX_PACKET = 65536
READ_BATCH = 64  # packets read from one device before looking at the other and at what is due
# Per direction (client to server, then back): a sequence number (odd while it is written), the seconds the line
# has sat idle, the moment it is next free, the IP bytes it carried. emulated.py reads the same layout
SEQUENCE, FIELDS = struct.Struct("=q"), struct.Struct("=ddq")
METER_SIZE = SEQUENCE.size + FIELDS.size


class Direction:
    """One way along the wire: a FIFO of (due time, packet), fed from one device and drained into the other."""

    def __init__(self, src: int, dst: int, delay: float, jitter: float, rate: float, loss: float,
                 limit: int, rng: random.Random) -> None:
        self.src, self.dst = src, dst
        self.delay, self.jitter, self.rate, self.loss, self.limit = delay, jitter, rate, loss, limit
        self.rng = rng
        self.queue: collections.deque[tuple[float, bytes]] = collections.deque()
        self.last_due = 0.0  # packets leave in order: a jittered packet never overtakes the one before
        self.line_free = 0.0  # when the (rate-limited) line has finished serialising the packets queued so far
        self.idle = 0.0  # seconds the line has had nothing to serialise, up to line_free
        self.carried = 0
        self.dropped = 0
        self.seq = 0

    def publish(self, meter: mmap.mmap, offset: int) -> None:
        """Where the parent can read it: the line's idle time so far, when it is next free, what it carried."""
        SEQUENCE.pack_into(meter, offset, self.seq + 1)  # odd: being written
        FIELDS.pack_into(meter, offset + SEQUENCE.size, self.idle, self.line_free, self.carried)
        self.seq += 2
        SEQUENCE.pack_into(meter, offset, self.seq)

    def take(self, now: float) -> None:
        for _ in range(READ_BATCH):
            try:
                packet = os.read(self.src, MAX_PACKET)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EINTR):
                    return
                raise
            if len(self.queue) >= self.limit or (self.loss and self.rng.random() < self.loss):
                self.dropped += 1
                continue
            sent = now
            self.carried += len(packet)
            if self.rate:
                if now > self.line_free:
                    self.idle += now - self.line_free
                self.line_free = max(now, self.line_free) + len(packet) / self.rate
                sent = self.line_free
            delay = self.delay + (self.rng.uniform(-self.jitter, self.jitter) if self.jitter else 0.0)
            due = max(sent + max(delay, 0.0), self.last_due)
            self.last_due = due
            self.queue.append((due, packet))

    def deliver(self, now: float) -> float | None:
        """Write out what is due; return when the next packet is due (None: nothing queued)."""
        queue = self.queue
        while queue and queue[0][0] <= now:
            try:
                os.write(self.dst, queue.popleft()[1])
            except BlockingIOError:
                break  # the device's queue is full: the packet is lost, as on a real line
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EINVAL, errno.EIO):
                    raise
        return queue[0][0] if queue else None


def main() -> int:
    control, a, b = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    delay, jitter, rate, loss = (float(v) for v in sys.argv[4:8])
    limit, seed, meter_fd = int(sys.argv[8]), int(sys.argv[9]), int(sys.argv[10])
    for fd in (a, b):
        os.set_blocking(fd, False)
    rng = random.Random(seed)
    meter = mmap.mmap(meter_fd, 2 * METER_SIZE)
    ways = {a: Direction(a, b, delay, jitter, rate, loss, limit, rng),
            b: Direction(b, a, delay, jitter, rate, loss, limit, rng)}
    offsets = {a: 0, b: METER_SIZE}
    while True:
        now = time.monotonic()
        dues = [due for way in ways.values() if (due := way.deliver(now)) is not None]
        timeout = max(0.0, min(dues) - time.monotonic()) if dues else None
        ready, _, _ = select.select([control, a, b], [], [], timeout)
        now = time.monotonic()
        for fd in ready:
            if fd == control:
                if not os.read(control, 1):
                    return 0  # the parent is gone or done
                continue
            ways[fd].take(now)
            ways[fd].publish(meter, offsets[fd])


if __name__ == "__main__":
    sys.exit(main())
