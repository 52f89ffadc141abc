"""How fast sshbench's source and sink move bytes without ssh: they must be far above any cipher.

Measures, in one run, alternating: (1) splice from /dev/zero into a 1 MiB
pipe and splice out to /dev/null (what a download sample's sink and an
upload's source do), and (2) the same source and sink across a raw loopback
TCP connection (the classic netcat control). Prints GB/s of each.

Usage: python bench/datapath.py [--size 2G] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time

from sshbench.measure.controls import run_tcp_control
from sshbench.measure.datapath import drain, grow_pipe, send_zeros
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.vocabulary.units import parse_size


def pipe_rate(size: int) -> float:
    read_fd, write_fd = os.pipe()
    grow_pipe(write_fd)

    def write() -> None:
        send_zeros(write_fd, size)
        os.close(write_fd)

    writer = threading.Thread(target=write)
    start = time.perf_counter()
    writer.start()
    count, _ = drain(read_fd, size)
    elapsed = time.perf_counter() - start
    writer.join()
    os.close(read_fd)
    assert count == size
    return size / elapsed


def tcp_rate(size: int) -> float:
    """The raw TCP control sshbench runs beside every sweep: zeros through a pipe into a loopback socket."""
    sample = run_tcp_control(Case(CaseKind.CONTROL, Direction.UPLOAD), size, 1, 120)
    if sample.throughput_bytes_per_second is None:
        raise SystemExit(f"raw TCP control failed: {sample.error}")
    return sample.throughput_bytes_per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="2G")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    size = parse_size(args.size)
    pipes, tcps = [], []
    for _ in range(args.rounds):
        pipes.append(pipe_rate(size))
        tcps.append(tcp_rate(size))
    print(f"{size:,} bytes x {args.rounds} rounds, alternating")
    print(f"pipe  source -> sink:          median {statistics.median(pipes) / 1e9:.2f} GB/s "
          f"(min {min(pipes) / 1e9:.2f}, max {max(pipes) / 1e9:.2f})")
    print(f"raw TCP over loopback (no ssh): median {statistics.median(tcps) / 1e9:.2f} GB/s "
          f"(min {min(tcps) / 1e9:.2f}, max {max(tcps) / 1e9:.2f})")


if __name__ == "__main__":
    main()
