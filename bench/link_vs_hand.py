"""One emulated-link point three ways, side by side in one run: sshbench, the hand pipeline, the arithmetic.

    the hand way:  ip netns add A; ip netns add B; ip link add ... type veth peer ...;
                   tc qdisc add dev vethA root netem delay RTT/2   (both ends)
                   then the seed studies' pipeline, timed as a whole:
                   head -c SIZE /dev/zero | ssh -c CIPHER host 'cat >/dev/null'
    the arithmetic: one SSH channel carries at most window / RTT (OpenSSH: 2 MiB, channels.h)

The hand pipeline runs over the very link sshbench measures (its namespaces,
the same server), interleaved round by round, so the two differ only in
how they time: the hand figure includes start-up, key exchange and login,
which over a long round trip cost several round trips. The netem step is
tried first and reported: where the kernel lacks netem (this project's CI
machines do) the link is sshbench's TUN wire for both, which is why
sshbench carries its own emulator.

Needs root. Usage: python bench/link_vs_hand.py [--rtt 80ms] [--size 256MiB] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import subprocess
import time

from sshbench.implementations import OPENSSH
from sshbench.measure.pipe import run_sample
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.discovery import discover_client
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.link import netns
from sshbench.targets.link.emulated import EmulatedLinks, LinkPath
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.linkspec import parse_label
from sshbench.vocabulary.units import parse_size

CIPHER = "aes128-gcm@openssh.com"


def netem_here() -> str:
    """Whether `tc qdisc add ... netem` works on this kernel (tried in a throwaway namespace of our own)."""
    name = "sshbench-netem-probe"
    try:
        subprocess.run(["ip", "netns", "add", name], check=True, capture_output=True)
        subprocess.run(["ip", "-n", name, "link", "add", "probe0", "type", "veth", "peer", "name", "probe1",
                        "netns", name], check=True, capture_output=True)
        done = subprocess.run(["tc", "-n", name, "qdisc", "add", "dev", "probe0", "root", "netem", "delay", "10ms"],
                              capture_output=True, text=True)
        return "available" if done.returncode == 0 else f"not available here ({done.stderr.strip()})"
    finally:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)


def hand_pipeline(server: EmbeddedOpenSSH, path: LinkPath, port: int, size: int, cipher: str = CIPHER) -> float:
    """Seconds for the whole pipeline across the link, the way a shell loop with `time` measures it."""
    proxy = path.proxy_command(port, server.expect_dir)
    ssh = (f"{server.client.path} -F {server.client_config} -o 'ProxyCommand={proxy}' -c {cipher} {HOST_ALIAS} "
           "'cat >/dev/null'")
    start = time.perf_counter()
    subprocess.run(["sh", "-c", f"head -c {size} /dev/zero | {ssh}"], check=True, stdin=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rtt", default="80ms")
    parser.add_argument("--size", default="256MiB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    netns.check_can_emulate()
    size, spec = parse_size(args.size), parse_label(f"rtt={args.rtt}")
    rng = random.Random(args.seed)
    ours: list[float] = []
    setup: list[float] = []
    hand: list[float] = []
    print(f"tc netem: {netem_here()}")
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(EmbeddedOpenSSH(discover_client()))
        links = stack.enter_context(EmulatedLinks([spec]))
        port = links.serve(server)
        path = links.paths[spec.label]
        target = EmbeddedTarget(server, links.paths, port)
        case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=CIPHER, link=spec.label)
        for rnd in range(args.rounds + 1):  # round 0 warms both up and is not counted
            jobs = ["sshbench", "hand"]
            rng.shuffle(jobs)
            for job in jobs:
                if job == "hand":
                    rate = size / hand_pipeline(server, path, port, size)
                    if rnd:
                        hand.append(rate)
                    continue
                sample = run_sample(target, case, size, rnd, 600)
                if not sample.ok or sample.throughput_bytes_per_second is None:
                    raise SystemExit(f"sshbench sample failed: {sample.error}")
                if rnd:
                    ours.append(sample.throughput_bytes_per_second)
                    setup.append(sample.setup_seconds or 0.0)
        rtt = statistics.median(path.connect_seconds)
    window = OPENSSH.receive_window
    assert window is not None
    limit = window / rtt
    mine, theirs = statistics.median(ours), statistics.median(hand)
    print(f"link {spec.label} as measured: RTT {rtt * 1000:.2f} ms (median of {len(path.connect_seconds)} TCP "
          f"connects); {CIPHER}, upload of {size:,} bytes, {args.rounds} rounds interleaved (seed {args.seed})")
    print(f"  window / RTT (arithmetic)  {limit / 1e6:8.1f} MB/s  = {window // 1024} KiB / {rtt * 1000:.2f} ms")
    print(f"  sshbench data phase        {mine / 1e6:8.1f} MB/s  = {mine / limit:.0%} of window/RTT "
          f"(range {min(ours) / 1e6:.1f}-{max(ours) / 1e6:.1f}); set-up {statistics.median(setup):.2f} s apart")
    print(f"  hand pipeline (as a whole) {theirs / 1e6:8.1f} MB/s  = {theirs / limit:.0%} of window/RTT "
          f"(range {min(hand) / 1e6:.1f}-{max(hand) / 1e6:.1f}); sshbench / hand = {mine / theirs:.2f}")


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        main()
