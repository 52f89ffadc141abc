"""How steady is CPU cost (CPU s/GiB) compared with throughput when another process competes for the CPUs?

Alternates aes128-gcm uploads on an idle machine and with a busy-loop
process running (on a 2-core machine: the "other core" is taken), in one
run, and prints for each condition the median and the spread (coefficient of
variation) of throughput and of each side's CPU seconds per GiB, and how far
each median moved under load.

Usage: python bench/cost_stability.py [--samples 12] [--size 512MiB] [--cipher aes128-gcm@openssh.com]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from collections.abc import Callable

from sshbench.analysis.stats.stats import per_gib
from sshbench.measure.pipe import run_sample
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.model import Case, CaseKind, Direction, Sample
from sshbench.targets.discovery import discover_client
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.units import parse_size

HOG = "while True: pass"


def measure(target: EmbeddedTarget, case: Case, size: int, loaded: bool) -> Sample:
    hog = subprocess.Popen([sys.executable, "-c", HOG]) if loaded else None
    try:
        sample = run_sample(target, case, size, 1, 300)
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    if not sample.ok:
        raise SystemExit(f"sample failed: {sample.error}")
    return sample


def describe(values: list[float]) -> tuple[float, float]:
    return statistics.median(values), statistics.stdev(values) / statistics.fmean(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=12, help="samples per condition")
    parser.add_argument("--size", default="512MiB")
    parser.add_argument("--cipher", default="aes128-gcm@openssh.com")
    args = parser.parse_args()
    size = parse_size(args.size)
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=args.cipher)
    results: dict[bool, list[Sample]] = {False: [], True: []}
    with EmbeddedOpenSSH(discover_client()) as server:
        target = EmbeddedTarget(server)
        measure(target, case, size, False)  # warm-up
        for i in range(2 * args.samples):
            loaded = i % 2 == 1
            results[loaded].append(measure(target, case, size, loaded))
    metrics: dict[str, Callable[[Sample], float | None]] = {
        "throughput MB/s": lambda s: (s.throughput_bytes_per_second or 0) / 1e6,
        "client CPU s/GiB": lambda s: per_gib(s.client_cpu_data_seconds, s),
        "server CPU s/GiB": lambda s: per_gib(s.server_cpu_data_seconds, s),
    }
    print(f"{args.cipher} upload, {size:,} bytes, {args.samples} samples per condition, interleaved; "
          f"load = one busy-loop process")
    print(f"{'metric':18} {'idle median':>12} {'idle CV':>8} {'loaded median':>14} {'loaded CV':>10} {'shift':>7}")
    for name, metric in metrics.items():
        idle = describe([v for v in map(metric, results[False]) if v is not None])
        busy = describe([v for v in map(metric, results[True]) if v is not None])
        shift = busy[0] / idle[0] - 1
        print(f"{name:18} {idle[0]:12.3f} {idle[1]:8.1%} {busy[0]:14.3f} {busy[1]:10.1%} {shift:+7.1%}")


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        main()
