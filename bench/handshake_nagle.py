"""Why sshbench hands ssh a TCP_NODELAY socket: handshake times with and without, side by side.

Alternates connections to the same embedded server: plain `ssh` (which
leaves Nagle on during the handshake) and ssh through sshbench's fdpass
helper (same server, socket with TCP_NODELAY). Prints the key exchange
phase (KEXINIT sent -> NEWKEYS received) of each: plain ssh is bimodal,
a 40 ms Nagle / delayed-ACK stall landing on a random share of handshakes.

Usage: python bench/handshake_nagle.py [--connections 30] [--kex curve25519-sha256]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from sshbench.plumbing.negotiation import parse_verbose
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.discovery import discover_client
from sshbench.targets.servers.openssh import EmbeddedOpenSSH


def kex_ms(argv: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    lines = [(time.perf_counter() - start, raw.decode(errors="replace")) for raw in proc.stderr]
    proc.wait()
    phases = parse_verbose(lines).phases
    return (phases["newkeys_received"] - phases["kexinit_sent"]) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connections", type=int, default=30)
    parser.add_argument("--kex", default="curve25519-sha256")
    args = parser.parse_args()
    plain: list[float] = []
    nodelay: list[float] = []
    # admit_all: the plain ssh below connects directly, without announcing its port through fdpass
    with EmbeddedOpenSSH(discover_client(), admit_all=True) as server:
        base = [server.client.path, "-v", "-F", server.client_config, "-o", f"KexAlgorithms={args.kex}"]
        for _ in range(args.connections):
            nodelay.append(kex_ms([*base, HOST_ALIAS, "true"]))
            plain.append(kex_ms([*base, "-o", "ProxyCommand=none", "-o", "ProxyUseFdpass=no", HOST_ALIAS, "true"]))
    print(f"{args.kex}: key exchange phase over {args.connections} connections each, interleaved")
    for label, values in (("plain ssh (Nagle on)", plain), ("sshbench (TCP_NODELAY)", nodelay)):
        stalled = sum(v > 30 for v in values)
        print(f"{label:24} median {statistics.median(values):5.1f} ms  min {min(values):5.1f}  "
              f"max {max(values):5.1f}  stalled (>30 ms) {stalled}/{len(values)}")


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        main()
