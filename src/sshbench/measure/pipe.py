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

The per-byte rate is the steady state (measure/steady.py): from the
moment every stream is past its first quarter (never before STEADY_AFTER
bytes) to the moment the last byte arrived, counted where the bytes
arrive (our sink for a download, the embedded server's `wc -c` for an
upload; a real host's upload, writer-timed while every buffer is full).
The first quarter absorbs what every connection pays once before its
stream runs at full rate (about 0.1 s on loopback here; TCP's ramp over a
link), which would otherwise make a short sample look slower than a long
one of the same cipher; data_seconds keeps it, and Sample.fixed_seconds
says how much it was. Each side's CPU, and the sending TCP sockets'
counters, are read at both ends of that window.

With --streams N the case's bytes are split across N connections started
together; each carries its share as above, all start their data phase at
once, and the sample is the N together (measure/steady.py). With an
external compressor each connection has one on each end
(measure/connection.py); the remote command decompresses (or compresses)
in its pipeline and reports that pipeline's CPU with the shell's `times`.

With another client (--client paramiko) each connection is that client's
driver instead of ssh, given the same remote command (measure/drivers.py
says what it proves instead of ssh -v); everything else is as above.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sshbench.axes import effect_of
from sshbench.clientparts import client_part
from sshbench.measure.connection import READY_COMMAND, TIMES_MARK, Connection
from sshbench.measure.datapath import CHUNK, Payload, Tick, drain
from sshbench.measure.drivers import applied, driver_argv, failed_because, proved
from sshbench.measure.proof import CPU_MARK, Failed, concluded
from sshbench.measure.steady import LinkReading, Probe, SteadyWindow
from sshbench.plan.budget import STEADY_AFTER
from sshbench.plumbing.leader import Leader
from sshbench.results.model import Case, Direction, Sample
from sshbench.results.tcpfacts import Basis
from sshbench.targets.base import Target


@dataclass(frozen=True)
class SampleSettings:
    """Run-wide settings every sample shares (a case's compression and streams are its own: Case)."""

    payload: Payload = field(default_factory=Payload)
    env: Mapping[str, str] = field(default_factory=dict)  # e.g. the OpenSSL capability mask


def ssh_compression_options(case: Case) -> list[str]:
    """The ssh options a case's compression asks for (SSH's own zlib only: the others are outside ssh)."""
    return ["-o", "Compression=yes"] if case.compressor.is_ssh else []


# On a remote host the server's CPU is read by the remote command itself: /proc/$PPID/stat of the server's
# session process that runs it, before and after the data phase, on stderr so the data stream stays clean.
# That process is found by its role, the parent of our shell, not by its name: OpenSSH's "sshd: user@notty"
# child, Dropbear's per-connection "dropbear", tinysshd itself; each does the connection's crypto. A shell or
# wrapper in between (the parent is then not the server) makes it unknown, never a guess. No /proc: unknown.
# The total comes from /proc/PID/schedstat (nanoseconds) where the kernel has it, the user/sys split from
# /proc/PID/stat (clock ticks, 10 ms: too coarse alone for sub-second samples).
_CPU_FN = (f'sshbench_cpu() {{ s=$(cat /proc/$PPID/stat 2>/dev/null) && '
           f'echo "{CPU_MARK} $1 $(getconf CLK_TCK 2>/dev/null || echo 100) '
           f'$(cut -d" " -f1 /proc/$PPID/schedstat 2>/dev/null || echo -) $s" >&2; }}; ')


def remote_command(case: Case, size_bytes: int, payload: Payload | None = None, remote_cpu: bool = False) -> str:
    ready = READY_COMMAND
    compression = case.compressor
    external = compression.external and case.moves_data
    if external and case.direction is Direction.DOWNLOAD:
        ready += " >&2"  # stdout is the compressed stream (measure/connection.py)
    if remote_cpu:
        ready = f"{_CPU_FN}{ready}; sshbench_cpu before"
    after = "; sshbench_cpu after" if remote_cpu else ""
    times = f"; echo {TIMES_MARK} >&2; times >&2" if external else ""  # the pipeline's own CPU
    if case.direction is Direction.UPLOAD:
        if external:
            return f"{ready}; {compression.compressor.shell(compression.compressor.decompress())} | wc -c{after}{times}"
        return f"{ready}; {'' if remote_cpu else 'exec '}wc -c{after}"
    if case.direction is Direction.DOWNLOAD:
        source = (payload or Payload()).remote_source(size_bytes)
        if remote_cpu or external:
            source = source.removeprefix("exec ")  # the shell must live on to read the CPU after
        if external:
            assert compression.level is not None
            source = f"{source} | {compression.compressor.shell(compression.compressor.compress(compression.level))}"
        return f"{ready}; read go; {source}{after}{times}"
    return ready


def shares(size_bytes: int, streams: int) -> list[int]:
    """A transfer's bytes split across its streams: equal parts, the remainder on the first."""
    part = size_bytes // streams
    return [part + size_bytes - part * streams] + [part] * (streams - 1)


def run_sample(target: Target, case: Case, size_bytes: int, round_no: int, timeout: float,
               settings: SampleSettings | None = None, tick: Tick | None = None) -> Sample:
    """Measure one transfer over `case.streams` connections. Never raises for ssh failures: they come back as a
    failed Sample (a stream that fails fails the sample, and ends the others).

    `tick` is told the bytes our side moves during the data phase, for a live rate display.
    """
    settings = settings or SampleSettings()
    sample = Sample(case_id=case.id, round=round_no, warmup=round_no == 0, ok=False,
                    started_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
                    size_bytes=size_bytes if case.moves_data else 0)
    remote_cpu = not target.server_cpu_exact
    compression = case.compressor
    parts = shares(size_bytes, case.streams) if case.moves_data else [0]
    env = {**os.environ, **target.tool_env, **settings.env}
    connections: list[Connection] = []
    error: Failed | None = None
    effect = effect_of(case.dims)
    driver = client_part(effect.client) if effect.client else None  # another client's driver instead of ssh
    leader = Leader()  # the streams' own session: one scheduling group, as from a shell, without sshbench in it
    t_start = time.perf_counter()
    try:
        for part in parts:
            command = remote_command(case, part, settings.payload, remote_cpu)
            if driver is not None:
                argv = driver_argv(driver, target, case, command)
            else:
                argv = target.ssh_argv(case, command)
                argv[1:1] = [*ssh_compression_options(case), *effect.ssh_options]
            connections.append(Connection(target, case, argv, env, timeout, compression, leader))
        error = _ready(connections)
        if error is None and case.moves_data:
            sample.client_cpu_setup_seconds = _total(c.cpu()[0] for c in connections)
            sample.server_cpu_setup_seconds = _total(c.cpu()[1] for c in connections)
            basis = Basis.DELIVERED if case.direction is Direction.DOWNLOAD or target.server_cpu_exact else Basis.SENT
            upstream = case.direction is Direction.UPLOAD
            window = SteadyWindow(parts, tick or _no_tick,
                                  lambda at: LinkReading(target.link_cpu_so_far(case),
                                                         target.link_idle_so_far(case, upstream, at)),
                                  _probes(case, connections, basis), basis)
            error = _data_phases(case, parts, connections, sample, settings.payload, window, timeout)
            window.fill(sample)
    except BrokenPipeError:
        error = Failed("ssh exited while data was still being sent")
    except BaseException:  # Ctrl-C or a bug: never leave ssh running behind us
        for connection in connections:
            connection.kill()
        raise
    finally:
        try:
            ended = [connection.end() for connection in connections]
            sample.total_seconds = time.perf_counter() - t_start
        finally:
            leader.close()
    if connections:
        sample.setup_seconds = max((c.setup_seconds for c in connections if c.setup_seconds is not None),
                                   default=None) if error is None else connections[0].setup_seconds
    if driver is None:
        return concluded(target, case, sample, connections, ended, error, remote_cpu, timeout)
    proof = proved(driver, target, connections, [c.t_spawn for c in connections])
    error = failed_because(driver, error, connections) if error is not None else \
        (Failed(proof.error) if proof.error is not None else None)
    return applied(concluded(target, case, sample, connections, ended, error, remote_cpu, timeout,
                             transcripts=proof.transcripts), proof)


def _no_tick(moved: int) -> None:
    pass


def _probes(case: Case, connections: list[Connection], basis: Basis) -> list[Probe]:
    """Per stream: its sending socket's counters; an upload's receiver count where the server is ours
    (DELIVERED); else (SENT), for an upload through a compressor, whether the compressor's own output has
    filled what ssh holds in flight (the steady state starts only then: at 3:1, three times the payload a
    plain stream holds)."""
    upload = case.direction is Direction.UPLOAD
    external = case.compressor.external

    def probe(connection: Connection) -> Probe:
        gate: Callable[[], bool] = (lambda: (out := connection.compressed_out()) is not None
                                    and out >= STEADY_AFTER) if upload and external else (lambda: True)
        delivered = connection.delivered if upload and basis is Basis.DELIVERED else None
        return Probe(gate, delivered, connection.sender_tcp, connection.cpu)
    return [probe(c) for c in connections]


def _total(values: object) -> float | None:
    found = list(values)  # type: ignore[call-overload]
    return None if any(v is None for v in found) else sum(found)


def _ready(connections: list[Connection]) -> Failed | None:
    """Every connection's remote command ready (they started together, so their handshakes overlap)."""
    for index, connection in enumerate(connections):
        if (why := connection.ready()) is not None:
            return Failed(why, index, not_started=True)
    return None


def _data_phases(case: Case, parts: list[int], connections: list[Connection], sample: Sample, payload: Payload,
                 window: SteadyWindow, timeout: float) -> Failed | None:
    """Every stream's data phase at once (threads beyond the first); the first error, or None."""
    errors: list[str | None] = [None] * len(connections)
    counts = [0] * len(connections)
    ends = [0.0] * len(connections)
    go = threading.Barrier(len(connections))
    deadline = time.perf_counter() + timeout

    def one(index: int) -> None:
        try:
            go.wait(timeout=60)
            counts[index], errors[index] = _data_phase(case, parts[index], connections[index], payload, window,
                                                       index, deadline)
        except BrokenPipeError:
            errors[index] = "ssh exited while data was still being sent"
        except threading.BrokenBarrierError:
            errors[index] = "the other streams did not start"
        except OSError as exc:
            errors[index] = f"the data phase failed: {exc.strerror or exc}"
        ends[index] = time.perf_counter()
        if errors[index] is not None:  # one stream failed: the transfer did, so the others end now
            for connection in connections:
                connection.kill()

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(1, len(connections))]
    for thread in threads:
        thread.start()
    t0 = time.perf_counter()
    one(0)
    for thread in threads:
        thread.join()
    sample.data_seconds = max(ends) - t0
    sample.bytes_received = sum(counts)
    sample.verified = "count"
    failed = next(((i, e) for i, e in enumerate(errors) if e is not None), None)
    if failed is not None:
        return Failed(failed[1], failed[0])
    if sample.bytes_received != sum(parts):
        return Failed(f"receiver counted {sample.bytes_received} bytes, expected {sum(parts)}")
    return None


