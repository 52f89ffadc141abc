"""ONE measurement: one ssh connection carrying one transfer, returned as a Sample.

The remote side is plain POSIX sh, so the same protocol works against any
server later: the remote command first prints a ready line (with
$SSH_CLIENT, or $SSH_CONNECTION where a server sets only that, which names our
source port so the server process can be matched exactly), then
- upload: `wc -c` counts what arrives and prints the count; the clock runs
  from our first byte written to the moment that count arrives;
- download: it waits for our go line, then `head -c N /dev/zero`; the clock
  runs from the go line to the moment our sink has counted N bytes;
- set-up: nothing more; the connection is timed from process start.
The handshake is never inside the data phase. Both data phases include one
network round trip (go/ack), about 50 microseconds on loopback.

The per-byte rate is the steady state: the last three quarters of the
bytes and the time they took, timed on the client (its writes for an
upload, its reads for a download). At both marks the pipes, SSH's channel
window and TCP's buffers are full, so what goes in between is what comes
out (the first mark is never before STEADY_AFTER bytes, and a sample too
small for that is timed whole). The first quarter absorbs what every connection pays once before its
stream runs at full rate (about 0.1 s on loopback here; TCP's ramp over a
link), which would otherwise make a short sample look slower than a long
one of the same cipher; data_seconds keeps it, and Sample.fixed_seconds
says how much it was. Each side's CPU is read at both marks too.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sshbench.algorithms import is_aead
from sshbench.measure.datapath import Payload, Tick, drain, grow_pipe
from sshbench.plan.budget import steady_mark
from sshbench.plumbing.negotiation import Negotiated, parse_verbose
from sshbench.plumbing.procfs import tree_cpu_seconds
from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.results.model import Case, Direction, Sample
from sshbench.targets.base import Target
from sshbench.untrusted import clean

READY = b"SSHBENCH-READY"
STDERR_TAIL = 8


@dataclass(frozen=True)
class SampleSettings:
    """Run-wide settings every sample shares."""

    payload: Payload = field(default_factory=Payload)
    compression: bool = False
    env: Mapping[str, str] = field(default_factory=dict)  # e.g. the OpenSSL capability mask

    @property
    def expected_compression(self) -> str:
        return "zlib@openssh.com" if self.compression else "none"


# On a remote host the server's CPU is read by the remote command itself: /proc/$PPID/stat of the server's
# session process that runs it, before and after the data phase, on stderr so the data stream stays clean.
# That process is found by its role, the parent of our shell, not by its name: OpenSSH's "sshd: user@notty"
# child, Dropbear's per-connection "dropbear", tinysshd itself; each does the connection's crypto. A shell or
# wrapper in between (the parent is then not the server) makes it unknown, never a guess. No /proc: unknown.
# The total comes from /proc/PID/schedstat (nanoseconds) where the kernel has it, the user/sys split from
# /proc/PID/stat (clock ticks, 10 ms: too coarse alone for sub-second samples).
CPU_MARK = "SSHBENCH-CPU"
# Parents that are not the server's session process: a login shell that forked our command, or a wrapper.
NOT_A_SERVER = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "csh", "tcsh",
                          "sudo", "su", "env", "timeout", "nice", "ionice", "script", "tmux", "screen"})
_CPU_FN = (f'sshbench_cpu() {{ s=$(cat /proc/$PPID/stat 2>/dev/null) && '
           f'echo "{CPU_MARK} $1 $(getconf CLK_TCK 2>/dev/null || echo 100) '
           f'$(cut -d" " -f1 /proc/$PPID/schedstat 2>/dev/null || echo -) $s" >&2; }}; ')


def remote_command(case: Case, size_bytes: int, payload: Payload | None = None, remote_cpu: bool = False) -> str:
    # SSH_CLIENT ("ip port port") where the server sets it; tinysshd sets only SSH_CONNECTION ("ip port ip port"):
    # the client's port is the second word of either
    ready = "echo SSHBENCH-READY ${SSH_CLIENT:-$SSH_CONNECTION}"
    if remote_cpu:
        ready = f"{_CPU_FN}{ready}; sshbench_cpu before"
    after = "; sshbench_cpu after" if remote_cpu else ""
    if case.direction is Direction.UPLOAD:
        return f"{ready}; {'' if remote_cpu else 'exec '}wc -c{after}"
    if case.direction is Direction.DOWNLOAD:
        source = (payload or Payload()).remote_source(size_bytes)
        if remote_cpu:
            source = source.removeprefix("exec ")  # the shell must live on to read the CPU after
        return f"{ready}; read go; {source}{after}"
    return ready


def parse_remote_cpu(lines: list[tuple[float, str]]) -> dict[str, tuple[float, float]]:
    """'before'/'after' -> (user, sys) seconds of the server's session process, from CPU_MARK lines."""
    found: dict[str, tuple[float, float]] = {}
    for _, text in lines:
        if not text.startswith(CPU_MARK):
            continue
        head, _, stat = text[len(CPU_MARK):].partition("(")  # "before 100 123456 4242 " then "sshd) S ..."
        words = head.split()
        comm, _, rest = stat.rpartition(")")
        fields = rest.split()  # from field 3 (state): utime is field 14, stime field 15
        if len(words) != 4 or not words[1].isdigit() or comm.strip() in NOT_A_SERVER or len(fields) < 13:
            continue  # a wrapper shell between the server and our command: unknown, never a guess
        hz = int(words[1]) or 100
        user, system = int(fields[11]) / hz, int(fields[12]) / hz
        if words[2].isdigit():  # schedstat: exact total, split in the ticks' proportion
            total = int(words[2]) / 1e9
            share = user / (user + system) if user + system else 0.0
            user, system = total * share, total * (1 - share)
        found[words[0]] = (user, system)
    return found


