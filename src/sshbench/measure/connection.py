"""One ssh connection of a pipe sample: started, ready, fed or drained, ended; with its compressor, if any.

A sample is one connection, or N in parallel (--streams, measure/pipe.py);
each is one of these. With an external compressor (--compression zstd, lz4,
gzip) the client's end of the pipeline is a process of its own beside ssh:
for an upload sshbench's source writes into the compressor, whose output is
ssh's input; for a download ssh's output goes into the decompressor, whose
output sshbench's sink counts. So the payload's bytes are timed where they
enter and leave the whole pipeline, and the compressor's CPU is its own.

The remote command says it is ready on stdout, except for a compressed
download: there stdout is the compressed stream, so the ready line goes to
stderr (which ssh passes on beside its -v lines).

ssh and its compressor are started by the sample's leader (plumbing/leader.py):
in process groups of their own (one killpg ends each) inside one session
that is not sshbench's, so the N streams of a transfer are one scheduling
group, as from a user's shell, without sshbench's own measuring work in it.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from resource import struct_rusage

from sshbench.compressors import Choice
from sshbench.measure.datapath import drain, grow_pipe
from sshbench.plumbing.leader import Child, Leader
from sshbench.plumbing.procfs import chars_read, descendants, find_command, tree_cpu_seconds
from sshbench.plumbing.procs import kill_group
from sshbench.plumbing.tcpinfo import TcpInfo, tcp_info_of
from sshbench.results.model import Case, Direction
from sshbench.targets.base import Target
from sshbench.vocabulary.untrusted import stripped

READY = b"SSHBENCH-READY"
_READY = READY.decode()
NOT_STARTED = "ssh ended before the remote command started"  # what ended it is added from ssh's stderr (proof.py)
# The remote shell's first words: SSH_CLIENT ("ip port port") where the server sets it; tinysshd sets only
# SSH_CONNECTION ("ip port ip port"): the client's port is the second word of either
READY_COMMAND = "echo SSHBENCH-READY ${SSH_CLIENT:-$SSH_CONNECTION}"
WATCH_SECONDS = 0.25  # how often a connection's watch looks at its timeout and its server
SERVER_GONE_GRACE = 2.0  # a server gone this long while ssh still runs: ssh is waiting for nothing
TIMES_MARK = "SSHBENCH-TIMES"  # the remote shell's `times` follows: its own CPU, then its children's
_TIMES = re.compile(r"(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s")


def ready_port(line: str) -> int | None:
    """The client's source port from the ready line (READY_COMMAND: the port is the second word of SSH_CLIENT or
    SSH_CONNECTION, the third of the line); None where the server set neither."""
    fields = line.split()
    return int(fields[2]) if len(fields) >= 3 and fields[2].isdigit() else None


class Lines:
    """Line reads from a raw fd that leave everything after the line unread in a buffer."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def readline(self) -> bytes | None:
        while b"\n" not in self.buffer:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def until(self, prefix: bytes) -> bytes | None:
        """Skip anything a login script printed before our marker: lines, and bytes with no newline before it on
        its own line (a shell's title escape, `printf '\\033]0;title\\007'`). The line from the marker on."""
        while (line := self.readline()) is not None:
            if (at := line.find(prefix)) >= 0:
                return line[at:]
        return None


def children_cpu(lines: list[tuple[float, str]]) -> float | None:
    """The CPU of the remote shell's children (its pipeline), from `times` after TIMES_MARK: None if absent."""
    texts = [text for _, text in lines]
    if TIMES_MARK not in texts:
        return None
    found = [m for text in texts[texts.index(TIMES_MARK) + 1:] if (m := _TIMES.search(text))][:2]
    if len(found) < 2:
        return None
    m = found[1]
    return int(m.group(1)) * 60 + float(m.group(2)) + int(m.group(3)) * 60 + float(m.group(4))


@dataclass
class Ended:
    """How a connection ended: ssh's wait status and usage, the compressor's usage (if any)."""

    status: int
    usage: struct_rusage | None
    compressor_usage: struct_rusage | None


