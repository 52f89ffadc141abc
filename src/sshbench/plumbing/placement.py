"""Where the two ends of an embedded connection run: the client's CPUs and the server's, kept apart.

Why: with the embedded server both ends share one machine, and with them
the source, ssh, sshd and the sink: four busy processes. Left to the
scheduler, they land on the CPUs in changing ways, and one connection runs
at one of two or three speeds depending on where it landed (on a 2-vCPU
Xeon VM: aes128-gcm upload 826-1009 or 1793-1918 MB/s, switching from one
connection to the next). That per-connection spread was the largest noise
left after pairing (docs/methodology.md), and it is not a property of any
cipher. A real transfer has its two ends on two machines; giving the
client side (sshbench with its source and sink, ssh) one half of the CPUs
and the server side (the server with everything it forks) the other half is
the nearest this one machine comes to that, and on that VM it took the
spread away (bench/placement.py measures it side by side on yours).

Mechanism: a Linux thread's affinity is inherited by what it creates, so
the measuring thread is pinned to the client half for the run, and the
thread that accepts connections pins itself to the server half before it
forks each server; nothing is ever pinned from outside after it started.
Both are undone when the run ends. Off Linux, or with fewer than two CPUs
allowed, there is nothing to split and placement stays free.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Placement:
    """The CPUs each end of an embedded connection may use."""

    client: frozenset[int]
    server: frozenset[int]

    def describe(self) -> str:
        return f"split: client on CPU {_cpus(self.client)}, server on CPU {_cpus(self.server)}"


def _cpus(cpus: frozenset[int]) -> str:
    """0,2-5 style, as taskset and /proc/self/status print CPU lists."""
    out: list[str] = []
    ordered = sorted(cpus)
    start = previous = ordered[0]
    for cpu in [*ordered[1:], None]:
        if cpu is not None and cpu == previous + 1:
            previous = cpu
            continue
        out.append(str(start) if start == previous else f"{start}-{previous}")
        if cpu is not None:
            start = previous = cpu
    return ",".join(out)


def allowed() -> frozenset[int] | None:
    """The CPUs this thread may run on; None where the OS can't say or set it (not Linux)."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    return frozenset(os.sched_getaffinity(0))


def split(cpus: frozenset[int] | None, core_of: Callable[[int], str] | None = None) -> Placement | None:
    """The lower half of `cpus` for the client, the upper half for the server; None below two CPUs.

    Whole cores go to one side: Linux often numbers a core's second thread
    N/2 above its first, and two sides on the two threads of one core would
    still share its execution units. `core_of` names a CPU's core (default:
    its sibling list in sysfs); with a single core, its threads are split.
    An odd count gives the server the extra core: it forks the command the
    data ends in (the sink of an upload, the source of a download) besides
    doing its half of the crypto, while sshbench's own source and sink
    threads mostly wait in splice and read."""
    if cpus is None or len(cpus) < 2:
        return None
    cores: dict[str, list[int]] = {}
    for cpu in sorted(cpus):
        cores.setdefault((core_of or _siblings)(cpu), []).append(cpu)
    groups = sorted(cores.values()) if len(cores) > 1 else [[cpu] for cpu in sorted(cpus)]
    half = len(groups) // 2
    return Placement(frozenset(c for g in groups[:half] for c in g), frozenset(c for g in groups[half:] for c in g))


def _siblings(cpu: int) -> str:
    """The CPUs sharing `cpu`'s core, as sysfs lists them ("0,4"); the CPU alone where sysfs can't say."""
    try:
        with open(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list", encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return str(cpu)


_fallback: list[str] = []  # why placement fell back to free during the run (the first reason), for fell_back()


def pin_this_thread(cpus: frozenset[int] | None) -> None:
    """Restrict the calling thread (and what it creates from now on) to `cpus`; None does nothing.

    Never raises: the CPUs a thread may use can shrink under a running
    program (a container's cpuset changed from 0-1 to 0), and then `cpus`
    may hold none of them (EINVAL). The thread then gets every CPU it is
    still allowed (the kernel intersects the machine's CPUs with the
    cpuset), the reason is kept for fell_back(), and the run goes on with
    free placement rather than ending a server's accept thread."""
    if cpus is None or not hasattr(os, "sched_setaffinity"):
        return
    try:
        os.sched_setaffinity(0, cpus)
    except OSError as exc:
        if not _fallback:
            _fallback.append(f"CPU {_cpus(cpus)} no longer allowed ({exc.strerror or exc}; the cpuset changed?)")
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, range(os.cpu_count() or 1))


def fell_back() -> str | None:
    """Why the split placement gave way to free placement during the current run, if it did."""
    return _fallback[0] if _fallback else None


_active: list[Placement] = []  # the split in force while client_side() runs (empty: free), for server_cpus()


def server_cpus() -> frozenset[int] | None:
    """The server's CPUs while a split run measures (None otherwise): for a thread that plays the server's
    end itself, such as the raw TCP control's receiver."""
    return _active[-1].server if _active else None


def switch(placement: Placement | None, everything: frozenset[int] | None) -> None:
    """Within client_side(): move the calling (measuring) thread to the client's CPUs of `placement`, or to
    `everything` for free placement; server_cpus() follows. The placement trial (measure/placing.py) uses it
    between samples; the server side moves with each server's place()."""
    _active.clear()
    if placement is not None:
        _active.append(placement)
    pin_this_thread(placement.client if placement is not None else everything)


@contextlib.contextmanager
def client_side(placement: Placement | None) -> Iterator[None]:
    """Run the block on the client's CPUs, then give the thread back the CPUs it had."""
    before = allowed()
    _fallback.clear()
    switch(placement, None)
    try:
        yield
    finally:
        _active.clear()
        pin_this_thread(before)