def negotiation_mismatch(case: Case, got: Negotiated, compression: str = "none") -> str | None:
    """Compare the request with what was negotiated; a description of the first difference."""
    if not got.complete:
        return "the negotiated algorithms were not found in ssh -v output"
    expected: list[tuple[str, str, str | None]] = []
    if case.cipher:
        expected += [("client->server cipher", case.cipher, got.cipher_c2s),
                     ("server->client cipher", case.cipher, got.cipher_s2c)]
    if case.mac:
        want = "<implicit>" if case.cipher and is_aead(case.cipher) else case.mac
        expected += [("client->server MAC", want, got.mac_c2s), ("server->client MAC", want, got.mac_s2c)]
    if case.kex:
        expected.append(("key exchange", case.kex, got.kex))
    if case.hostkey:
        expected.append(("host key algorithm", case.hostkey, got.hostkey))
    expected += [("client->server compression", compression, got.compression_c2s),
                 ("server->client compression", compression, got.compression_s2c)]
    for what, want, have in expected:
        if want != have:
            return f"asked for {what} {want} but {have} was negotiated"
    return None


class _Lines:
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
        """Skip anything a login script printed before our marker line."""
        while (line := self.readline()) is not None:
            if line.startswith(prefix):
                return line
        return None


def tail_lines(lines: list[tuple[float, str]]) -> list[str]:
    """Last lines worth reading: ssh's own messages first, debug noise only if there is nothing else."""
    plain = [text for _, text in lines if not text.startswith("debug")]
    return (plain or [text for _, text in lines])[-STDERR_TAIL:]


