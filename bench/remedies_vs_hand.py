"""The link answer's figures two ways, round by round: a real sshbench run and hand pipelines from one shell.

Each round runs `sshbench` itself (the command line, its own sizing, steady windows and checks, `--placement
split`) and reads each stream count's and compressor's figure from its results file (the median of its counted
samples: what the report shows), then times the same transfers by hand through the same kind of link to an
embedded sshd of the bench's own, every stream started from ONE shell, as a user's `xargs -P` runs them:

    sh -c '(ssh HOST "cat >/dev/null" < PART) & ... N times; wait'          (streams: PART holds S/N bytes)
    sh -c 'zstd -3 --single-thread -c < FILE | ssh HOST "zstd -d -c | cat >/dev/null"'
    sh -c 'ssh -C HOST "cat >/dev/null" < FILE'                              (SSH's zlib)

The hand side is timed as a shell times it (bench/hand.py), at two sizes (S and S/4), `--hand-repeats` runs of each (3;
alternating), and the rate is the difference of bytes over the difference of their median times: logins,
process start and TCP's ramp cancel, the tail (a stream that finishes late) stays, as it does for a user.
S is the size sshbench measured that variant at in the same round (the median of its counted samples), whose
window also starts at a quarter of each stream's bytes: where the streams go unevenly a split's rate depends
on its size (a slow part lags further in a larger one: by hand over rtt=150ms, 16 parts of 12->48 MiB ran at 96
MB/s, of 48->96 MiB at 87), so both time the same split. But never a size whose transfer (logins included) lasts
under `--seconds` (4), found by doubling a probe and reading between the last two: a difference of two sizes
needs transfers long beside the logins' jitter (4 loopback streams of 128 MiB, 0.15 s, gave the hand 529-822
MB/s), and where sshbench's own size is that short its streams end together anyway. The
hand's client processes are pinned to the client half of the CPUs and its server forks onto the other half, as
sshbench's split placement does. `--hog` runs one busy process per
CPU, each in its own session, beside both sides: the load under which a transfer's scheduling group matters.
`--hand receiver` times each hand run where its bytes arrive instead, inside one transfer at S (the server's
shell stamps the clock after each stream's first quarter and its last byte): over a lossy link, whose runs
vary on their own, a difference of two transfers carries both their variances.

Prints, per stream count and compressor, both medians over the rounds with their ranges, sshbench / hand
(agreement: within 5%) with the rounds' Hodges-Lehmann shift and its 95% interval (5 rounds give one) and each
round's ratio, each one's ratio to the first variant, and for every sshbench round how it ended:
its stop reason, the seconds of its budget it used, and the headline's pick against its rivals.

Needs root for a link. Usage:
    python bench/remedies_vs_hand.py --link rtt=40ms,loss=1% --streams 1,4,8 --hand receiver
    python bench/remedies_vs_hand.py --link rtt=150ms --streams 1,4,16
    python bench/remedies_vs_hand.py --streams 1,2,4                               (loopback)
    python bench/remedies_vs_hand.py --streams 1,4 --compression off,ssh --data text --hog   (CPU-bound)
    python bench/remedies_vs_hand.py --server dropbear:window=4MiB --cipher aes128-ctr         (a window variant)
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from clirun import finished
from hand import Hand, Variant
from sshbench.analysis.answers.contest import rivals
from sshbench.analysis.answers.remedies import path_answers
from sshbench.analysis.stats.robust import shift_interval
from sshbench.analysis.stats.stats import counted
from sshbench.compressors import choice, parse_compression
from sshbench.measure.sysinfo import load_average
from sshbench.plumbing import placement
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.model import Case, CaseKind, Direction, Report
from sshbench.results.store import read_results
from sshbench.targets.link import netns
from sshbench.targets.servers import server_entry
from sshbench.vocabulary.linkspec import parse_label
from sshbench.vocabulary.units import MiB


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


@contextlib.contextmanager
def hogs(on: bool) -> Iterator[None]:
    """One busy process per CPU, each a session (and so a scheduling group) of its own, while the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
             for _ in range(os.cpu_count() or 1)] if on else []
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def case_id(cipher: str, link: str, variant: Variant) -> str:
    return Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=cipher, link=link, streams=variant[0],
                compression=variant[1]).id


def ours(report: Report, cipher: str, link: str, variants: list[Variant]) -> dict[Variant, float]:
    """Each variant's figure in one sshbench run: the median of its counted samples, as the report shows it."""
    out = {}
    for summary in report.summaries:
        for variant in variants:
            if summary.case_id == case_id(cipher, link, variant) and summary.throughput_bytes_per_second:
                out[variant] = summary.throughput_bytes_per_second.median
    return out


