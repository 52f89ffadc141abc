"""One short command's ssh, run lean: one select loop in the calling thread, no helper threads.

Why not measure/connection.py's Connection: a transfer's connection needs its watchdog and stderr reader
threads beside the data phase; a short command does nothing but wait, and those threads' start and wake-ups
ran on the client's CPU while ssh did: a reused `ssh HOST true` (10-20 ms) took a median 11.6 ms through it
against 10.6 ms for a bare subprocess.run of the same command line, 7-9% of a command at rtt=2ms. Here the
clock starts just before the fork and stops when wait4 returns, stderr lines are timestamped as they arrive
(the phases), and stdout is read for the ready line (the set-up time, and the port that names the server's
process) and counted after it. The timeout kills the process group, like every ssh sshbench starts, and so does
`stop`: a file descriptor the caller makes readable to end every run in flight at once (measure/logins.py's
clients, on an interrupt), watched in the same select, so waiting for it costs no wake-up.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from resource import struct_rusage

from sshbench.measure.connection import READY, ready_port
from sshbench.measure.datapath import grow_pipe
from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.vocabulary.untrusted import stripped


@dataclass
class _Exit:
    returncode: int | None = None


@dataclass
class LeanRun:
    """What one lean ssh run saw (measure/proof.Ran), and its timings since the moment before its fork."""

    stderr_lines: list[tuple[float, str]] = field(default_factory=list)
    peer_port: int | None = None
    timed_out: threading.Event = field(default_factory=threading.Event)
    server_gone: threading.Event = field(default_factory=threading.Event)  # never set: nothing watches it
    stopped: bool = False  # ended by `stop` (killed), not by itself
    proc: _Exit = field(default_factory=_Exit)
    setup_seconds: float | None = None  # the ready line's arrival
    exited_seconds: float | None = None  # wait4 returned
    output_bytes: int = 0  # stdout after the ready line
    status: int = 0
    usage: struct_rusage | None = None  # ssh's own (and what it waited for), wait4


def run_lean(argv: list[str], env: Mapping[str, str], given: bytes, timeout: float,
             stop: int | None = None) -> LeanRun:
    """Start `argv` with `given` on its stdin (closed after it), read both outputs until EOF, reap it; killed at
    the timeout, or as soon as the descriptor `stop` is readable."""
    run = LeanRun()
    start = time.perf_counter()
    proc = spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                 env=dict(env), process_group=0)
    try:
        _feed(proc, given)
        _read(proc, run, start, start + timeout, stop)
    except BaseException:
        kill_group(proc.pid)
        raise
    finally:
        status, usage = reap(proc)
        run.exited_seconds = time.perf_counter() - start
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    run.status, run.usage = status, usage
    run.proc.returncode = os.waitstatus_to_exitcode(status)
    return run


def _feed(proc: subprocess.Popen[bytes], given: bytes) -> None:
    """The input, then EOF: as `ssh HOST cmd < file` (short commands' inputs fit a grown pipe)."""
    assert proc.stdin is not None
    try:
        if given:
            grow_pipe(proc.stdin.fileno())  # the whole input fits: the write never waits on ssh
            proc.stdin.write(given)
    except BrokenPipeError:
        pass  # ssh ended first: its exit status says why
    finally:
        proc.stdin.close()


def _read(proc: subprocess.Popen[bytes], run: LeanRun, start: float, deadline: float, stop: int | None) -> None:
    assert proc.stdout is not None and proc.stderr is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, "out")
    selector.register(proc.stderr, selectors.EVENT_READ, "err")
    if stop is not None:
        selector.register(stop, selectors.EVENT_READ, "stop")
    pending = {"out": b"", "err": b""}
    ready = False
    with selector:
        while any(key.data != "stop" for key in selector.get_map().values()):  # until both outputs' EOF
            left = deadline - time.perf_counter()
            if left <= 0:
                run.timed_out.set()
                kill_group(proc.pid)
                return
            for key, _ in selector.select(timeout=min(left, 1.0)):
                if key.data == "stop":  # never read: it stays readable for every other run it ends
                    run.stopped = True
                    kill_group(proc.pid)
                    return
                chunk = os.read(key.fd, 65536)
                now = time.perf_counter() - start
                if not chunk:
                    selector.unregister(key.fileobj)
                    if key.data == "err" and pending["err"]:
                        run.stderr_lines.append((now, stripped(pending["err"].decode(errors="replace"))))
                    continue
                if key.data == "err":
                    *lines, pending["err"] = (pending["err"] + chunk).split(b"\n")
                    run.stderr_lines += [(now, stripped(line.decode(errors="replace").rstrip())) for line in lines]
                elif ready:
                    run.output_bytes += len(chunk)
                else:
                    pending["out"] += chunk
                    while not ready and b"\n" in pending["out"]:  # a login script's lines before ours: skipped,
                        line, _, pending["out"] = pending["out"].partition(b"\n")  # and bytes before it on its line
                        if (at := line.find(READY)) >= 0:  # (a title escape printed with no newline)
                            line, ready = line[at:], True
                            run.setup_seconds = now
                            run.peer_port = ready_port(line.decode(errors="replace"))
                            run.output_bytes = len(pending["out"])
