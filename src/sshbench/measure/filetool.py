"""ONE file-method measurement: scp, sftp or rsync moving a real file, as a Sample.

A sample is two runs of the same tool with the same algorithms, back to back:
a 1-byte file, then the test file. The big run's wall time is the
end-to-end figure (what the user waits for: ssh start-up, handshake, the
tool's own start-up, the transfer, closing). The difference of the two is
the steady-state data phase: everything the tiny run also paid (process
start, handshake, authentication, the tool's protocol set-up, file creation)
cancels out, leaving the bytes. CPU is handled the same way: the tiny run's
exact CPU (wait4 on both sides) is subtracted from the big run's.

Received files are checked after the clock stops: size always, SHA-256
with --verify; then deleted, so every sample writes a fresh file (rsync
would otherwise skip a file that already looks the same).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO

from sshbench.measure.datapath import Payload
from sshbench.measure.pipe import SampleSettings, ssh_compression_options
from sshbench.measure.proof import expected_compression, negotiation_mismatch, tail_lines
from sshbench.measure.testfiles import make_source, space_margin, tiny_shape
from sshbench.methods import NULL, Endpoint, Ssh, Transfer, method
from sshbench.options import FileShape
from sshbench.plumbing.negotiation import Transcript, parse_verbose
from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.plumbing.trees import remove_tree, tree_sha256
from sshbench.results.kinds import Failure, Unusable
from sshbench.results.model import Case, CaseKind, Direction, Sample
from sshbench.targets.base import ServerProcess, Target
from sshbench.targets.localfiles import LocalFiles
from sshbench.vocabulary.errors import OutputError, UsageError
from sshbench.vocabulary.untrusted import clean

_PORT_RE = re.compile(r"sshbench fdpass: local port (\d+)")
_SAFE_PATH = re.compile(r"[A-Za-z0-9_./+:@%-]+")


@dataclass(frozen=True)
class TransferFiles:
    """One run's test files on both sides, made once, removed at the end."""

    shape: FileShape
    sink_file: bool  # False: the receiver writes to /dev/null
    verify: bool  # SHA-256 of every received file
    client_dir: str
    server_dir: str
    source_sha256: str | None

    def source(self, tiny: bool, server: bool) -> str:
        return os.path.join(self.server_dir if server else self.client_dir, "tiny" if tiny else "source")

    def received(self, tiny: bool, server: bool) -> str:
        if not self.sink_file and not self.shape.is_set:
            return NULL
        return os.path.join(self.server_dir if server else self.client_dir, "received-tiny" if tiny else "received")


@contextlib.contextmanager
def prepared_files(target: Target, workdir: str, shape: FileShape, payload: Payload, sink_file: bool,
                   verify: bool) -> Iterator[TransferFiles]:
    """Make the source file (and its 1-byte twin) on both sides; remove everything, on both sides, after."""
    if not _SAFE_PATH.fullmatch(os.path.abspath(workdir)):
        raise UsageError(f"--workdir {workdir!r}: use a path without spaces or shell characters "
                         "(scp -O and rsync pass remote paths through the server's shell)")
    try:
        client_dir = tempfile.mkdtemp(prefix="sshbench-files-", dir=workdir)
    except OSError as exc:
        raise OutputError(f"--workdir {workdir}: cannot make the file methods' test files there "
                          f"({exc.strerror or exc}); pick a writable directory with room") from None
    server_dir: str | None = None
    try:
        try:
            make_source(os.path.join(client_dir, "source"), shape, payload)
            make_source(os.path.join(client_dir, "tiny"), tiny_shape(shape), payload)
        except OSError as exc:
            raise OutputError(f"--workdir {workdir}: cannot write the file methods' test files there "
                              f"({exc.strerror or exc}); pick a writable directory with room") from None
        # the server holds the download source (a real copy on a remote host) and one received copy at a time
        data = shape.total_bytes * (2 if sink_file else 1)
        room = data + space_margin(data)
        server_dir = target.files.make_dir(workdir, room)
        files = TransferFiles(shape, sink_file, verify, client_dir, server_dir,
                              tree_sha256(os.path.join(client_dir, "source")) if verify else None)
        for tiny in (False, True):
            target.files.place(files.source(tiny, server=False), files.source(tiny, server=True))
        yield files
    finally:
        if server_dir is not None:
            target.files.remove(server_dir)
        remove_tree(client_dir)


@dataclass
class ToolRun:
    """One run of a file tool, start to exit."""

    wall_seconds: float
    exit_status: int
    cpu_user: float
    cpu_sys: float
    lines: list[tuple[float, str]] = field(default_factory=list)
    timed_out: bool = False
    server: ServerProcess | None = None
    peer_port: int | None = None

    @property
    def transcript(self) -> Transcript:
        return parse_verbose(self.lines)


