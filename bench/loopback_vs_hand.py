"""sshbench's upload figure against the hand pipeline people run today, side by side in one run.

    head -c 1G /dev/zero | ssh -c CIPHER host 'cat >/dev/null'     (timed as a whole)

Both go to the same embedded server, interleaved in a shuffled order each
round so that machine noise falls on both alike. The hand figure includes
process start-up, key exchange and authentication in its time; sshbench times
the data phase alone and reports the set-up separately. The ratio printed is
sshbench MB/s / hand MB/s (median of each); the last column shows how much of
the hand pipeline's time was set-up, which is the main reason they differ.

Usage: python bench/loopback_vs_hand.py [--size 1G] [--rounds 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import time

from sshbench.measure.pipe import run_sample
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.discovery import discover_client
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.units import parse_size

CIPHERS = ("aes128-gcm@openssh.com", "chacha20-poly1305@openssh.com")


def hand_pipeline(server: EmbeddedOpenSSH, cipher: str, size: int) -> float:
    """Seconds for the whole pipeline, the way a shell loop with `time` measures it."""
    ssh = f"{server.client.path} -F {server.client_config} -c {cipher} {HOST_ALIAS} 'cat >/dev/null'"
    start = time.perf_counter()
    subprocess.run(["sh", "-c", f"head -c {size} /dev/zero | {ssh}"], check=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="1G")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    size = parse_size(args.size)
    rng = random.Random(args.seed)
    sshbench_rate: dict[str, list[float]] = {c: [] for c in CIPHERS}
    sshbench_setup: dict[str, list[float]] = {c: [] for c in CIPHERS}
    hand_rate: dict[str, list[float]] = {c: [] for c in CIPHERS}
    with EmbeddedOpenSSH(discover_client()) as server:
        target = EmbeddedTarget(server)
        for rnd in range(args.rounds + 1):  # round 0 warms both up and is not counted
            jobs = [(method, cipher) for method in ("sshbench", "hand") for cipher in CIPHERS]
            rng.shuffle(jobs)
            for method, cipher in jobs:
                if method == "hand":
                    rate = size / hand_pipeline(server, cipher, size)
                    if rnd:
                        hand_rate[cipher].append(rate)
                    continue
                sample = run_sample(target, Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=cipher), size, rnd, 600)
                if not sample.ok or sample.throughput_bytes_per_second is None:
                    raise SystemExit(f"sshbench sample failed: {sample.error}")
                if rnd:
                    sshbench_rate[cipher].append(sample.throughput_bytes_per_second)
                    sshbench_setup[cipher].append(sample.setup_seconds or 0.0)
    print(f"upload of {size:,} bytes to the embedded server, {args.rounds} rounds interleaved (seed {args.seed})")
    print(f"{'cipher':32} {'sshbench MB/s':>14} {'hand MB/s':>10} {'ratio':>6} {'set-up share of hand':>21}")
    for cipher in CIPHERS:
        ours, hand = statistics.median(sshbench_rate[cipher]), statistics.median(hand_rate[cipher])
        hand_time = size / hand
        share = statistics.median(sshbench_setup[cipher]) / hand_time
        spread = f"(sshbench {min(sshbench_rate[cipher]) / 1e6:,.0f}-{max(sshbench_rate[cipher]) / 1e6:,.0f}, " \
                 f"hand {min(hand_rate[cipher]) / 1e6:,.0f}-{max(hand_rate[cipher]) / 1e6:,.0f})"
        print(f"{cipher:32} {ours / 1e6:14,.0f} {hand / 1e6:10,.0f} {ours / hand:6.2f} {share:20.0%}  {spread}")


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        main()
