"""What a run owns, proven: its record, its lock, its cgroup or sessions, its private dirs (plumbing/sweep.py
ends what a killed run left, never anything else).

An interrupt is cleaned up by the run itself (procs.end_children). SIGKILL
cannot be: the ssh client, the server's session, the link's wire and the
temp dir with the private keys would stay. So each run keeps a record of
what it starts, where only sshbench can write it, and the next run ends
exactly what a dead run's record proves was its own.

- The record: `run-<token>/` in a private state dir (root: /run/sshbench;
  a user: $XDG_RUNTIME_DIR/sshbench, else sshbench-runs-<uid> in the temp
  dir), 0700 and owned by whoever runs sshbench, so no other user can
  write, plant or replace anything in it.
- Liveness: the run holds an flock on its record's `lock` for as long as it
  lives (the descriptor is never inherited). The kernel drops it when the
  process dies, however it dies, and whatever pid namespace it is in: a
  run in a container is alive to the host exactly when it is alive. The
  record names the lock's device and inode, and a sweep believes a lock it
  took only on that file: seen through an overlay, the same path is
  another inode, and a lock on it proves nothing.
- Processes: as root, the run moves itself into a cgroup of its own
  (cgroups.py), which everything it starts inherits and only root can
  put a process into; a dead run's cgroup is ended with cgroup.kill.
  Without a cgroup, the run records the session (or process group) of
  every child it starts (procs.spawn); a later run ends a recorded
  session while its leader, with the recorded start time, is still there
  (a session cannot be joined, and its number cannot be reused while any
  member lives), with the descendants of its members.
- Private dirs: recorded by path, and removed only if each is still a real
  directory (not a link), owned by this user, 0700, holding a regular
  `.sshbench-run` file with the run's token.

Never evidence: a pid alone, an environment variable, an open file or a
working directory, which other users, other pid namespaces and other
programs can imitate. A process no record proves is never signalled.

Standard library only: the entry point uses it before the heavy imports.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from sshbench.plumbing import cgroups
from sshbench.vocabulary.errors import OutputError
from sshbench.vocabulary.outputs import signals_held

MARK_FILE = ".sshbench-run"
ROOT_STATE_DIR = "/run/sshbench"
TOKEN = re.compile(r"[0-9a-f]{16}")
MAX_RECORD_BYTES = 4 << 20  # a run of 100,000 connections records about 2.5 MB of sessions
NEW_GRACE_SECONDS = 60.0  # a record still being made (".new-") is left alone this long


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rpartition(")")[2].split()
    except OSError:
        return None
    return fields[19] if len(fields) > 19 else None


def state_dir() -> str | None:
    """Where this user's run records live (not created here); None without a usable temp dir."""
    if os.geteuid() == 0:
        return ROOT_STATE_DIR
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/") and os.path.isdir(runtime):
        return os.path.join(runtime, "sshbench")
    try:
        return os.path.join(tempfile.gettempdir(), f"sshbench-runs-{os.geteuid()}")
    except OSError:  # no usable temp dir: the command says so when it needs one (temp_dir())
        return None


def temp_dir() -> str:
    """The temp dir private dirs go to; OutputError, one line, where there is none that can be written."""
    try:
        return tempfile.gettempdir()
    except OSError:
        raise OutputError("no usable temp dir: $TMPDIR, /tmp, /var/tmp, /usr/tmp and the current directory are "
                          "missing or not writable; set TMPDIR to a writable directory, e.g. "
                          "TMPDIR=$HOME/tmp") from None


def private(path: str) -> bool:
    """A real directory (not a link), owned by this user, that no one else may enter or write."""
    try:
        info = os.lstat(path)
    except (OSError, ValueError):  # ValueError: a NUL byte in a path read from a record
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077


def remove_marked(paths: list[str], token: str) -> int:
    """Remove each of `paths` that is a private dir of ours holding run `token`'s mark (paths may come from a
    record, untrusted: absolute and normalized only); how many were removed."""
    removed = 0
    for path in paths:
        if not path.startswith("/") or os.path.normpath(path) != path or not private(path):
            continue
        if read_private(os.path.join(path, MARK_FILE), 64).strip() != token:
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
    return removed