def run_sample(target: Target, case: Case, size_bytes: int, round_no: int, timeout: float,
               settings: SampleSettings | None = None, tick: Tick | None = None) -> Sample:
    """Measure one connection. Never raises for ssh failures: they come back as a failed Sample.

    `tick` is told the bytes our side moves during the data phase, for a live rate display.
    """
    settings = settings or SampleSettings()
    sample = Sample(case_id=case.id, round=round_no, warmup=round_no == 0, ok=False,
                    started_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
                    size_bytes=size_bytes if case.moves_data else 0)
    remote_cpu = not target.server_cpu_exact
    argv = target.ssh_argv(case, remote_command(case, size_bytes, settings.payload, remote_cpu))
    if settings.compression:
        argv[1:1] = ["-o", "Compression=yes"]
    stderr_lines: list[tuple[float, str]] = []
    timed_out = threading.Event()
    t_spawn = time.perf_counter()
    proc = spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                 env={**os.environ, **target.tool_env, **settings.env})
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stderr_pipe = proc.stderr

    def read_stderr() -> None:
        for raw in iter(stderr_pipe.readline, b""):
            stderr_lines.append((time.perf_counter() - t_spawn, clean(raw.decode(errors="replace").rstrip())))

    def expire() -> None:
        timed_out.set()
        kill_group(proc.pid)  # not proc.kill(): its poll() could reap ssh under our wait4 below

    stderr_thread = threading.Thread(target=read_stderr, daemon=True)
    stderr_thread.start()
    watchdog = threading.Timer(timeout, expire)
    watchdog.daemon = True  # never keeps the process alive after an interrupt
    watchdog.start()
    peer_port: int | None = None
    error: str | None = None
    try:
        grow_pipe(proc.stdin.fileno())
        grow_pipe(proc.stdout.fileno())
        out = _Lines(proc.stdout.fileno())
        ready = out.until(READY)
        t_ready = time.perf_counter()
        if ready is None:
            error = "ssh ended before the remote command started"
        else:
            sample.setup_seconds = t_ready - t_spawn
            fields = ready.split()
            peer_port = int(fields[2]) if len(fields) >= 3 and fields[2].isdigit() else None
            if case.moves_data:  # what each side spent before the first byte, to charge the data phase alone
                sample.client_cpu_setup_seconds = tree_cpu_seconds(proc.pid)
                if peer_port is not None:
                    sample.server_cpu_setup_seconds = target.server_cpu_so_far(peer_port)
            def cpu() -> tuple[float | None, float | None, float | None]:
                server = target.server_cpu_so_far(peer_port) if peer_port is not None else None
                return tree_cpu_seconds(proc.pid), server, target.link_cpu_so_far(case)
            error = _data_phase(case, size_bytes, proc, out, sample, settings.payload, tick or _no_tick, cpu)
        proc.stdin.close()
        with contextlib.suppress(OSError):
            drain(proc.stdout.fileno(), 1 << 62)
    except BrokenPipeError:
        error = "ssh exited while data was still being sent"
    except BaseException:  # Ctrl-C or a bug: never leave ssh running behind us
        kill_group(proc.pid)
        raise
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()
        status, usage = reap(proc.pid)  # bounded: the watchdog kills ssh at the timeout
        watchdog.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        sample.total_seconds = time.perf_counter() - t_spawn
        stderr_thread.join(timeout=5)
        proc.stdout.close()
        stderr_pipe.close()

    sample.exit_status = proc.returncode
    if usage is not None:
        sample.client_cpu_user_seconds = usage.ru_utime
        sample.client_cpu_sys_seconds = usage.ru_stime
    transcript = parse_verbose(stderr_lines)
    sample.negotiated = transcript.negotiated
    sample.phases = {k: round(v, 6) for k, v in transcript.phases.items()}
    if transcript.transferred:
        sample.wire_bytes_sent, sample.wire_bytes_received = transcript.transferred
    if remote_cpu:
        _remote_cpu(sample, parse_remote_cpu(stderr_lines))
    elif peer_port is not None:
        server = target.server_process(peer_port)
        if server is not None:
            sample.server_cpu_user_seconds = server.cpu_user_s
            sample.server_cpu_sys_seconds = server.cpu_sys_s

    if timed_out.is_set():
        error = f"timed out after {timeout:.0f}s"
    elif transcript.refused:
        error = f"server refused: {transcript.refused}"
    elif error is None and (mismatch := negotiation_mismatch(case, transcript.negotiated,
                                                             settings.expected_compression)):
        error = mismatch
    elif error is None and proc.returncode != 0:
        error = f"ssh exited with status {proc.returncode}"
    elif error is None and case.moves_data and sample.server_cpu_user_seconds is None and target.server_cpu_exact:
        error = "the server process of this connection was not found"
    sample.error = error
    sample.ok = error is None
    if error is not None:
        sample.stderr_tail = tail_lines(stderr_lines) + [f"server: {line}" for line in target.server_log_tail()[-3:]]
    return sample


