"""Reference measurements taken in the same run as the SSH cases: the ceilings SSH cannot beat.

- raw TCP over loopback, no SSH (the classic netcat control), through the very
  same splice source and sink as the SSH samples: the transport ceiling, and
  proof that the data path is not what limits SSH;
- each cipher's primitive alone, `openssl speed -evp` on one core through the
  same libcrypto ssh and sshd load: the crypto ceiling.

A cipher's SSH throughput as a share of each ceiling ("SSH efficiency") shows
how much of the cost is cryptography and how much is SSH itself.
"""

from __future__ import annotations

import os
import platform
import re
import resource
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime

from sshbench.measure.datapath import CHUNK, Payload, drain, grow_pipe
from sshbench.options import AESNI_MASK
from sshbench.plan.budget import steady_mark
from sshbench.plumbing import placement, procs
from sshbench.plumbing.tcpinfo import TcpInfo, read_socket
from sshbench.results.environment import MaskCheck
from sshbench.results.model import Case, CaseKind, Direction, Sample
from sshbench.results.tcpfacts import TcpFacts
from sshbench.targets.base import TcpEnds
from sshbench.vocabulary.algorithms import EVP_OF
from sshbench.vocabulary.errors import VerificationError

SPEED_BLOCK = 16384  # bytes per EVP call: close to SSH's 32 KiB packets, and openssl speed's largest default
_RATE_RE = re.compile(r"^\+F:\d+:([^:]+):([\d.]+)", re.MULTILINE)
_COUNT_RE = re.compile(r"^\+R:(\d+):([^:]+):([\d.]+)", re.MULTILINE)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def parse_speed(text: str) -> tuple[int, float, float] | None:
    """(operations, seconds, bytes per second) from `openssl speed -mr` output for one block size."""
    rate, count = _RATE_RE.search(text), _COUNT_RE.search(text)
    if rate is None or count is None:
        return None
    return int(count.group(1)), float(count.group(3)), float(rate.group(2))


def run_crypto_ceiling(case: Case, round_no: int, openssl: str | None, env: Mapping[str, str]) -> Sample:
    """One `openssl speed -evp` run of the case's cipher for one second."""
    sample = Sample(case_id=case.id, round=round_no, warmup=round_no == 0, ok=False, started_at=_now(),
                    size_bytes=0)
    cipher = case.cipher or ""
    evp = EVP_OF.get(cipher)
    if openssl is None or evp is None:
        sample.error = "openssl not installed" if openssl is None else f"no OpenSSL primitive for {cipher}"
        return sample
    argv = [openssl, "speed", "-evp", evp, "-bytes", str(SPEED_BLOCK), "-seconds", "1", "-mr"]
    start = time.perf_counter()
    try:
        done = procs.run_text(argv, timeout=60, env={**os.environ, **env})
    except subprocess.TimeoutExpired:
        sample.error = "openssl speed did not finish within 60 s"
        return sample
    out, err = done.stdout, done.stderr
    sample.total_seconds = time.perf_counter() - start
    sample.exit_status = done.returncode
    parsed = parse_speed(out + err)  # openssl prints the +R count line on stderr, the +F rate on stdout
    if done.returncode != 0 or parsed is None:
        sample.error = f"openssl speed failed: {(err.strip().splitlines() or ['no output'])[-1]}"
        sample.stderr_tail = err.strip().splitlines()[-5:]
        return sample
    operations, seconds, _rate = parsed
    sample.size_bytes = sample.bytes_received = operations * SPEED_BLOCK
    sample.data_seconds = seconds
    sample.ok = True
    return sample


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Loopback:
    """Both ends on 127.0.0.1."""

    def listener(self) -> socket.socket:
        return socket.create_server(("127.0.0.1", 0))

    def sender(self) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        return sock