def spreads(report: Report, cipher: str, link: str, variants: list[Variant]) -> dict[Variant, tuple[float, float]]:
    """Each multi-stream variant's median steady window (to its last part's end) and median tail (seconds) over
    its counted samples: how far apart its parts ended."""
    out = {}
    for variant in variants:
        kept = counted(report.samples_of(case_id(cipher, link, variant)))
        windows = [s.steady_seconds for s in kept if s.steady_seconds and s.tail_seconds is not None]
        tails = [s.tail_seconds for s in kept if s.steady_seconds and s.tail_seconds is not None]
        if windows:
            out[variant] = (statistics.median(windows), statistics.median(t for t in tails if t is not None))
    return out


def measured_sizes(report: Report, cipher: str, link: str, variants: list[Variant]) -> dict[Variant, int]:
    """Each variant's size as sshbench measured it: the median size of its counted samples (whole MiB per
    stream), where it has any."""
    out = {}
    for variant in variants:
        kept = counted(report.samples_of(case_id(cipher, link, variant)))
        if kept:
            per_stream = int(statistics.median(s.size_bytes for s in kept)) // variant[0] // MiB
            out[variant] = max(4, per_stream) * MiB * variant[0]
    return out


def how_it_ended(report: Report, budget: float) -> str:
    """The run's stop reason, its budget use, and the headline's pick against its rivals."""
    used = report.time_use.wall_seconds if report.time_use else float("nan")
    said = [f"{report.stop_reason or 'its schedule finished'}, {used:.0f} s of {budget:.0f}"]
    answers = path_answers(report)
    against = rivals(report, answers)
    for answer in answers:
        best = answer.best
        if best is None:
            said.append("no change faster than the plain transfer")
            continue
        verdicts = ", ".join(f"{r.change} {r.relation.value} {r.ratio:.2f}x" for r in against.get(best.case.id, ()))
        said.append(f"pick {best.change} ({best.ratio:.2f}x plain){'; ' + verdicts if verdicts else ''}")
    return "; ".join(said)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def agreement(mine: list[float], hand: list[float], level: float = 0.95) -> str:
    """sshbench / hand as the Hodges-Lehmann shift of the rounds' log rates, with its distribution-free interval
    at `level`: where the hand itself spreads 10-25% between rounds (a lossy link), whether a ratio of medians
    that misses 5% is a difference or the hand's noise."""
    found = shift_interval([math.log(x) for x in mine], [math.log(x) for x in hand], level) \
        if mine and hand else None
    if found is None:
        return ""
    shift, low, high = found
    span = f" [{math.exp(low):.2f}, {math.exp(high):.2f}]" if low is not None and high is not None else ""
    return f" (rounds' shift {math.exp(shift):.3f}{span}, {level:.0%})"


def _fmt(values: list[float]) -> str:
    return (f"{statistics.median(values) / 1e6:8.2f} MB/s ({min(values) / 1e6:.2f}-{max(values) / 1e6:.2f})"
            if values else "       - (none)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--link", default="", help="an emulated link (root); loopback without")
    parser.add_argument("--streams", default="1", help="stream counts, e.g. 1,4,16")
    parser.add_argument("--compression", default="off", help="compressors, e.g. off,ssh,zstd")
    parser.add_argument("--data", default="zero", choices=("zero", "random", "text", "mixed"))
    parser.add_argument("--cipher", default="aes128-gcm@openssh.com")
    parser.add_argument("--server", default="openssh",
                        help="the embedded server of both sides, a window variant too (dropbear:window=4MiB)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget", type=float, default=180.0, help="seconds of each sshbench run")
    parser.add_argument("--seconds", type=float, default=4.0,
                        help="the shortest hand transfer (S): sshbench's size where that lasts longer")
    parser.add_argument("--hand-repeats", type=int, default=3,
                        help="hand runs at each of the two sizes per variant and round (their medians are used)")
    parser.add_argument("--hand", choices=("sizes", "receiver"), default="sizes",
                        help="time the hand at two sizes (wall clock) or inside one transfer where its bytes arrive "
                             "(bench/hand.py: for lossy links, whose runs vary on their own)")
    parser.add_argument("--hog", action="store_true", help="a busy process per CPU beside both sides")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="a directory to keep each round's sshbench results file in")
    args = parser.parse_args()
    if args.link:
        netns.check_can_emulate()
    link = parse_label(args.link).label if args.link else ""
    variants: list[Variant] = [(int(n), c) for c in parse_compression(args.compression)
                               for n in args.streams.split(",")]
    rng = random.Random(args.seed)
    mine: dict[Variant, list[float]] = {v: [] for v in variants}
    hand: dict[Variant, list[float]] = {v: [] for v in variants}
    spread: dict[Variant, list[tuple[float, float]]] = {v: [] for v in variants}
    used: dict[Variant, list[int]] = {v: [] for v in variants}  # the hand's S per round
    ended: list[str] = []
    load = [load_average()]
    command = ["--ciphers", args.cipher, "--directions", "upload", "--macs", "none", "--kex", "none",
               "--hostkeys", "none", "--placement", "split", "--streams", args.streams, "--compression",
               args.compression, "--data", args.data, "--time-budget", f"{args.budget:.0f}s", "--server", args.server]
    if link:
        command += ["--link", link, "--echo", "0"]
    everything = placement.allowed()  # before Hand pins this process to the client half for its hand pipelines
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-remedies-") as tmp, \
            hogs(args.hog):
        bench = Hand(stack, link, args.cipher, args.data, tmp, server=server_entry(args.server))
        floor = {v: bench.size_for(v, args.seconds) for v in variants}
        sizes = dict(floor)
        for rnd in range(args.rounds):
            # one directory may keep several runs' rounds (one per link), and sshbench never overwrites a file
            slug = "".join(c if c.isalnum() else "-" for c in args.link or "loopback")
            out = Path(args.keep or tmp) / f"round-{rnd}-{slug}.json"
            done = run_sshbench(command, out, everything)
            if not out.exists() or done.returncode not in (0, 1):
                said = (done.stderr.strip().splitlines() or ["no message"])[-1]
                ended.append(f"exit {done.returncode}, no figures: {said[:300]}")
            else:
                report = read_results(str(out))[0]
                if report.environment.host.placement == "free":
                    ended.append("placement free, not split: the two ends shared CPUs (its warnings say why)")
                for variant, rate in ours(report, args.cipher, link, variants).items():
                    mine[variant].append(rate)
                for variant, pair in spreads(report, args.cipher, link, variants).items():
                    spread[variant].append(pair)
                ended.append(how_it_ended(report, args.budget))
                sizes.update({v: max(size, floor[v]) for v, size in
                              measured_sizes(report, args.cipher, link, variants).items()})
            order = list(variants)
            rng.shuffle(order)
            for variant in order:
                timing = bench.receiver_rate if args.hand == "receiver" else bench.rate
                hand[variant].append(timing(variant, sizes[variant], args.hand_repeats))
                used[variant].append(sizes[variant])
            load.append(load_average())
    _print(args, link, variants, used, mine, hand, ended, load)
    for variant in variants:
        if spread[variant]:
            print(f"  {variant[0]} streams, {choice(variant[1]).label}: sshbench's windows (to the last part's end) "
                  + ", ".join(f"{w:.2f} s with a tail of {t:.2f} s" for w, t in spread[variant])
                  + " (each round's medians)")


