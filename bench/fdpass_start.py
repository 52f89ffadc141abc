"""How long the ProxyCommand helper (targets/fdpass.py) takes, from its start to handing ssh its socket: a cost
inside every short command's figure on the embedded server and over emulated links (the "start" phase of
`Where the time goes`), where a user's `ssh HOST true` has none.

Side by side in one run, interleaved: a bare interpreter start (`python -S -c pass`, the floor no Python helper
can go under), the helper as it is, and optionally another copy of it (`--other PATH`, e.g. an older version
from `git show REV:src/sshbench/targets/fdpass.py > /tmp/old.py`). Each helper connects to a local listener,
announces its port in an expect dir and passes the socket over a socketpair, as ssh's ProxyUseFdpass asks.
Prints medians and each one's ratio to the bare start. Usage: .venv/bin/python bench/fdpass_start.py [--runs N]
[--other PATH]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HELPER = Path(__file__).resolve().parents[1] / "src" / "sshbench" / "targets" / "fdpass.py"


def _accept_forever(listener: socket.socket) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        conn.close()


def one(argv: list[str]) -> float:
    """Seconds from the start of `argv` until it has passed a socket over its stdout (or exited)."""
    ours, theirs = socket.socketpair()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=theirs.fileno(), stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    theirs.close()
    _, passed, _, _ = ours.recvmsg(1, socket.CMSG_SPACE(4))  # the fd (or EOF when the command passes none)
    took = time.perf_counter() - start
    proc.wait(timeout=30)
    ours.close()
    for level, kind, data in passed:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            os.close(int.from_bytes(data[:4], sys.byteorder))
    if argv[-1] != "pass" and not passed:  # a helper that failed would be timed as a fast one
        raise SystemExit(f"{argv[2]} passed no socket (exit {proc.returncode})")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--other", help="another copy of the helper to time beside it")
    args = parser.parse_args()
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    threading.Thread(target=_accept_forever, args=(listener,), daemon=True).start()
    with tempfile.TemporaryDirectory() as expect:
        ways = {"python -S -c pass": [sys.executable, "-S", "-c", "pass"],
                "fdpass (this tree)": [sys.executable, "-S", str(HELPER), "127.0.0.1", str(port), expect]}
        if args.other:
            ways[f"fdpass ({args.other})"] = [sys.executable, "-S", args.other, "127.0.0.1", str(port), expect]
        times: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.runs):
            for name, argv in ways.items():
                times[name].append(one(argv))
                for entry in os.listdir(expect):
                    os.unlink(os.path.join(expect, entry))
    with open("/proc/loadavg", encoding="ascii") as fh:
        load = fh.read().split()[0]
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "unknown CPU")
    print(f"{cpu}, {os.cpu_count()} CPUs, load (1 min) {load}; {args.runs} runs each, interleaved")
    floor = statistics.median(times["python -S -c pass"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:40s} median {median * 1000:6.1f} ms  (x{median / floor:.2f} the bare start)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
