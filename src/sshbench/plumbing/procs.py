"""Child processes that always end: bounded runs, reaping that survives Ctrl-C, no grandchild left behind.

Every tool sshbench starts (ssh, sshd -i, scp, openssl, ssh-keygen ...) runs
in a session of its own, so one `killpg` ends it together with anything it
started (a ProxyCommand, a shell script's `sleep`). Waiting for a child goes
through `reap`, which, when the wait itself is interrupted, kills the child
and reaps it before the interrupt goes on: an interrupted wait never leaves
a running process or an unreaped one behind.

This module must stay light (standard library only): the entry point uses
it before the heavy imports.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import Any

from sshbench.plumbing import runs

# How long a killed child gets to disappear before we stop waiting for it (SIGKILL is not refusable,
# so this only bounds a child stuck in uninterruptible I/O).
KILLED_WAIT_SECONDS = 2.0
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
END_ROUNDS_SECONDS = 1.0  # end_children: how long orphans that reach us are chased


def become_subreaper() -> bool:
    """Make sshbench the reaper of its orphans (prctl PR_SET_CHILD_SUBREAPER, Linux 3.4+).

    A process whose parent dies (a server's session whose sshd was killed, a
    forked helper) is then re-parented to sshbench, not to init, so
    `end_children` still finds and ends it: nothing of a run outlives the
    command, however deep it was started. False where the call is refused.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def kill_group(pid: int, sig: int = signal.SIGKILL) -> bool:
    """Signal the process group led by `pid` (our children lead sessions or groups), or the process alone;
    False where it may not be signalled (another user's), never an exception."""
    try:
        os.killpg(pid, sig)
        return True
    except (ProcessLookupError, PermissionError):  # not a group it leads, or not ours: the process itself
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True  # gone already
        except PermissionError:
            return False
    return True


def reap(child: subprocess.Popen[bytes] | int) -> tuple[int, resource.struct_rusage | None]:
    """Wait for our child (a Popen, or a bare pid): (wait status, its resource usage).

    Given the Popen, its returncode is set once reaped: a Popen that still
    thinks its child runs polls that pid when it is collected (and every later
    Popen polls it again, subprocess._cleanup), which can reap a child another
    thread is waiting for with wait4, or one that reused the pid. If the wait
    is interrupted (Ctrl-C, SIGTERM), the child's group is killed and reaped
    before the interrupt propagates. A child already reaped elsewhere gives
    (0, None): no usage rather than invented figures.
    """
    pid = child if isinstance(child, int) else child.pid
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return 0, None
    except BaseException:
        kill_group(pid)
        with contextlib.suppress(ChildProcessError):
            os.wait4(pid, 0)  # quick: SIGKILL has been sent; later signals are ignored (see signals.py)
        if not isinstance(child, int):
            child.returncode = -signal.SIGKILL
        raise
    if not isinstance(child, int):
        child.returncode = os.waitstatus_to_exitcode(status)
    return status, usage


def spawn(argv: Sequence[str], **popen: Any) -> subprocess.Popen[bytes]:
    """subprocess.Popen in a session of its own (or, given `process_group`, that group), recorded as the
    run's (plumbing/runs.py): if sshbench is SIGKILLed, the next run can prove it started this child."""
    if "process_group" not in popen:
        popen["start_new_session"] = True
    proc = subprocess.Popen(list(argv), **popen)
    if popen.get("process_group") in (None, 0):  # a new session, or a new group that this child leads
        runs.current().leader(proc.pid, group_only="process_group" in popen)
    return proc


def run(argv: Sequence[str], timeout: float, *, input: bytes | None = None,
        env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run a short tool to completion in its own session; on timeout or interrupt, kill its whole group.

    subprocess.run would kill only the direct child, leaving e.g. a hung
    script's `sleep` behind. Raises subprocess.TimeoutExpired like it.
    """
    proc = spawn(argv, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(env) if env is not None else None)
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except BaseException:
        kill_group(proc.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=KILLED_WAIT_SECONDS)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        raise
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


def run_text(argv: Sequence[str], timeout: float, *, input: str | None = None,
             env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`run` with text in and out (undecodable bytes replaced, never an exception)."""
    done = run(argv, timeout, input=None if input is None else input.encode(), env=env)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(errors="replace"),
                                       done.stderr.decode(errors="replace"))


def live_children() -> list[int]:
    """Our direct children that are still there (running or unreaped), from /proc."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()  # after "pid (comm)": state, ppid, ...
        if len(fields) > 1 and fields[1] == str(me):
            found.append(int(entry))
    return found


def end_children() -> list[int]:
    """Last resort at exit: kill and reap any child (and its group) that an interrupt left behind; the pids of
    those it may not signal (left alone, never waited for).

    As a subreaper (become_subreaper), the orphans of each child killed here
    become our children in turn: rounds go on until none is left (bounded in
    time; SIGKILL cannot be refused, so it is a matter of milliseconds). A
    child that started before sshbench began (`sh -c 'sleep 60 & exec
    sshbench ...'` hands its background job over; exec keeps the shell's start
    time, so the moment this module was loaded counts) was not started by it:
    it is never signalled.
    """
    deadline = time.monotonic() + END_ROUNDS_SECONDS
    mine = _BEGAN
    refused: set[int] = set()
    while (children := [p for p in live_children() if p not in refused and _ours(p, mine)]) and \
            time.monotonic() < deadline:
        killed = [pid for pid in children if kill_group(pid)]
        refused |= set(children) - set(killed)
        for pid in killed:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    return sorted(refused)


def _uptime_ticks() -> int | None:
    """Now, in the clock ticks since boot that /proc/PID/stat's start times count."""
    try:
        with open("/proc/uptime", encoding="ascii") as fh:
            return int(float(fh.read().split()[0]) * os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def _started(pid: int) -> int | None:
    """When `pid` started, in clock ticks since boot (/proc/PID/stat field 22); None where unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rpartition(")")[2].split()
        return int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _ours(pid: int, began: int | None) -> bool:
    """A child sshbench may have started (or adopted as a subreaper): not one that began before it did."""
    started = _started(pid)
    return began is None or started is None or started >= began - 1  # a tick of rounding


_BEGAN = _uptime_ticks()  # when sshbench began (this module is among the first it loads)
