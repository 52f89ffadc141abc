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
import socket
import statistics
import threading
import time

from sshbench.datapath import drain, grow_pipe, send_zeros
from sshbench.units import parse_size


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
    """Zeros spliced into a pipe, the pipe spliced into a loopback socket; the receiver drains it."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    result: list[int] = []

    def receive() -> None:
        conn, _ = listener.accept()
        r, w = os.pipe()
        grow_pipe(w)
        total = 0
        while total < size:
            moved = os.splice(conn.fileno(), w, 1 << 20)
            if not moved:
                break
            total += drain(r, moved)[0]
        result.append(total)
        conn.close()

    thread = threading.Thread(target=receive)
    thread.start()
    sock = socket.create_connection(("127.0.0.1", port))
    r, w = os.pipe()
    grow_pipe(w)
    start = time.perf_counter()
    sent = 0
    while sent < size:
        chunk = min(1 << 20, size - sent)
        send_zeros(w, chunk)
        left = chunk
        while left:
            left -= os.splice(r, sock.fileno(), left)
        sent += chunk
    sock.shutdown(socket.SHUT_WR)
    thread.join()
    elapsed = time.perf_counter() - start
    for fd in (r, w):
        os.close(fd)
    sock.close()
    listener.close()
    assert result == [size]
    return size / elapsed


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