def read_private(path: str, limit: int = MAX_RECORD_BYTES) -> str:
    """A regular file's text, opened without following a link and without blocking ("" otherwise)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        chunks, size = [], 0
        while size < limit and (chunk := os.read(fd, min(1 << 16, limit - size))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks).decode("utf-8", errors="replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def lock_identity(fd: int) -> list[int]:
    """The lock file as this process sees it: [st_dev, st_ino]. A sweep trusts a lock it took only on the same
    file: through an overlay (the privsep holder's view of /run, targets/servers/privsep.py, in which the
    embedded sshd's sessions run) the same path is another inode, whose flock never meets the run's, so every
    live run there looked dead and a fleet host's sshbench, started through that sshd, ended them all."""
    info = os.fstat(fd)
    return [info.st_dev, info.st_ino]


def _append(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


@dataclass
class Claim:
    """This process's run: its token, its record (None where no private state dir could be used) and
    its cgroup (None where there is none)."""

    token: str
    record: str | None = None
    lock_fd: int | None = None
    cgroup: tuple[str, str] | None = None  # (this run's cgroup, the one it came from), relative to the mount
    dirs: list[str] = field(default_factory=list)  # its private dirs, removed at its release if still there
    _mutex: threading.Lock = field(default_factory=threading.Lock)

    def _note(self, name: str, line: str) -> None:
        if self.record is None:
            return
        with self._mutex, contextlib.suppress(OSError):
            _append(os.path.join(self.record, name), line)

    def leader(self, pid: int, group_only: bool = False) -> None:
        """Record a child that leads a session of its own (or, `group_only`, a process group)."""
        if self.cgroup is None and (start := _start_time(pid)) is not None:
            self._note("leaders", f"{'G' if group_only else 'S'} {pid} {start}\n")

    def private_dir(self, prefix: str, base: str | None = None) -> str:
        """A new 0700 temp dir (mkdtemp, in `base` or the temp dir) with this run's mark in it, recorded as this
        run's.

        Made, marked and recorded with signals held: a SIGHUP landing just after mkdtemp() (a CI's, 0.5 s into a
        run) left a dir that neither its owner nor the run's release knew of. An interrupt held here is raised
        before the caller has the path, so the release removes the dir (release_run)."""
        with signals_held():
            where = base or temp_dir()
            try:
                path = tempfile.mkdtemp(prefix=prefix, dir=where)
            except OSError as exc:
                raise OutputError(f"cannot make a private dir in {where}: {exc.strerror or exc}; set TMPDIR "
                                  "to a writable directory") from None
            real = os.path.realpath(path)
            self.dirs.append(real)
            with open(os.path.join(path, MARK_FILE), "w", encoding="ascii") as fh:
                fh.write(self.token)
            self._note("dirs", real + "\n")
        return path

    def namespace(self, name: str) -> None:
        """Record a network namespace this run made (targets/link/netns.py)."""
        self._note("netns", name + "\n")


_current: Claim | None = None
_standin = Claim(secrets.token_hex(8))  # a process that never claimed a run (a test, a library user)


def current() -> Claim:
    """The run this process is, or a stand-in whose things are not recorded."""
    return _current or _standin


def private_dir(prefix: str, base: str | None = None) -> str:
    """A new 0700 temp dir of the current run (Claim.private_dir)."""
    return current().private_dir(prefix, base)


def _make_record(token: str) -> tuple[str, int] | None:
    """`run-<token>/` with its lock held, made under a temporary name and renamed into place, so a sweep
    never sees a record whose lock is not yet taken."""
    base = state_dir()
    if base is None:
        return None
    for _ in range(3):  # a finishing run may remove an empty state dir between our mkdir and our use
        with contextlib.suppress(FileExistsError, OSError):
            os.mkdir(base, 0o700)
        if not private(base):
            return None
        new, final = os.path.join(base, f".new-{token}"), os.path.join(base, f"run-{token}")
        try:
            os.mkdir(new, 0o700)
        except FileNotFoundError:
            continue
        except OSError:
            return None
        try:
            fd = os.open(os.path.join(new, "lock"), os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o600)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(new, final)
            return final, fd
        except OSError:
            shutil.rmtree(new, ignore_errors=True)
            return None
    return None


def _write_info(claim: Claim) -> None:
    """The record's `info`, written whole or not at all (a temp file, fsync, rename): a crash or a full disk
    never leaves half of it for a sweep to read."""
    if claim.record is None:
        return
    info: dict[str, object] = {
        "token": claim.token, "pid": os.getpid(), "pid_ns": cgroups.namespace_id("pid"),
        "cgroup_ns": cgroups.namespace_id("cgroup"), "cgroup": claim.cgroup[0] if claim.cgroup else None}
    if claim.lock_fd is not None:
        info["lock"] = lock_identity(claim.lock_fd)
    temp = os.path.join(claim.record, ".info.new")
    with contextlib.suppress(OSError):
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, (json.dumps(info) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, os.path.join(claim.record, "info"))


def claim_run() -> Claim:
    """Start this process's run: a record with its lock held and, where possible, a cgroup of its own."""
    global _current
    if _current is not None:
        return _current
    claim = Claim(secrets.token_hex(8))
    made = _make_record(claim.token)
    if made is not None:
        claim.record, claim.lock_fd = made
        claim.cgroup = planned = cgroups.planned(claim.token)
        _write_info(claim)  # before the cgroup exists: a run killed from here on is found by the sweep whole
        claim.cgroup = cgroups.create_and_enter(claim.token)
        if claim.cgroup != planned:
            _write_info(claim)
    _current = claim
    return claim


def release_run() -> None:
    """End this process's run: back to its former cgroup, its record removed (children have ended)."""
    global _current
    claim, _current = _current, None
    if claim is None:
        return
    if claim.cgroup is not None:
        cgroups.leave_and_remove(*claim.cgroup)
    remove_marked(claim.dirs, claim.token)  # their owners remove them; these are what an interrupt kept from one
    if claim.record is not None:
        shutil.rmtree(claim.record, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(claim.record))  # only if no other run's record is there
    if claim.lock_fd is not None:
        os.close(claim.lock_fd)


@contextlib.contextmanager
def run_claimed() -> Iterator[Claim]:
    """`with run_claimed():` around a command that starts processes or private dirs. An interrupt never lands
    halfway through the claim or the release (a record without its lock, a cgroup left): both are held whole."""
    try:
        with signals_held():
            claim = claim_run()
        yield claim
    finally:
        with signals_held():
            release_run()
