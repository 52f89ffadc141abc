"""Over emulated links: sshbench's steady-state figures at default sizing against 512 MiB hand transfers.

Each run: `sshbench --link rtt=20ms,80ms` on a few ciphers (upload; default
sizing, sample length and budget), its steady-state MB/s, sample sizes and
verdicts per link and cipher; then, through links built the same way (the
same emulator, namespaces and server), the seed studies' hand pipeline
moving --hand-size (512 MiB) per transfer, timed as a whole:

    head -c 512MiB /dev/zero | ssh -c CIPHER host 'cat >/dev/null'

A 512 MiB transfer lasts 5-25 s here, so its start (login, TCP's ramp) is a
few per cent of it: what is left is the link's steady state, which is what
sshbench's figure claims to be. Printed: both figures, their ratio, and
sshbench's verdict (window, link, CPU, below limits) with the window limit.

Needs root. Usage: python bench/link_steady.py [--runs 3] [--rtts 20ms,80ms] [--hand 3]
       [--ciphers aes128-gcm@openssh.com,chacha20-poly1305@openssh.com]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
from pathlib import Path

from clirun import run_sshbench
from link_vs_hand import hand_pipeline
from sshbench.analysis.physics.links import bounds
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.store import read_results
from sshbench.targets.discovery import discover_client
from sshbench.targets.link import netns
from sshbench.targets.link.emulated import EmulatedLinks
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.linkspec import parse_label
from sshbench.vocabulary.units import parse_size


def hand_figures(rtts: list[str], ciphers: list[str], size: int, count: int) -> dict[tuple[str, str], list[float]]:
    """(link label, cipher) -> hand rates, ciphers interleaved round by round."""
    specs = [parse_label(f"rtt={rtt}") for rtt in rtts]
    out: dict[tuple[str, str], list[float]] = {}
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(EmbeddedOpenSSH(discover_client()))
        links = stack.enter_context(EmulatedLinks(specs))
        port = links.serve(server)
        for _ in range(count):
            for spec in specs:
                for cipher in ciphers:
                    seconds = hand_pipeline(server, links.paths[spec.label], port, size, cipher)
                    out.setdefault((spec.label, cipher), []).append(size / seconds)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rtts", default="20ms,80ms")
    parser.add_argument("--ciphers", default="aes128-gcm@openssh.com,chacha20-poly1305@openssh.com")
    parser.add_argument("--hand", type=int, default=3, help="hand transfers per link and cipher")
    parser.add_argument("--hand-size", default="512MiB")
    args = parser.parse_args()
    netns.check_can_emulate()
    rtts, ciphers = args.rtts.split(","), args.ciphers.split(",")
    links = "rtt=" + ",".join(rtts)  # one key, its values listed (vocabulary/linkspec.py)
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory() as tmp:
            _, wall = run_sshbench(["--link", links, "--ciphers", args.ciphers, "--directions", "upload",
                                    "--echo", "0"], Path(tmp) / "run.json")
            report = read_results(str(Path(tmp) / "run.json"))[0]
        theirs = hand_figures(rtts, ciphers, parse_size(args.hand_size), args.hand)
        sizes = {r.case.id: r.size_bytes for r in report.cases}
        print(f"run {run}: sshbench --link {links} --ciphers {args.ciphers} --directions upload ({wall:.0f} s)")
        for bound in sorted(bounds(report), key=lambda b: (b.rtt or 0, b.cipher)):
            if bound.direction != "upload" or (bound.link, bound.cipher) not in theirs:
                continue
            mine, other = bound.rate, statistics.median(theirs[(bound.link, bound.cipher)])
            window = f"{bound.window_limit / 1e6:.1f}" if bound.window_limit else "-"
            print(f"  {bound.link:10} {bound.cipher:30} sshbench {mine / 1e6:6.1f} MB/s (samples of "
                  f"{sizes[bound.case_id] / 2**20:.0f} MiB, n={bound.stat.count})  hand {other / 1e6:6.1f} MB/s "
                  f"(n={len(theirs[(bound.link, bound.cipher)])})  ratio {mine / other:.2f}  verdict {bound.short} "
                  f"(window/RTT {window} MB/s)")


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        main()
