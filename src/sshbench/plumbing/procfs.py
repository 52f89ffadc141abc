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


def tree_cpu_seconds(pid: int) -> float | None:
    """Run time of `pid`, its live descendants and what they reaped; None where /proc has no schedstat."""
    total = 0.0
    pending, seen = [pid], set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            tids = os.listdir(f"/proc/{current}/task")
        except OSError:
            if current == pid:
                return None
            continue
        for tid in tids:
            sched = _read(f"/proc/{current}/task/{tid}/schedstat")
            if sched is None:
                if current == pid:
                    return None
                continue
            total += int(sched.split()[0]) / 1e9
            children = _read(f"/proc/{current}/task/{tid}/children") or ""
            pending += [int(c) for c in children.split()]
        total += _reaped_children_seconds(current)
    return total
