"""The processes of one transfer in a session of their own, as a user's shell runs them, with sshbench outside it.

With the kernel's autogroup scheduling (on by default in Debian), each
session is one scheduling group, and a busy CPU is shared between groups
first. A user's `xargs -P 4 ssh HOST ...` from a shell is one group in
which only the ssh processes work (the shell waits). sshbench's streams
used to run in process groups of sshbench's own session: one group, but
with sshbench's measuring process in it, whose pacing of the source and
watching of each connection (3-4% of a CPU with four fast streams) came
out of the streams' share of a CPU that other processes kept busy: four
streams read 0.92 of the hand there. Sessions of their own (one per ssh)
would give N streams N shares, which no user's shell gets (1.83x against
1.05-1.15x by hand).

So a small leader program (leader_main.py) starts a transfer's ssh
processes and compressors in one new session, each in a process group of
its own inside it, from descriptors sshbench made and keeps the other ends
of (the pipes the payload goes through). sshbench learns each child's pid at
once (CPU so far from /proc, killpg at a timeout) and, when it ends, its
wait status and rusage from the leader's wait4: the same exact figures as
when sshbench reaped them itself. The leader is recorded like any child
session (plumbing/runs.py); it kills what it started when its socket
closes, so a killed sshbench leaves nothing running either.

Standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sshbench.plumbing.procs import KILLED_WAIT_SECONDS, kill_group, reap, spawn

PROGRAM = Path(__file__).with_name("leader_main.py")
START_SECONDS = 10.0  # a leader's answer to a request: it only forks and execs, so a loaded machine's worst case
KILLED = signal.SIGKILL  # the wait status of a child whose end the leader could not report (killed by us)


class LeaderError(OSError):
    """The leader refused a request (the program is missing, say) or is gone: the transfer cannot start."""


@dataclass
class Child:
    """One process the leader started, with sshbench's ends of its pipes (None where it was given a descriptor
    sshbench does not keep); `returncode` is set by whoever reaps it, as with subprocess.Popen."""

    pid: int
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None
    returncode: int | None = None


class Leader:
    """Start with `Leader()`; `start(...)` each process, `wait(pid)` for each, `close()` at the end."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._proc = spawn([sys.executable, "-I", "-S", str(PROGRAM), str(theirs.fileno())],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, pass_fds=(theirs.fileno(),))
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._sock = ours
        self._requests = threading.Lock()  # one request at a time: its answer is the next one
        self._seen = threading.Condition()
        self._answers: list[dict[str, object]] = []
        self._ended: dict[int, tuple[int, resource.struct_rusage]] = {}
        self._gone = False
        self._closing = False
        self._started: set[int] = set()
        self._reader = threading.Thread(target=self._read, daemon=True, name="sshbench-leader")
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                message = self._sock.recv(1 << 16)
            except OSError:
                message = b""
            with self._seen:
                if not message:
                    self._gone = True
                    self._seen.notify_all()
                    if not self._closing:  # killed (a run's link died, say): what it started ends with it
                        for pid in self._started - set(self._ended):
                            kill_group(pid)
                    return
                found = json.loads(message)
                if "ended" in found:
                    self._ended[int(found["ended"])] = (int(found["status"]),
                                                        resource.struct_rusage(tuple(found["usage"])))
                else:
                    self._answers.append(found)
                self._seen.notify_all()

    def start(self, argv: Sequence[str], *, stdin: int | None, stdout: int | None, stderr: int | None,
              env: Mapping[str, str]) -> Child:
        """Start `argv` in the leader's session, in a process group of its own. Each of stdin, stdout, stderr is
        a descriptor to give it (sshbench's copy is closed here), or None for a new pipe whose other end is
        returned in the Child."""
        mine: list[IO[bytes] | None] = []
        given: list[int] = []
        for target, fd in enumerate((stdin, stdout, stderr)):
            if fd is None:
                read_end, write_end = os.pipe()
                ours, theirs = (write_end, read_end) if target == 0 else (read_end, write_end)
                mine.append(open(ours, "wb" if target == 0 else "rb", buffering=0))  # noqa: SIM115 (kept)
                given.append(theirs)
            else:
                mine.append(None)
                given.append(fd)
        try:
            pid = self._request(argv, env, given)
        except BaseException:
            for stream in mine:
                if stream is not None:
                    stream.close()
            raise
        finally:
            for fd in given:
                os.close(fd)
        return Child(pid, mine[0], mine[1], mine[2])

    def _request(self, argv: Sequence[str], env: Mapping[str, str], fds: list[int]) -> int:
        request = json.dumps({"argv": list(argv), "env": dict(env)}).encode()
        with self._requests:
            try:
                socket.send_fds(self._sock, [request], fds)
            except OSError as exc:
                raise LeaderError(f"the stream leader is gone ({exc})") from exc
            deadline = time.monotonic() + START_SECONDS
            with self._seen:
                while not self._answers and not self._gone and time.monotonic() < deadline:
                    self._seen.wait(deadline - time.monotonic())
                if not self._answers:
                    raise LeaderError("the stream leader did not answer")
                answer = self._answers.pop(0)
        if "pid" not in answer:
            raise LeaderError(str(answer.get("error", "the stream leader refused to start a process")))
        pid = int(str(answer["pid"]))
        with self._seen:
            self._started.add(pid)
        return pid

    @staticmethod
    def devnull() -> int:
        """A descriptor of /dev/null to give a child (start closes it)."""
        return os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)

    def exited(self, pid: int) -> bool:
        """Whether the child has ended, as far as the leader has said (it says so within a poll of the end)."""
        with self._seen:
            return pid in self._ended or self._gone

    def wait(self, pid: int) -> tuple[int, resource.struct_rusage | None]:
        """The child's wait status and rusage, once it ends (bounded by whoever kills it: the connection's
        watchdog). If the wait is interrupted, the child's group is killed and waited for before the interrupt
        goes on, as procs.reap does."""
        try:
            return self._wait(pid, None)
        except BaseException:
            kill_group(pid)
            with contextlib.suppress(LeaderError):
                self._wait(pid, KILLED_WAIT_SECONDS)
            raise

    def _wait(self, pid: int, timeout: float | None) -> tuple[int, resource.struct_rusage | None]:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._seen:
            while pid not in self._ended and not self._gone:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise LeaderError(f"process {pid} did not end")
                self._seen.wait(left if left is not None else 1.0)
            if pid in self._ended:
                self._started.discard(pid)
                return self._ended.pop(pid)
        # The leader died first: its children are orphans, re-parented to sshbench where it is their subreaper
        kill_group(pid)
        status, usage = reap(pid)
        return (status or KILLED), usage

    def close(self) -> None:
        """End the leader (it kills whatever it started that still runs) and reap it."""
        with self._seen:
            self._closing = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        reap(self._proc)  # quick: it kills and reaps what is left, then exits; an interrupt kills it
        self._reader.join(timeout=1)

    def __enter__(self) -> Leader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
