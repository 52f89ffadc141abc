"""A run's own cgroup (cgroup v2): proof of which processes a run started, and a way to end them all.

A process is in a cgroup because it was put there or because its parent was
there when it forked. Putting one there takes write access to that cgroup's
`cgroup.procs`, which for a cgroup sshbench made as root only root has. So
the processes of a root run's cgroup are exactly that run's processes and
their descendants, whatever their pid namespace, environment or working
directory say, and `cgroup.kill` (Linux 5.14) ends all of them at once,
including a server's session that started a session of its own (setsid)
and was orphaned.

The run's cgroup is a child of the cgroup sshbench started in, so whatever
limits and accounting apply there (a user's session slice, a container)
still apply; sshbench moves itself back and removes the child at the end.
Where cgroup v2 is missing, read-only or not ours to write (a normal user
without delegation, most containers), there is no cgroup and runs.py falls
back to the sessions each run records.

Standard library only: the entry point uses it before the heavy imports.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time

PREFIX = "sshbench-run-"
KILL_WAIT_SECONDS = 2.0  # SIGKILL is not refusable: only a process stuck in uninterruptible I/O takes longer
KILL_ROUNDS = 20  # without cgroup.kill: rounds of reading cgroup.procs and killing what is listed


def mount_point() -> str | None:
    """Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or .../unified on a hybrid system)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                left, sep, right = line.partition(" - ")
                if sep and right.split(" ", 1)[0] == "cgroup2":
                    return left.split(" ")[4].replace("\\040", " ")
    except OSError:
        return None
    return None


def own_path() -> str | None:
    """This process's cgroup v2 path, as its cgroup namespace sees it ("/" or "/user.slice/...")."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("0::"):
                    path = line[3:].rstrip("\n")
                    return path if path.startswith("/") and "/../" not in path + "/" else None
    except OSError:
        return None
    return None


def namespace_id(kind: str) -> str:
    """The namespace of this process, e.g. "pid:[4026531836]" ("" where it cannot be read)."""
    try:
        return os.readlink(f"/proc/self/ns/{kind}")
    except OSError:
        return ""


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def planned(token: str) -> tuple[str, str] | None:
    """Where create_and_enter(token) makes the run's cgroup: (relative path, this process's cgroup), or None
    where there is no cgroup v2 to make it in. The run records it before making it, so a run killed in
    between leaves a record that names it."""
    home = own_path()
    if mount_point() is None or home is None:
        return None
    return os.path.join(home, PREFIX + token), home


def create_and_enter(token: str) -> tuple[str, str] | None:
    """Make `<own cgroup>/sshbench-run-<token>` and move this process into it: (relative path, former path).

    None where it cannot be done (no cgroup v2, not root and not delegated,
    a cgroup whose children must not hold processes); nothing is left half made.
    """
    mount, where = mount_point(), planned(token)
    if mount is None or where is None:
        return None
    relative, home = where
    path = mount + relative
    try:
        os.mkdir(path, 0o755)
    except OSError:
        return None
    try:
        _write(os.path.join(path, "cgroup.procs"), str(os.getpid()))
    except OSError:
        with contextlib.suppress(OSError):
            os.rmdir(path)
        return None
    return relative, home


def leave_and_remove(relative: str, former: str) -> None:
    """Move this process back to `former` and remove its run cgroup, ending anything still in it (nothing,
    normally: the command has ended its children by now)."""
    mount = mount_point()
    if mount is None:
        return
    try:
        _write(os.path.join(mount + former, "cgroup.procs"), str(os.getpid()))
    except OSError:
        return  # still inside: ending its members would end us
    kill_all(mount + relative)


def _remove(path: str) -> None:
    deadline = time.monotonic() + KILL_WAIT_SECONDS
    while True:  # rmdir fails while a killed process is still being torn down
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() >= deadline:
                return
            time.sleep(0.02)


def verified(relative: str, token: str) -> str | None:
    """The absolute path of a dead run's cgroup, if it is what sshbench made: named for the run, a real
    directory inside the cgroup v2 mount, owned by this user (for root: made by root)."""
    mount = mount_point()
    if mount is None or os.path.basename(relative) != PREFIX + token or not relative.startswith("/"):
        return None
    path = os.path.normpath(mount + relative)
    if not path.startswith(mount.rstrip("/") + "/"):
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return path if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() else None


def members(path: str) -> list[int]:
    """The pids in a cgroup (and its children), as this pid namespace numbers them."""
    found: list[int] = []
    for directory, _subdirs, files in os.walk(path):
        if "cgroup.procs" not in files:
            continue
        with contextlib.suppress(OSError), open(os.path.join(directory, "cgroup.procs"), encoding="ascii") as fh:
            found.extend(int(line) for line in fh if line.strip().isdigit())
    return found


def kill_all(path: str) -> int:
    """End every process of the cgroup at `path` and remove it; how many processes there were."""
    count = len(members(path))
    try:
        _write(os.path.join(path, "cgroup.kill"), "1")
    except OSError:  # before Linux 5.14: signal what is listed until nothing is
        for _ in range(KILL_ROUNDS):
            pids = members(path)
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, 9)
            time.sleep(0.01)
    for directory, subdirs, _files in os.walk(path, topdown=False):
        for sub in subdirs:
            _remove(os.path.join(directory, sub))
    _remove(path)
    return count
