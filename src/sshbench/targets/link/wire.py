"""The emulated wire: carry IP packets between two TUN devices, late, slow or lost as the link asks.

Why a process of our own and not netem: the kernel's netem qdisc is a module
many kernels lack (microVMs, minimal cloud kernels, some containers). A TUN
device hands whole IP packets to a process, so a short loop can do what
netem does - hold each packet for the one-way delay (with jitter, never
reordering), serialise it at the link rate, drop it with the loss
probability or when the queue is full - while TCP, SSH and every tool above
them run unchanged, end to end, in the kernel. Its own CPU is measured and
recorded (it shares the machine with what it carries).

Run as a file (`python -S wire.py CONTROL_FD A_FD B_FD DELAY_S JITTER_S RATE_BPS LOSS LIMIT SEED`): no
sshbench imports. A_FD/B_FD are the two TUN devices' open fds (client side, server side), created in
their namespaces by the parent. It exits when CONTROL_FD (a pipe from the parent) reaches end of file:
also when the parent dies, however it dies.
"""

import collections
import errno
import os
import random
import select
import sys
import time

MAX_PACKET = 65536
READ_BATCH = 64  # packets read from one device before looking at the other and at what is due


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
        self.dropped = 0

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
            if self.rate:
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
    limit, seed = int(sys.argv[8]), int(sys.argv[9])
    for fd in (a, b):
        os.set_blocking(fd, False)
    rng = random.Random(seed)
    ways = {a: Direction(a, b, delay, jitter, rate, loss, limit, rng),
            b: Direction(b, a, delay, jitter, rate, loss, limit, rng)}
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


if __name__ == "__main__":
    sys.exit(main())
