"""Short commands two ways, round by round: a real `sshbench --commands true --reuse fresh,reused` run and hand
loops from one shell through the same kind of link to an embedded sshd of the bench's own:

    for i in $(seq 30); do /usr/bin/time ssh HOST true; done                         (fresh)
    ssh -M -N -o ControlPath=SOCK HOST &  then the same loop with -o ControlPath=SOCK  (reused)

Each hand command is timed from its process's start to its exit, as sshbench times its samples; the hand's ssh
has no -v and no options beyond the embedded server's config (and, reused, the ControlPath), and uses the
client's own algorithms, as sshbench's command cases do, and sshbench's environment for ssh (SHELL=/bin/sh: the
link's ProxyCommand then reads no ~/.bashrc, which bash would where SHLVL is below 2, as under nohup). Prints both
medians per connection kind with their ranges over the rounds, sshbench / hand (agreement: within 5%), the
fresh/reused ratio each way with sshbench's interval, and how the phase split of sshbench's median connection
sums to its time to exit.

Needs root for a link. Usage:
    python bench/commands_vs_hand.py --link rtt=2ms
    python bench/commands_vs_hand.py --link rtt=80ms --rounds 3 --count 30
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from hand import Hand
from remedies_vs_hand import machine_line, median, run_sshbench
from sshbench.analysis.connections.commands import command_figures
from sshbench.analysis.connections.phases import phase_splits
from sshbench.measure.sysinfo import load_average
from sshbench.plumbing import placement
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.model import Report
from sshbench.results.store import read_results
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.link import netns
from sshbench.vocabulary.linkspec import parse_label

KINDS = ("fresh", "reused")


def timed(ssh: str, extra: str, count: int, env: dict[str, str]) -> list[float]:
    """`count` runs of `ssh [extra] HOST true`, each timed from its start to its exit (one shell, one by one).

    Each is bounded by a timer that kills it, not by subprocess.run's timeout: with a timeout, Python waits for
    the exit by polling with growing sleeps, which added ~1 ms (8%) to every 12 ms reused command; a shell's
    wait, like this one, blocks until the exit."""
    argv = shlex.split(f"{ssh} {extra} {HOST_ALIAS} true")
    out = []
    for _ in range(count):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        bound = threading.Timer(60.0, proc.kill)
        bound.start()
        _, stderr = proc.communicate()
        out.append(time.perf_counter() - start)
        bound.cancel()
        if proc.returncode != 0:
            raise SystemExit(f"a hand command failed: {stderr.decode(errors='replace').strip()[-300:]}")
    return out


@contextlib.contextmanager
def master(ssh: str, sock: str, env: dict[str, str]) -> Iterator[None]:
    """A hand-started ControlMaster (foreground, its own process group), up once its socket exists."""
    proc = subprocess.Popen(shlex.split(f"{ssh} -M -N -o ControlPath={sock} -o ControlPersist=no {HOST_ALIAS}"),
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, process_group=0)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(sock):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the hand's ControlMaster did not start")
            time.sleep(0.01)
        yield
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--link", default="", help="an emulated link (root); loopback without")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count", type=int, default=30, help="hand commands per kind and round")
    parser.add_argument("--budget", type=float, default=120.0, help="seconds of each sshbench run")
    parser.add_argument("--min-runs", type=int, default=30, help="sshbench's samples per case at least (its "
                        "--min-runs): as many as the hand's, so both medians are as precise")
    parser.add_argument("--keep", help="a directory to keep each round's sshbench results file in")
    args = parser.parse_args()
    if args.link:
        netns.check_can_emulate()
    link = parse_label(args.link).label if args.link else ""
    command = ["--commands", "true", "--reuse", "fresh,reused", "--placement", "split", "--time-budget",
               f"{args.budget:.0f}s", "--min-runs", str(args.min_runs)]
    command += ["--link", link, "--echo", "0"] if link else []
    mine: dict[str, list[float]] = {k: [] for k in KINDS}
    hand: dict[str, list[float]] = {k: [] for k in KINDS}
    notes: list[str] = []
    load = [load_average()]
    everything = placement.allowed()
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-commands-") as tmp:
        bench = Hand(stack, link, None, "zero", tmp)
        for rnd in range(args.rounds):
            out = Path(args.keep or tmp) / f"commands-{rnd}.json"
            done = run_sshbench(command, out, everything)
            if not out.exists() or done.returncode not in (0, 1):
                raise SystemExit(f"sshbench exit {done.returncode}: {done.stderr.strip()[-300:]}")
            report = read_results(str(out))[0]
            notes.append(_round_note(report))
            for figure in command_figures(report):
                if figure.seconds is not None:
                    mine["reused" if figure.reused else "fresh"].append(figure.seconds.median)
            hand["fresh"].append(statistics.median(timed(bench.ssh, "", args.count, bench.env)))
            sock = os.path.join(tmp, f"cm{rnd}")
            with master(bench.ssh, sock, bench.env):
                hand["reused"].append(statistics.median(timed(bench.ssh, f"-o ControlPath={sock}", args.count,
                                                              bench.env)))
            load.append(load_average())
    print(machine_line(load, False))
    print(f"{link or 'loopback'}: `ssh HOST true`, {args.rounds} rounds; sshbench --time-budget {args.budget:.0f}s "
          f"each, --min-runs {args.min_runs} (the median of its counted samples), hand {args.count} commands per "
          "kind and round (their median)")
    for kind in KINDS:
        a, b = median(mine[kind]), median(hand[kind])
        print(f"  {kind:7s} sshbench {_ms(mine[kind])}  hand {_ms(hand[kind])}  sshbench / hand = {a / b:.3f}")
    print(f"  fresh / reused: sshbench {median(mine['fresh']) / median(mine['reused']):.2f}, "
          f"hand {median(hand['fresh']) / median(hand['reused']):.2f}")
    for index, text in enumerate(notes):
        print(f"  sshbench round {index + 1}: {text}")


def _ms(values: list[float]) -> str:
    return f"{median(values) * 1000:7.1f} ms ({min(values) * 1000:.1f}-{max(values) * 1000:.1f})"


def _round_note(report: Report) -> str:
    """The reused case's verdict against fresh, and how the median fresh connection's phases sum."""
    figures = command_figures(report)
    reused = next((f for f in figures if f.reused), None)
    verdict = reused.versus_fresh if reused else None
    said = "no verdict" if verdict is None else (
        f"fresh/reused {verdict.ratio:.2f} [{verdict.ratio_low or 0:.2f}, {verdict.ratio_high or 0:.2f}] "
        f"{verdict.relation.value}")
    sums = [f"{s.case_id.rsplit('+', 1)[-1] if '+' in s.case_id else 'fresh'}: phases "
            f"{sum(p.seconds for p in s.phases) * 1000:.1f} of {s.total * 1000:.1f} ms "
            f"({', '.join(f'{p.name} {p.seconds * 1000:.1f}' for p in s.phases)})"
            for s in phase_splits(report)]
    return "; ".join([said, *sums, f"stop: {report.stop_reason}"])


if __name__ == "__main__":
    with interrupts_end_the_command(), run_claimed():
        main()
