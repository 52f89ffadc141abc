"""Every process and private directory of a run carries the run's mark, so a later run can end what a killed one left.

An interrupt is cleaned up by the run itself (procs.end_children). SIGKILL
cannot be: the ssh client, the server's session, its data source and the
temp dir with the private keys would stay. So each run marks what it makes:

- processes: `SSHBENCH_RUN=<pid>.<start time>` in the environment, which
  every child inherits (ssh, sshd -i and its privsep child, dropbear, the
  link's wire, tools) and the embedded sshd passes to its sessions (SetEnv);
- private directories: a `.sshbench-run` file holding the same mark.

`sweep_stale()`, at the start of the commands that start servers, ends the
processes whose mark names a run that is no longer alive, and those that
hold a file or their working directory inside that run's marked
directories in this TMPDIR (sshd overwrites its environment with its
process title, "sshd: [net]", but keeps its log open there), with their
descendants, and then removes those directories. A mark
holds the run's start time as well as its pid, so a reused pid is never
mistaken for the old run, and a run still alive (another sshbench on the
same machine) is never touched.

Standard library only: the entry point uses it before the heavy imports.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
from dataclasses import dataclass

RUN_ENV = "SSHBENCH_RUN"
MARK_FILE = ".sshbench-run"
_MARK = re.compile(r"(\d{1,10})\.(\d{1,20})")


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rpartition(")")[2].split()
    except OSError:
        return None
    return fields[19] if len(fields) > 19 else None


def this_run() -> str:
    """This process's mark, `<pid>.<start time>`."""
    return f"{os.getpid()}.{_start_time(os.getpid()) or 0}"


def mark_this_run() -> str:
    """Put this run's mark in the environment, before any child is started; returns it."""
    os.environ[RUN_ENV] = mark = this_run()
    return mark


def alive(mark: str) -> bool:
    """Whether the run `mark` names is still running (same pid, same start time)."""
    found = _MARK.fullmatch(mark)
    return found is not None and _start_time(int(found.group(1))) == found.group(2)


def private_dir(prefix: str) -> str:
    """A new 0700 temp dir (mkdtemp) with this run's mark in it."""
    path = tempfile.mkdtemp(prefix=prefix)
    with open(os.path.join(path, MARK_FILE), "w", encoding="ascii") as fh:
        fh.write(os.environ.get(RUN_ENV) or this_run())
    return path


@dataclass(frozen=True)
class Swept:
    processes: int
    directories: int


def _dead_dirs(mine: str) -> list[str]:
    """This TMPDIR's private dirs whose run is no longer alive."""
    found = []
    tmp = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for name in os.listdir(tmp):
            path = os.path.join(tmp, name)
            if not name.startswith("sshbench-") or os.path.islink(path) or not os.path.isdir(path):
                continue
            try:
                with open(os.path.join(path, MARK_FILE), encoding="ascii", errors="replace") as fh:
                    mark = fh.read(64).strip()
            except OSError:
                continue
            if mark != mine and _MARK.fullmatch(mark) and not alive(mark):
                found.append(os.path.realpath(path))
    return found


def _uses(pid: int, dirs: list[str]) -> bool:
    """Whether the process has its working directory or an open file inside one of `dirs`."""
    base = f"/proc/{pid}"
    try:
        links = [os.readlink(f"{base}/cwd")] + [os.readlink(f"{base}/fd/{fd}") for fd in os.listdir(f"{base}/fd")]
    except OSError:
        return False
    return any(link == d or link.startswith(d + os.sep) for link in links for d in dirs)


def _stale_processes(mine: str, dirs: list[str]) -> set[int]:
    """Processes of dead runs (by mark or by what they hold open in a dead run's dirs), with descendants."""
    parents: dict[int, int] = {}
    doomed: set[int] = set()
    key = RUN_ENV.encode() + b"="
    dead_marks: dict[str, bool] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                parents[pid] = int(fh.read().rpartition(")")[2].split()[1])
            with open(f"/proc/{pid}/environ", "rb") as fh:
                environ = fh.read(1 << 20)
        except (OSError, ValueError, IndexError):
            continue  # gone, or not ours to read
        mark = next((item[len(key):].decode("ascii", errors="replace") for item in environ.split(b"\0")
                     if item.startswith(key)), None)
        if mark is not None and mark != mine:
            if mark not in dead_marks:
                dead_marks[mark] = not alive(mark)
            if dead_marks[mark]:
                doomed.add(pid)
                continue
        if dirs and _uses(pid, dirs):
            doomed.add(pid)
    frontier = set(doomed)
    while frontier:  # their descendants (a session's command gets a fresh environment from the server)
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - doomed - {os.getpid()}
        doomed |= frontier
    return doomed


def sweep_stale() -> Swept:
    """End the processes and remove the private dirs of sshbench runs that are no longer alive."""
    mine = os.environ.get(RUN_ENV) or this_run()
    dirs = _dead_dirs(mine)
    doomed = _stale_processes(mine, dirs)
    for pid in doomed:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    for path in dirs:
        shutil.rmtree(path, ignore_errors=True)
    return Swept(len(doomed), len(dirs))