def _remote_cpu(sample: Sample, cpu: dict[str, tuple[float, float]]) -> None:
    """Transfers: the session process's total after the data, with the part before it as set-up."""
    before, after = cpu.get("before"), cpu.get("after")
    total = after or before
    if total is None or not sample.size_bytes:
        # not Linux or /proc hidden; or a set-up case, whose key exchange ran in sshd's pre-auth process
        # (gone by the time our command runs): unknown, not zero
        return
    sample.server_cpu_user_seconds, sample.server_cpu_sys_seconds = total
    if sample.size_bytes and before is not None and after is not None:
        sample.server_cpu_setup_seconds = sum(before)
    elif sample.size_bytes:
        sample.server_cpu_user_seconds = sample.server_cpu_sys_seconds = None


def _no_tick(moved: int) -> None:
    pass




Cpu = Callable[[], tuple[float | None, float | None, float | None]]  # CPU so far: client, server, link emulator


class _SteadyMarks:
    """Client-side marks of the steady state: when a quarter of the bytes had moved, and when the last had,
    with each side's CPU (and the link emulator's) at both (module docstring). Wraps the live-rate tick; one
    /proc read per side per mark."""

    def __init__(self, size: int, tick: Tick, cpu: Cpu) -> None:
        self.size, self.tick, self.cpu = size, tick, cpu
        start = steady_mark(size)
        self.start = size + 1 if start is None else start  # too small: no steady state
        self.moved = 0
        self.half: tuple[float, int, tuple[float | None, float | None, float | None]] | None = None  # 1st mark
        self.last = 0.0

    def __call__(self, moved: int) -> None:
        self.moved += moved
        self.last = time.perf_counter()
        if self.half is None and self.moved >= self.start:
            self.half = (self.last, self.moved, self.cpu())
        self.tick(moved)

    def fill(self, sample: Sample) -> None:
        if self.half is None or self.moved <= self.half[1] or self.last <= self.half[0]:
            return
        sample.steady_bytes = self.moved - self.half[1]
        sample.steady_seconds = self.last - self.half[0]
        after, before = self.cpu(), self.half[2]
        spent = [None if a is None or b is None else max(0.0, a - b) for a, b in zip(after, before, strict=True)]
        sample.client_cpu_steady_seconds, sample.server_cpu_steady_seconds, sample.link_cpu_steady_seconds = spent


def _data_phase(case: Case, size_bytes: int, proc: subprocess.Popen[bytes], out: _Lines,
                sample: Sample, payload: Payload, tick: Tick,
                cpu: Cpu = lambda: (None, None, None)) -> str | None:
    """Move the bytes and time them; fills the sample, returns an error text or None."""
    assert proc.stdin is not None and proc.stdout is not None
    marks = _SteadyMarks(size_bytes, tick, cpu)
    if case.direction is Direction.UPLOAD:
        t0 = time.perf_counter()
        payload.send(proc.stdin.fileno(), size_bytes, marks)
        marks.fill(sample)  # at the last write: the client's end of the steady state
        proc.stdin.close()
        line = out.readline()
        t1 = time.perf_counter()
        if line is None or not line.strip().isdigit():
            return "the server did not report a byte count"
        sample.bytes_received = int(line.strip())
    elif case.direction is Direction.DOWNLOAD:
        if out.buffer:
            return "unexpected output before the data phase"
        proc.stdin.write(b"go\n")
        t0 = time.perf_counter()
        count, _ = drain(proc.stdout.fileno(), size_bytes, marks)
        t1 = time.perf_counter()
        marks.fill(sample)
        extra, _ = drain(proc.stdout.fileno(), 1 << 62)
        sample.bytes_received = count + extra
    else:
        return None
    sample.data_seconds = t1 - t0
    sample.verified = "count"
    if sample.bytes_received != size_bytes:
        return f"receiver counted {sample.bytes_received} bytes, expected {size_bytes}"
    return None