def command_templates(target: Target, files: TransferFiles, methods: tuple[str, ...]) -> dict[str, str]:
    """Method -> the upload command as run (cipher shown as CIPHER), for the results file's record."""
    out = {}
    for name in methods:
        tool = method(name)
        if not tool.moves_files:
            continue
        case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="CIPHER", method=name)
        transfer = tool.transfer(ssh_for(target, case), Endpoint(files.source(False, False)),
                                 Endpoint(files.received(False, True), remote=True), files.shape.is_set,
                                 files.client_dir)
        out[name] = transfer.shown()
    return out


def ssh_for(target: Target, case: Case) -> Ssh:
    """What every tool is given to reach the server: the target's ssh, its options for this case (its compression
    included), the host."""
    options = target.tool_ssh_options(case) + ssh_compression_options(case)
    return Ssh(target.program_for(case), tuple(options), target.destination)


def _spawn(transfer: Transfer, env: dict[str, str], stderr: int) -> list[subprocess.Popen[bytes]]:
    """Every stage in one new process group (one killpg ends them all), each stage's stdout into the next.

    One command gets a session of its own, as every tool sshbench runs; a pipeline's stages share a new
    process group instead (a process may only join a group of its own session)."""
    alone = len(transfer.stages) == 1
    procs_: list[subprocess.Popen[bytes]] = []
    previous: IO[bytes] | None = None
    try:
        for index, stage in enumerate(transfer.stages):
            last = index == len(transfer.stages) - 1
            argv = [_tool_path(stage[0]), *stage[1:]]
            group = {} if alone else {"process_group": procs_[0].pid if procs_ else 0}
            proc = spawn(argv, stdin=previous or subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL if last else subprocess.PIPE, stderr=stderr, env=env, **group)
            if previous is not None:
                previous.close()  # the next stage holds it now
            previous = proc.stdout
            procs_.append(proc)
    except BaseException:
        for proc in procs_:
            kill_group(proc.pid)
            reap(proc)
        raise
    return procs_


def run_tool(transfer: Transfer, timeout: float, env: dict[str, str]) -> ToolRun:
    """Run a transfer's stages in their own process group; kill the whole group at the timeout (ssh too).

    The exit status is the first failing stage's (a pipeline's middle stage failing must not pass as the
    last stage's 0); CPU time is every stage's, as wait4 gives it."""
    lines: list[tuple[float, str]] = []
    t0 = time.perf_counter()
    read_end, write_end = os.pipe()
    try:
        stages = _spawn(transfer, {**os.environ, **env}, write_end)
    finally:
        os.close(write_end)
    stderr = os.fdopen(read_end, "rb")
    timed_out = threading.Event()

    def read() -> None:
        for raw in iter(stderr.readline, b""):
            lines.append((time.perf_counter() - t0, clean(raw.decode(errors="replace").rstrip())))

    group = stages[0].pid

    def expire() -> None:
        timed_out.set()
        kill_group(group)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    watchdog = threading.Timer(timeout, expire)
    watchdog.daemon = True  # never keeps the process alive after an interrupt
    watchdog.start()
    statuses, user, system = [], 0.0, 0.0
    try:
        for proc in stages:  # an interrupt kills the tools and their ssh, and reaps them, first
            status, usage = reap(proc)
            proc.returncode = os.waitstatus_to_exitcode(status)
            statuses.append(proc.returncode)
            user += usage.ru_utime if usage else 0.0
            system += usage.ru_stime if usage else 0.0
    finally:
        watchdog.cancel()
        kill_group(group)  # a child a tool left behind (it should not); the rest are reaped below on error
        for proc in stages:
            if proc.returncode is None:
                reap(proc)
    wall = time.perf_counter() - t0
    reader.join(timeout=5)
    stderr.close()
    port = next((int(m.group(1)) for _, text in lines if (m := _PORT_RE.search(text))), None)
    failed = next((code for code in statuses if code != 0), 0)
    return ToolRun(wall, failed, user, system, lines, timed_out.is_set(), peer_port=port)


