"""CPU time used so far by a live process tree, from /proc, to split a connection's CPU into phases.

wait4 gives a connection's exact total CPU only when it ends. To charge the
data phase alone (CPU seconds per GiB must not include the handshake and
process start-up, ~0.1 s per connection here), the probe reads the tree's
CPU at the moment data starts and subtracts. /proc/<pid>/task/*/schedstat
holds nanosecond run time per thread; children already reaped are in the
stat file's cutime/cstime (clock ticks). Linux only; elsewhere None.
"""

from __future__ import annotations

import os

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _reaped_children_seconds(pid: int) -> float:
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        return 0.0
    fields = stat.rpartition(")")[2].split()  # after "pid (comm)", field 3 is fields[0]
    return (int(fields[13]) + int(fields[14])) / _TICK  # cutime, cstime


def _threads_seconds(pid: int) -> float | None:
    """Run time of every thread of `pid` (None: it is gone, or /proc has no schedstat)."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    total = 0.0
    for tid in tids:
        sched = _read(f"/proc/{pid}/task/{tid}/schedstat")
        if sched is None:
            return None
        total += int(sched.split()[0]) / 1e9
    return total


def tree_cpu_seconds(pid: int) -> float | None:
    """Run time of `pid`, its live descendants and what they reaped; None where /proc has no schedstat."""
    total = 0.0
    for current in descendants(pid):
        seconds = _threads_seconds(current)
        if seconds is None:
            if current == pid:
                return None
            continue
        total += seconds + _reaped_children_seconds(current)
    return total


MAX_TREE = 64  # processes walked under one server: a connection's tree holds a handful


def descendants(pid: int) -> list[int]:
    """`pid` and its live descendants, parents first (at most MAX_TREE; gone ones are skipped)."""
    out: list[int] = []
    pending = [pid]
    while pending and len(out) < MAX_TREE:
        current = pending.pop(0)
        if current in out:
            continue
        out.append(current)
        try:
            tids = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for tid in tids:
            pending += [int(c) for c in (_read(f"/proc/{current}/task/{tid}/children") or "").split()]
    return out


def find_command(pid: int, name: str) -> int | None:
    """The first process in `pid`'s tree whose command name (comm) is `name`, e.g. the remote `wc` sink."""
    for current in descendants(pid):
        if (_read(f"/proc/{current}/comm") or "").strip() == name:
            return current
    return None


def command_line(pid: int) -> tuple[str, ...] | None:
    """The argv process `pid` runs (/proc/PID/cmdline), None if it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    return tuple(part.decode("utf-8", "replace") for part in raw.split(b"\0")[:-1]) if raw else None


def chars_read(pid: int) -> int | None:
    """Bytes process `pid` has read so far through read(2) and its kin (/proc/PID/io rchar); None if gone."""
    text = _read(f"/proc/{pid}/io")
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith("rchar:"):
            try:
                return int(line.split()[1])
            except (IndexError, ValueError):
                return None
    return None