class Connection:
    """Start with `Connection(...)`; then `ready()`, feed `payload_in` or drain `payload_out`, `end()`."""

    def __init__(self, target: Target, case: Case, argv: list[str], env: Mapping[str, str], timeout: float,
                 compression: Choice, leader: Leader) -> None:
        self.target, self.case = target, case
        self.stderr_lines: list[tuple[float, str]] = []
        self.timed_out = threading.Event()
        self._stderr_seen = threading.Condition()
        self.compressor: Child | None = None
        self.peer_port: int | None = None
        self.setup_seconds: float | None = None
        self._sink: int | None = None  # the server's `wc -c` of an upload, once found
        self._tcp_holder: int | None = None  # the process whose TCP socket sends this connection's data
        self._tcp_port: int | None = None  # ... matched by this port (None: its only TCP socket, behind a NAT)
        upload = case.direction is Direction.UPLOAD
        self.upload = upload
        external = compression.external and case.moves_data
        self.ready_on_stderr = external and not upload
        self.leader = leader
        self.t_spawn = time.perf_counter()
        ssh_in: int | None = None  # None: a pipe from sshbench's source
        if external and upload:  # source -> compressor -> ssh
            assert compression.level is not None
            ssh_in, compressed = os.pipe()
            grow_pipe(compressed)
            try:
                self.compressor = leader.start(compression.compressor.compress(compression.level), stdin=None,
                                               stdout=compressed, stderr=leader.devnull(), env=env)
            except BaseException:
                os.close(ssh_in)
                raise
        unpack_in, ssh_out = os.pipe() if external and not upload else (None, None)
        ssh: Child | None = None
        try:
            ssh = leader.start(target.client_argv(argv), stdin=ssh_in, stdout=ssh_out, stderr=None, env=env)
            if unpack_in is not None:  # ssh -> decompressor -> sink
                unpack, unpack_in = unpack_in, None
                self.compressor = leader.start(compression.compressor.decompress(), stdin=unpack, stdout=None,
                                               stderr=leader.devnull(), env=env)
        except BaseException:
            if unpack_in is not None:
                os.close(unpack_in)
            for started in (ssh, self.compressor):
                if started is not None:
                    kill_group(started.pid)
            raise
        self.proc = ssh
        carrier = self.compressor if self.compressor is not None and upload else self.proc
        assert carrier.stdin is not None
        self.payload_in: int | None = carrier.stdin.fileno()
        carrier = self.compressor if self.compressor is not None and not upload else self.proc
        assert carrier.stdout is not None and self.proc.stderr is not None
        self.payload_out = carrier.stdout.fileno()
        self.lines = Lines(self.payload_out)  # ssh's stdout where the ready line comes there (not ready_on_stderr)
        for fd in (self.payload_in, self.payload_out):
            grow_pipe(fd)
        self._stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_thread.start()
        self.server_gone = threading.Event()  # the embedded server of this connection ended while ssh ran on
        self._ended = threading.Event()
        self._watchdog = threading.Thread(target=self._watch, args=(timeout,), daemon=True,  # never keeps the
                                          name="sshbench-connection-watch")  # process alive after an interrupt
        self._watchdog.start()

    # ------------------------------------------------------------ running

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in iter(self.proc.stderr.readline, b""):
            with self._stderr_seen:
                self.stderr_lines.append((time.perf_counter() - self.t_spawn,
                                          stripped(raw.decode(errors="replace").rstrip())))
                self._stderr_seen.notify_all()
        with self._stderr_seen:
            self._stderr_seen.notify_all()

    def _watch(self, timeout: float) -> None:
        """The sample's bounds, whatever dies: ssh and its compressor end at the timeout; and where the server is
        ours, once its process has been gone SERVER_GONE_GRACE seconds while ssh still runs (a killed Dropbear
        left a run waiting out its whole timeout, 240 s on a loaded machine), the connection ends at once."""
        deadline = time.monotonic() + timeout
        gone_since: float | None = None
        while not self._ended.wait(WATCH_SECONDS):
            now = time.monotonic()
            if now >= deadline:
                self._expire()
                return
            if self.peer_port is None or not self.target.server_cpu_exact or self._exited():
                continue
            if self.target.server_pid(self.peer_port) is not None:
                gone_since = None
            elif gone_since is None:
                gone_since = now
            elif now - gone_since >= SERVER_GONE_GRACE:
                self.server_gone.set()
                self.kill()
                return

    def _exited(self) -> bool:
        """Whether ssh has exited, looked at without reaping it (end() reaps it, with its CPU time)."""
        return self.leader.exited(self.proc.pid)

    def _expire(self) -> None:
        self.timed_out.set()
        self.kill()

    def kill(self) -> None:
        """End ssh and the compressor with everything they started (each leads a process group)."""
        kill_group(self.proc.pid)
        self._kill_compressor()

    def _kill_compressor(self) -> None:
        if self.compressor is not None:
            kill_group(self.compressor.pid)

    def ready(self) -> str | None:
        """Wait for the remote command's ready line: None, or why it never came. Sets the set-up time and the
        client port the server saw (its server process is matched by it)."""
        if self.ready_on_stderr:
            line = self._ready_from_stderr()
        else:
            found = self.lines.until(READY)
            line = None if found is None else found.decode(errors="replace")
        if line is None:
            return NOT_STARTED
        self.setup_seconds = time.perf_counter() - self.t_spawn
        self.peer_port = ready_port(line)
        return None

    def _ready_from_stderr(self) -> str | None:
        with self._stderr_seen:
            while True:
                # the marker, where a shell's bytes with no newline may stand before it; never ssh's own "debug1:
                # Sending command: echo SSHBENCH-READY ..." line, which names it before the shell printed it
                found = next((text[text.find(_READY):] for _, text in self.stderr_lines
                              if _READY in text and not text.startswith("debug")), None)
                if found is not None or not self._stderr_thread.is_alive():
                    return found
                self._stderr_seen.wait(0.5)

    def cpu(self) -> tuple[float | None, float | None]:
        """CPU so far: the client side (ssh and its compressor), the server's process tree."""
        client = tree_cpu_seconds(self.proc.pid)
        if client is not None and self.compressor is not None:
            client += tree_cpu_seconds(self.compressor.pid) or 0.0
        server = self.target.server_cpu_so_far(self.peer_port) if self.peer_port is not None else None
        return client, server

    def delivered(self) -> int | None:
        """Bytes the embedded server's `wc -c` has read of this upload so far (/proc/PID/io): what arrived, not
        what was sent. None where the server is not ours, or its sink is not found or has ended."""
        if self._sink is None:
            server = self.target.server_pid(self.peer_port) if self.peer_port is not None else None
            self._sink = find_command(server, "wc") if server is not None else None
            if self._sink is None:
                return None
        return chars_read(self._sink)

    def sender_tcp(self) -> TcpInfo | None:
        """The counters of the TCP socket that sends this connection's data: ssh's (or the client program a driver
        runs as its child, PuTTY's plink) for an upload, the embedded server's for a download (None for a real
        host's download, or where the socket may not be read)."""
        if self._tcp_holder is not None:
            return tcp_info_of(self._tcp_holder, self._tcp_port)
        if self.upload:
            candidates = descendants(self.proc.pid)
        else:
            server = self.target.server_pid(self.peer_port) if self.peer_port is not None else None
            candidates = descendants(server) if server is not None else []
        for pid in candidates:
            for port in (self.peer_port, None) if self.upload else (self.peer_port,):
                if (found := tcp_info_of(pid, port)) is not None:
                    self._tcp_holder, self._tcp_port = pid, port
                    return found
        return None

    def compressed_out(self) -> int | None:
        """Bytes the client's compressor has written so far (/proc/PID/io), None without one or where unread."""
        if self.compressor is None:
            return None
        try:
            with open(f"/proc/{self.compressor.pid}/io", encoding="ascii") as fh:
                return next((int(line.split()[1]) for line in fh if line.startswith("wchar:")), None)
        except (OSError, ValueError, IndexError):
            return None

    def close_input(self) -> None:
        """No more payload: the compressor (or ssh) sees EOF."""
        stream = self.compressor.stdin if self.compressor is not None and self.compressor.stdin else self.proc.stdin
        with contextlib.suppress(OSError):
            if stream is not None:
                stream.close()
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()

    def end(self) -> Ended:
        """Reap ssh and the compressor (bounded: the watchdog kills them at the timeout) and close everything."""
        self.close_input()
        with contextlib.suppress(OSError):
            drain(self.payload_out, 1 << 62)
        status, usage = self.leader.wait(self.proc.pid)
        compressor_usage = None
        if self.compressor is not None:
            _, compressor_usage = self.leader.wait(self.compressor.pid)
        self._ended.set()
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self._stderr_thread.join(timeout=5)
        for pipe in (self.proc.stdout, self.proc.stderr, *(() if self.compressor is None else
                                                            (self.compressor.stdout, self.compressor.stdin))):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        return Ended(status, usage, compressor_usage)