def run_transfer_sample(target: Target, case: Case, files: TransferFiles, round_no: int, timeout: float,
                        settings: SampleSettings) -> Sample:
    """Measure one case: the 1-byte run, then the real one, then the checks. Never raises for tool failures."""
    shape = files.shape
    sample = Sample(case_id=case.id, round=round_no, warmup=round_no == 0, ok=False,
                    started_at=datetime.now(UTC).isoformat(timespec="milliseconds"), size_bytes=shape.total_bytes)
    runs: list[ToolRun] = []
    error: str | None = None
    for tiny in (True, False):
        run, error, sample.failure = _one_run(target, case, files, tiny, timeout, settings)
        runs.append(run)
        if error is not None:
            break
    big = runs[-1]
    sample.exit_status = big.exit_status
    sample.client_cpu_user_seconds, sample.client_cpu_sys_seconds = big.cpu_user, big.cpu_sys
    transcript = big.transcript
    sample.negotiated = transcript.negotiated
    sample.phases = {k: round(v, 6) for k, v in transcript.phases.items()}
    if transcript.transferred:
        sample.wire_bytes_sent, sample.wire_bytes_received = transcript.transferred
    if big.server is not None:
        sample.server_cpu_user_seconds, sample.server_cpu_sys_seconds = big.server.cpu_user_s, big.server.cpu_sys_s
    if error is None:
        tiny_run = runs[0]
        sample.overhead_seconds = tiny_run.wall_seconds
        sample.total_seconds = big.wall_seconds
        sample.client_cpu_setup_seconds = tiny_run.cpu_user + tiny_run.cpu_sys
        if tiny_run.server is not None:
            sample.server_cpu_setup_seconds = tiny_run.server.cpu_user_s + tiny_run.server.cpu_sys_s
        error = _check_received(target, case, files, sample)
        if error is None and big.wall_seconds <= tiny_run.wall_seconds:
            # the transfer worked and was verified, but noise in the two logins was larger than the data's own
            # time: a sample with no rate, set aside and measured again, not a failure (a CI's 40 files of 256 KiB
            # took 0.114 s beside a 1-byte run of 0.115 s); a case whose every sample is so fails with this reason
            sample.unusable = (f"the {shape.describe()} took no longer than 1 byte ({big.wall_seconds:.3f} s vs "
                               f"{tiny_run.wall_seconds:.3f} s), so no rate: move more data "
                               f"({'--files or --file-size' if shape.is_set else '--size'})")
            sample.unusable_kind = Unusable.NO_RATE
        elif error is None:
            sample.data_seconds = big.wall_seconds - tiny_run.wall_seconds
    _clean_received(target, files)
    sample.error = error
    sample.ok = error is None
    if error is not None:
        sample.stderr_tail = tail_lines(big.lines) + [f"server: {line}" for line in target.server_log_tail()[-3:]]
    return sample


def _one_run(target: Target, case: Case, files: TransferFiles, tiny: bool, timeout: float,
             settings: SampleSettings) -> tuple[ToolRun, str | None, Failure | None]:
    tool = method(case.method)
    upload = case.direction is Direction.UPLOAD
    source = files.source(tiny, server=not upload)
    dest = files.received(tiny, server=upload)
    if dest != NULL:
        (target.files if upload else LocalFiles()).remove(dest)
    transfer = tool.transfer(ssh_for(target, case), Endpoint(source, remote=not upload),
                             Endpoint(dest, remote=upload), files.shape.is_set, files.client_dir)
    run = run_tool(transfer, timeout, {**target.tool_env, **settings.env})
    if run.peer_port is not None:
        run.server = target.server_process(run.peer_port)
    transcript = run.transcript
    what = "the 1-byte run" if tiny else "the transfer"
    if run.timed_out:
        return run, f"{what} timed out after {timeout:.0f}s", Failure.TIMED_OUT
    if transcript.refused:
        return run, f"server refused: {transcript.refused}", Failure.REFUSED
    if mismatch := negotiation_mismatch(case, transcript.negotiated, expected_compression(case)):
        return run, mismatch, None
    if run.exit_status != 0:
        return run, f"{tool.label} exited with status {run.exit_status} in {what}", None
    if run.peer_port is not None and run.server is None:
        return run, "the server process of this connection was not found", None
    return run, None, None


def _tool_path(name: str) -> str:
    return shutil.which(name) or name


def _check_received(target: Target, case: Case, files: TransferFiles, sample: Sample) -> str | None:
    """Size (and with --verify, SHA-256) of what arrived; with a /dev/null sink, ssh's own byte count."""
    shape = files.shape
    upload = case.direction is Direction.UPLOAD
    dest = files.received(tiny=False, server=upload)
    if dest == NULL:
        sample.verified = "exit status"
        sample.bytes_received = shape.total_bytes
        wire = sample.wire_bytes_sent if upload else sample.wire_bytes_received
        if case.compressor.is_off and wire is not None and wire < shape.total_bytes:
            return f"ssh carried only {wire} bytes for a {shape.total_bytes}-byte file"
        return None
    side = target.files if upload else LocalFiles()
    found = side.size(dest)
    if found is None:
        return f"nothing arrived at {dest}"
    size, count = found
    sample.bytes_received = size
    if size != shape.total_bytes or count != shape.files:
        return (f"received {size} bytes in {count} file(s), expected {shape.total_bytes} bytes in "
                f"{shape.files}: the transfer was truncated or incomplete")
    sample.verified = "size"
    if files.verify:
        if side.sha256(dest) != files.source_sha256:
            return "the received data's SHA-256 differs from the source: corrupted in transfer or on disk"
        sample.verified = "size+sha256"
    return None


def _clean_received(target: Target, files: TransferFiles) -> None:
    for tiny in (True, False):
        for server in (True, False):
            path = files.received(tiny, server)
            if path != NULL:
                (target.files if server else LocalFiles()).remove(path)
