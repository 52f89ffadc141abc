"""Ending what a killed run left, and nothing else: the sweep of dead runs' records (plumbing/runs.py).

A record whose lock nobody holds belongs to a run that is gone, where the
lock taken is the file the run locked (its device and inode, as recorded). Its cgroup
(as root) is ended with cgroup.kill; without one, its recorded sessions
and process groups whose leader still lives (with the recorded start
time), with their members' descendants; then its private dirs and network
namespaces, each checked again before it is removed. A record from another
pid or cgroup namespace is left for a run there. This process and its
ancestors are never signalled, whatever a record says.

Standard library only: the entry point's CLI uses it before the heavy imports.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sshbench.plumbing import cgroups
from sshbench.plumbing.runs import (
    NEW_GRACE_SECONDS,
    current,
    lock_identity,
    private,
    read_private,
    remove_marked,
    state_dir,
)

_RECORD = re.compile(r"(run-|\.new-)([0-9a-f]{16})")
QUARANTINE = "unreadable-"  # a record no sweep could read is renamed so: kept for its user, never read again
# What an unreadable record raises while it is read: bad JSON, JSON nested past the parser's depth, a NUL byte in
# a path, a path or value of the wrong type; any of them makes that record unusable, never the run
_BROKEN = (ValueError, RecursionError, TypeError, UnicodeError, OverflowError, KeyError, OSError)
_LEADER = re.compile(r"([SG]) (\d{1,10}) (\d{1,20})")

@dataclass(frozen=True)
class Swept:
    runs: int = 0
    processes: int = 0
    directories: int = 0
    namespaces: int = 0
    unreadable: tuple[str, ...] = ()  # records set aside (quarantined) this sweep: "path: why"


@dataclass(frozen=True)
class _Proc:
    ppid: int
    pgid: int
    sid: int
    start: str


def _table() -> dict[int, _Proc]:
    """Every process this pid namespace shows: parent, group, session, start time."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rpartition(")")[2].split()
            table[int(entry)] = _Proc(int(fields[1]), int(fields[2]), int(fields[3]), fields[19])
        except (OSError, ValueError, IndexError):
            continue
    return table


def _ancestors(table: dict[int, _Proc]) -> set[int]:
    """This process and its ancestors: never signalled, whatever a record says."""
    found, pid = set(), os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        pid = table[pid].ppid if pid in table else 0
    return found


def _with_descendants(roots: set[int], table: dict[int, _Proc]) -> set[int]:
    found, frontier = set(roots), set(roots)
    while frontier:
        frontier = {pid for pid, proc in table.items() if proc.ppid in frontier} - found
        found |= frontier
    return found


def _session_members(leaders_text: str, table: dict[int, _Proc]) -> set[int]:
    """Processes in the recorded sessions and groups whose leader still lives, with their descendants."""
    sessions, groups = set(), set()
    for line in leaders_text.splitlines():
        found = _LEADER.fullmatch(line)
        if found is None:
            continue
        kind, pid, start = found.group(1), int(found.group(2)), found.group(3)
        leader = table.get(pid)
        if leader is None or leader.start != start:
            continue  # gone (its members' session number could be anyone's later), or a reused pid
        if kind == "S" and leader.sid == pid:
            sessions.add(pid)
        elif kind == "G" and leader.pgid == pid:
            groups.add(pid)
    roots = {pid for pid, proc in table.items() if proc.sid in sessions or proc.pgid in groups}
    return _with_descendants(roots, table)


def _kill(pids: set[int]) -> int:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)


def _end_processes(info: dict[str, object], token: str, record: str) -> int | None:
    """End a dead run's processes; None when this sweep cannot prove which they are (another namespace)."""
    table = _table()
    spared = _ancestors(table)
    relative = info.get("cgroup")
    if isinstance(relative, str) and info.get("cgroup_ns") == cgroups.namespace_id("cgroup"):
        path = cgroups.verified(relative, token)
        if path is None:
            return 0  # already gone
        inside = cgroups.members(path)
        if spared & set(inside):  # we were started by that run: end the rest, keep its cgroup
            return _kill(set(inside) - spared)
        return cgroups.kill_all(path)
    if relative is None and info.get("pid_ns") == cgroups.namespace_id("pid"):
        return _kill(_session_members(read_private(os.path.join(record, "leaders")), table) - spared)
    return None


def _sweep_one(record: str, token: str, lock_fd: int,
               namespaces: Callable[[str, Sequence[str]], int] | None) -> Swept | None:
    """A record whose lock we took: end, remove, report, where the lock is the file its run locked (then the run
    is dead); None to leave it for later (another view of the lock, another namespace's run)."""
    info = json.loads(read_private(os.path.join(record, "info"), 1 << 16) or "{}")
    if not isinstance(info, dict) or info.get("token") != token:
        shutil.rmtree(record, ignore_errors=True)  # died before writing what it owned: it owned nothing yet
        return Swept(runs=1)
    if "lock" in info and info["lock"] != lock_identity(lock_fd):
        return None  # another view of its lock (an overlay): taking it proves nothing, the run may be alive
    processes = _end_processes(info, token, record)
    if processes is None:
        return None  # another namespace's run: its own next run will sweep it
    names = read_private(os.path.join(record, "netns")).split()
    spaces = namespaces(token, names) if namespaces is not None and names else 0
    dirs = remove_marked(read_private(os.path.join(record, "dirs")).splitlines(), token)
    shutil.rmtree(record, ignore_errors=True)
    return Swept(1, processes, dirs, spaces)


def _quarantine(base: str, name: str, exc: BaseException) -> str:
    """Set an unreadable record aside under QUARANTINE + its name (its lock was ours, so its run is dead), and
    say where and why, once."""
    why = " ".join(f"{type(exc).__name__}: {exc}".split())[:120]
    target = os.path.join(base, QUARANTINE + name)
    try:
        os.rename(os.path.join(base, name), target)
    except OSError:
        target = os.path.join(base, name)
    return f"{target}: {why}"


def sweep(namespaces: Callable[[str, Sequence[str]], int] | None = None) -> Swept:
    """End the processes and remove the private dirs (and, through `namespaces`, the network namespaces)
    of this user's sshbench runs that are no longer alive. A run whose lock is held is never touched."""
    base = state_dir()
    total = Swept()
    if base is None or not private(base):
        return total
    try:
        entries = os.listdir(base)
    except OSError:
        return total
    for name in entries:
        found = _RECORD.fullmatch(name)
        path = os.path.join(base, name)
        if found is None or found.group(2) == current().token or not private(path):
            continue
        if found.group(1) == ".new-":
            with contextlib.suppress(OSError):
                if time.time() - os.lstat(path).st_mtime > NEW_GRACE_SECONDS:
                    shutil.rmtree(path, ignore_errors=True)  # never became a run: nothing was started
            continue
        try:
            fd = os.open(os.path.join(path, "lock"), os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # held: the run is alive (or another sweep is ending it)
            try:
                done = _sweep_one(path, found.group(2), fd, namespaces)
            except _BROKEN as exc:  # untrusted input: a crash or a full disk may have left it half written
                done = Swept(unreadable=(_quarantine(base, name, exc),))
        finally:
            os.close(fd)
        if done is not None:
            total = Swept(total.runs + done.runs, total.processes + done.processes,
                          total.directories + done.directories, total.namespaces + done.namespaces,
                          total.unreadable + done.unreadable)
    with contextlib.suppress(OSError):
        os.rmdir(base)  # only if empty: no run is alive, none is being recorded
    return total
