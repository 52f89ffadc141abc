"""Logins per second two ways, round by round: a real `sshbench --logins K,...` run and K login loops started from
one shell against a listening sshd of the bench's own, made as sshbench makes its own (measure/logins.py: the
embedded server's config and keys as `sshd -D` in a network namespace, reached through the same connection
helper, the sshd on the server's CPUs, the clients on the client's):

    end=$(( $(date +%s%N) + S * 10**9 ))
    for k in $(seq K); do ( while [ $(date +%s%N) -lt $end ]; do ssh HOST true && echo ok; done ) & done; wait

Each hand stage lasts as long as sshbench's (`--seconds`, given to it as --logins-seconds) and counts the logins
that exited 0; its rate is those logins over the stage's wall time, from its start to its last login's exit, as
sshbench counts them. The hand's ssh has no -v (sshbench's has: it reads the key exchange and refusals from it)
and gets sshbench's environment for ssh (SHELL=/bin/sh: the helper reads no ~/.bashrc).

Prints per client count both rates (medians over the rounds, with their ranges), sshbench / hand (agreement:
within 10%, the rounds' own spread here), and each side's refusals and failures.

Needs root (a namespace). Usage:
    python bench/logins_vs_hand.py --logins 1,4,16
    python bench/logins_vs_hand.py --logins 1,4,16 --ssh .venv/opt/builds/openssh-10.2p1/bin/ssh \
        --sshd .venv/opt/builds/openssh-10.2p1/sbin/sshd --kex mlkem768x25519-sha256
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

from remedies_vs_hand import machine_line, median, run_sshbench
from sshbench.measure.logins import listening
from sshbench.measure.sysinfo import load_average
from sshbench.plumbing import placement
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.store import read_results
from sshbench.targets.base import HOST_ALIAS, OWN_CONNECTION
from sshbench.targets.discovery import discover_client
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.link import netns
from sshbench.targets.servers.openssh import EmbeddedOpenSSH

STAGE_BOUND = 300.0  # seconds past a stage's end after which its loops are killed (a login's own bound is 120 s)


ENV = {**os.environ, **EmbeddedTarget.tool_env}  # sshbench's environment for ssh: the helper under /bin/sh


def hand_stage(ssh_argv: list[str], clients: int, seconds: float) -> tuple[float, int, int]:
    """(logins/s, completed, failed) of `clients` loops from one shell, each logging in again as its last login
    exited, for `seconds`."""
    login = shlex.join(ssh_argv)
    loop = (f"while [ \"$(date +%s%N)\" -lt \"$end\" ]; do if {login} </dev/null >/dev/null 2>&1; then echo ok; "
            "else echo failed; fi; done")
    script = (f"end=$(( $(date +%s%N) + {int(seconds * 1e9)} )); "
              f"for k in $(seq {clients}); do ( {loop} ) & done; wait")
    start = time.perf_counter()
    done = subprocess.run(["sh", "-c", script], env=ENV, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          check=False, timeout=seconds + STAGE_BOUND)
    took = time.perf_counter() - start
    words = done.stdout.split()
    completed, failed = words.count("ok"), words.count("failed")
    return completed / took, completed, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logins", default="1,4,16", help="client counts, as sshbench's --logins")
    parser.add_argument("--seconds", type=float, default=10.0, help="each stage's length, both ways")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kex", help="one key exchange for both (default: the client's own)")
    parser.add_argument("--ssh", help="the ssh both use (default: the system's)")
    parser.add_argument("--sshd", help="the sshd both use (default: the system's)")
    parser.add_argument("--keep", help="a directory to keep each round's sshbench results file in")
    args = parser.parse_args()
    netns.check_can_emulate()
    counts = [int(c) for c in args.logins.split(",")]
    command = ["--logins", args.logins, "--logins-seconds", f"{args.seconds:g}", "--placement", "split"]
    command += ["--kex", args.kex] if args.kex else []
    command += ["--ssh", args.ssh] if args.ssh else []
    command += ["--sshd", args.sshd] if args.sshd else []
    mine: dict[int, list[float]] = {k: [] for k in counts}
    hand: dict[int, list[float]] = {k: [] for k in counts}
    trouble: dict[int, list[str]] = {k: [] for k in counts}
    load = [load_average()]
    everything = placement.allowed()
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-logins-") as tmp:
        server = stack.enter_context(EmbeddedOpenSSH(discover_client(args.ssh), sshd_path=args.sshd))
        stack.enter_context(placement.client_side(placement.split(everything)))  # the sshd below: server CPUs
        _, _, proxy = stack.enter_context(listening(server))
        ssh_argv = [server.client.path, "-F", server.client_config, "-o", f"ProxyCommand={proxy}", *OWN_CONNECTION,
                    *(["-o", f"KexAlgorithms={args.kex}"] if args.kex else []), HOST_ALIAS, "true"]
        for _ in range(2):  # cold caches, as sshbench's two uncounted logins
            subprocess.run(ssh_argv, env=ENV, stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=120)
        for rnd in range(args.rounds):
            out = Path(args.keep or tmp) / f"logins-{rnd}.json"
            done = run_sshbench(command, out, everything)
            if not out.exists() or done.returncode not in (0, 1):
                raise SystemExit(f"sshbench exit {done.returncode}: {done.stderr.strip()[-300:]}")
            for stage in read_results(str(out))[0].logins:
                mine[stage.clients].append(stage.completed / stage.seconds)
                if stage.refused or stage.failed:
                    trouble[stage.clients].append(f"sshbench refused {stage.refused}, failed {stage.failed}")
            for count in counts:
                rate, _, failed = hand_stage(ssh_argv, count, args.seconds)
                hand[count].append(rate)
                if failed:
                    trouble[count].append(f"hand failed {failed}")
            load.append(load_average())
    print(machine_line(load, False))
    print(f"--logins {args.logins}, {args.seconds:g} s per stage, {args.rounds} rounds"
          f"{f', --kex {args.kex}' if args.kex else ''}{f', {args.ssh}' if args.ssh else ''}: logins/s, the median "
          "of the rounds (their range)")
    for count in counts:
        a, b = median(mine[count]), median(hand[count])
        print(f"  {count:3d} clients  sshbench {_rate(mine[count])}  hand {_rate(hand[count])}  "
              f"sshbench / hand = {a / b:.3f}{'  (' + '; '.join(trouble[count]) + ')' if trouble[count] else ''}")


def _rate(values: list[float]) -> str:
    return f"{median(values):5.1f} ({min(values):.1f}-{max(values):.1f})"


if __name__ == "__main__":
    with interrupts_end_the_command(), run_claimed():
        main()