def run_sshbench(command: list[str], out: Path, cpus: frozenset[int] | None) -> subprocess.CompletedProcess[str]:
    """The real command line writing `out`, given every CPU this bench had (`cpus`), to split as it does for a
    user: started from the pinned bench it inherited one CPU, could not split, and put both ends on it
    (placement "free" in its results)."""
    return finished([sys.executable, "-m", "sshbench", *command, "--output", str(out)], stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE, preexec_fn=lambda: placement.pin_this_thread(cpus))


def machine_line(load: list[list[float] | None], hog: bool) -> str:
    """The CPU model, its count and the load beside the figures (and the busy processes, if any)."""
    loads = ", ".join(f"{a[0]:.2f}" for a in load if a)
    return f"{_cpu_model()}, {os.cpu_count()} CPUs; load (1 min) {loads}{'; a busy process per CPU beside it' * hog}"


def _print(args: argparse.Namespace, link: str, variants: list[Variant], sizes: dict[Variant, list[int]],
           mine: dict[Variant, list[float]], hand: dict[Variant, list[float]], ended: list[str],
           load: list[list[float] | None]) -> None:
    print(machine_line(load, args.hog))
    timing = (f"receiver-timed inside one run at S (sshbench's size that round), {args.hand_repeats} runs (median)"
              if args.hand == "receiver" else
              f"at S (sshbench's size that round) and S/4, {args.hand_repeats} runs of each (medians)")
    print(f"{link or 'loopback'}: {args.cipher}, upload of {args.data} data, {args.rounds} rounds; sshbench "
          f"--time-budget {args.budget:.0f}s each, hand from one shell {timing}")
    base = variants[0]
    for variant in variants:
        label = f"{variant[0]} stream{'s' if variant[0] > 1 else ''}, {choice(variant[1]).label}"
        a, b = median(mine[variant]), median(hand[variant])
        gain = "" if variant == base else \
            f"; x first: sshbench {a / median(mine[base]):.2f}, hand {b / median(hand[base]):.2f}"
        said = "/".join(str(size // MiB) for size in sizes[variant])
        print(f"  {label:28s} sshbench {_fmt(mine[variant])}  hand {_fmt(hand[variant])} [{said} MiB]"
              f"  sshbench / hand = {a / b:.3f}{agreement(mine[variant], hand[variant])}{gain}")
        if len(mine[variant]) == len(hand[variant]):  # a round without sshbench figures would shift the pairs
            rounds = " ".join(f"{x / y:.2f}" for x, y in zip(mine[variant], hand[variant], strict=True))
            print(f"  {'':28s} each round's sshbench / hand: {rounds}")
    for index, text in enumerate(ended):
        print(f"  sshbench round {index + 1}: {text}")


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        main()