def _data_phase(case: Case, size_bytes: int, connection: Connection, payload: Payload, window: SteadyWindow,
                index: int, deadline: float) -> tuple[int, str | None]:
    """Move one stream's bytes: (what its receiver counted, an error text or None). An upload's arrival is
    waited for where it can be seen (measure/steady.py): before its input closes, unless a compressor holds
    the last bytes back until then."""
    marks = window.marks(index)
    chunk = effect_of(case.dims).chunk_bytes or CHUNK
    if case.direction is Direction.UPLOAD:
        assert connection.payload_in is not None
        payload.send(connection.payload_in, size_bytes, marks, chunk)
        held_back = case.compressor.external
        if not held_back:
            window.wait_delivered(index, deadline)
        connection.close_input()
        if held_back:
            window.wait_delivered(index, deadline)
        line = connection.lines.readline()
        if line is None or not line.strip().isdigit():
            return 0, "the server did not report a byte count"
        count = int(line.strip())
    else:
        if connection.lines.buffer:
            return 0, "unexpected output before the data phase"
        assert connection.proc.stdin is not None
        connection.proc.stdin.write(b"go\n")
        count, _ = drain(connection.payload_out, size_bytes, marks, chunk)
        extra, _ = drain(connection.payload_out, 1 << 62)
        count += extra
    if count != size_bytes:
        return count, f"receiver counted {count} bytes, expected {size_bytes}"
    return count, None