def run_tcp_control(case: Case, size_bytes: int, round_no: int, timeout: float,
                    payload: Payload | None = None, ends: TcpEnds | None = None) -> Sample:
    """Zeros through a pipe into a TCP socket (loopback, or across the case's link); the receiver splices
    them out and counts."""
    sample = Sample(case_id=case.id, round=round_no, warmup=round_no == 0, ok=False, started_at=_now(),
                    size_bytes=size_bytes)
    ends = ends or Loopback()
    listener = ends.listener()
    sender = ends.sender()  # bound: our port is known before connecting, any other connection is turned away
    own_port = sender.getsockname()[1]  # read here: an interrupt may close the sender while the receiver waits
    received: dict[str, float] = {}
    server_side = placement.server_cpus()  # the receiver is the server's end: its CPUs, as an sshd's would be

    def receive() -> None:
        placement.pin_this_thread(server_side)
        while True:
            try:
                conn, (_, port) = listener.accept()
            except OSError:  # closed: the sender failed or the run was interrupted
                return
            if port == own_port:
                break
            conn.close()
        with conn:
            read_end, write_end = os.pipe()
            grow_pipe(write_end)
            total = 0
            mark = steady_mark(size_bytes) or size_bytes + 1  # the steady state starts here, as a pipe's does
            try:
                while total < size_bytes:
                    moved = os.splice(conn.fileno(), write_end, CHUNK)
                    if not moved:
                        break
                    total += drain(read_end, moved)[0]
                    if total >= mark and "t_mark" not in received:
                        received["t_mark"], received["mark_bytes"] = time.perf_counter(), total
                received["t_last"] = time.perf_counter()
                received["bytes"] = total
            except OSError:  # the connection reset or closed under it (the sender failed, or an interrupt): the
                return  # main thread reports the missing bytes; a traceback from this thread would say nothing more
            finally:
                os.close(read_end)
                os.close(write_end)

    source = payload or Payload()
    receiver = threading.Thread(target=receive, daemon=True)
    receiver.start()
    cpu_before = _own_cpu()
    start = time.perf_counter()
    read_end, write_end = os.pipe()
    try:
        with sender as sock:
            sock.settimeout(timeout)
            sock.connect(listener.getsockname())
            sock.settimeout(None)  # splice needs a blocking socket
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            grow_pipe(write_end)
            sample.setup_seconds = time.perf_counter() - start
            t0 = time.perf_counter()
            sent = 0
            mark = steady_mark(size_bytes) or size_bytes + 1
            opened: TcpInfo | None = None
            while sent < size_bytes:
                chunk = min(CHUNK, size_bytes - sent)
                source.send(write_end, chunk)
                left = chunk
                while left:
                    left -= os.splice(read_end, sock.fileno(), left)
                sent += chunk
                if opened is None and sent >= mark:
                    opened = read_socket(sock)  # the sender's counters over its steady part, as a pipe's
            closed = read_socket(sock) if opened is not None else None
            sock.shutdown(socket.SHUT_WR)
            receiver.join(timeout)
    except OSError as exc:
        sample.error = f"raw TCP control failed: {exc.strerror or exc}"
        return sample
    finally:
        os.close(read_end)
        os.close(write_end)
        sender.close()
        listener.close()
    sample.total_seconds = time.perf_counter() - start
    cpu = _own_cpu() - cpu_before  # sender and receiver both run in this process
    sample.client_cpu_user_seconds, sample.client_cpu_sys_seconds = cpu, 0.0
    sample.client_cpu_setup_seconds = 0.0
    if "t_last" not in received:
        sample.error = f"raw TCP control did not finish within {timeout:.0f}s"
        return sample
    sample.bytes_received = int(received["bytes"])
    sample.data_seconds = received["t_last"] - t0
    if sample.bytes_received != size_bytes:
        sample.error = f"receiver counted {sample.bytes_received} bytes, expected {size_bytes}"
        return sample
    if "t_mark" in received and received["t_last"] > received["t_mark"]:
        sample.steady_bytes = size_bytes - int(received["mark_bytes"])
        sample.steady_seconds = received["t_last"] - received["t_mark"]
    sample.tcp = TcpFacts.between([opened], [closed])
    sample.exit_status = 0
    sample.ok = True
    return sample


def verify_aesni_mask(openssl: str | None = None) -> MaskCheck:
    """Prove the OpenSSL capability mask works before trusting a --no-aesni run: AES-GCM must slow down."""
    openssl = openssl or shutil.which("openssl")
    if platform.machine().lower() not in ("x86_64", "amd64", "i686", "i386"):
        raise VerificationError(f"--no-aesni masks x86 AES instructions, and this machine is {platform.machine()}")
    if openssl is None:
        raise VerificationError("--no-aesni needs openssl to verify the mask took effect: "
                                "install the Debian package openssl")
    case = Case(CaseKind.CEILING, Direction.LOCAL, cipher="aes128-gcm@openssh.com")
    plain = run_crypto_ceiling(case, 1, openssl, {})
    masked = run_crypto_ceiling(case, 1, openssl, {"OPENSSL_ia32cap": AESNI_MASK})
    fast, slow = plain.throughput_bytes_per_second, masked.throughput_bytes_per_second
    if fast is None or slow is None:
        raise VerificationError(f"--no-aesni: could not measure AES-GCM with openssl ({plain.error or masked.error})")
    if slow > fast / 2:
        raise VerificationError(
            f"--no-aesni: the OpenSSL capability mask did not take effect (aes-128-gcm {fast / 1e6:,.0f} MB/s "
            f"unmasked, {slow / 1e6:,.0f} MB/s masked); refusing to report results as AES-NI-free")
    return MaskCheck(fast, slow)
