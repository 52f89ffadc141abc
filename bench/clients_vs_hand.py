"""Issue 64's oracle: each SSH client's pipe figure two ways, a real `sshbench --client openssh,NAME` run and a
small hand program using that client the usual way, timed from one shell against an embedded sshd of the bench's own.

Why: sshbench's figure for a library client rests on its driver (clientparts/drivers/) and on how sshbench times
it (the receiver's count, the steady window, CPU by wait4). A driver that carried the bytes some way no user's
code does, or a timing that read its start-up as data, would show here as a ratio away from 1. So for each client
sshbench can measure that is installed here (clientparts' registry; the others are skipped with a line):

    sshbench --client openssh,NAME --ciphers C --macs none --kex none --hostkeys none \
             --directions upload,download --echo 0 --no-controls --time-budget B --placement split [--link L]

is run as the other benches run it (bench/remedies_vs_hand.py `run_sshbench`: every CPU given back to it), and its
figure per direction read from its results file: the median of the case's counted samples, its n and interval, as
the report shows it. Then the same transfer by hand (bench/clients_hand.py; the programs in bench/hand_clients/):

    paramiko   SSHClient.connect(...); chan = get_transport().open_session(); exec_command('cat >/dev/null');
               sendall(64 KiB chunks of FILE); shutdown_write()     download: exec_command('cat < FILE'), recv to EOF
    asyncssh   conn.run('cat >/dev/null', stdin=FILE)               download: conn.run('cat < FILE', stdout=DEVNULL)
    goxcrypto  ssh.Dial; session.Stdin = FILE; Run('cat >/dev/null') download: Stdout = io.Discard; Run('cat < FILE')
    dbclient   dbclient -c C [-m M] -i KEY -p PORT -l USER ADDR 'cat >/dev/null' < FILE      (download: 'cat < FILE')
    plink      plink -batch -ssh -noagent -noshare -T -P PORT -l USER -i KEY.ppk -hostkey FP ADDR 'cat >/dev/null'
               < FILE
    openssh    ssh -F CONFIG -c C [-m M] HOST 'cat >/dev/null' < FILE  (bench/hand.py's pipeline; its row comes from
               the first client's run, where ssh is measured beside it)

each with the run's key and host keys, the cipher of the case and the MAC sshbench's samples negotiated (none
under an AEAD cipher), at two sizes, S and S/4, `--hand-repeats` of each alternating: the difference of bytes over
the difference of the median times (logins, an interpreter's start, a library's import cancel), its range from
each pair. S is sshbench's own size for the case (the median of its counted samples), or what lasts `--seconds` at
its rate where that is longer. Acceptance per row: sshbench's median within 5% of the hand's, or within the hand's
range.

Prints the CPU model (lscpu) and the 1-min load before and after each client's turn, then per client and
direction: sshbench's median (n, interval), the hand's (range), sshbench / hand and the acceptance. Exit 0 whether
rows agree or not (a measurement, not a test); 2 on bad arguments. `--link` needs root; sshbench itself refuses
`--client` with `--link` today (its drivers do not cross emulated links yet), which a row then says, and the hand
is timed alone (sized by doubling a probe, bench/hand.py `size_for`). `--nodelay` gives the paramiko hand
TCP_NODELAY, as sshbench's driver has it and SSHClient's own socket has not (bench/hand_clients/paramiko_hand.py).

Usage:
    nice -n 19 .venv/bin/python bench/clients_vs_hand.py --clients paramiko,goxcrypto --budget 3m
    .venv/bin/python bench/clients_vs_hand.py --cipher aes128-gcm@openssh.com --clients asyncssh,goxcrypto
    .venv/bin/python bench/clients_vs_hand.py --link rtt=80ms                    (root)
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from clients_hand import PLAIN, ClientsHand, go_client
from clirun import cpu_model
from remedies_vs_hand import run_sshbench
from sshbench.analysis.stats.stats import counted
from sshbench.clientparts import CLIENTS
from sshbench.compressors.base import OFF
from sshbench.measure.sysinfo import load_average
from sshbench.options import parse_duration
from sshbench.plumbing import placement
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.model import CaseKind, CaseView, Report, Stat
from sshbench.results.store import read_results
from sshbench.targets.link import netns
from sshbench.vocabulary.errors import SshbenchError
from sshbench.vocabulary.linkspec import parse_label
from sshbench.vocabulary.units import GiB, MiB

MARGIN = 0.05  # a figure within 5% of the hand's median agrees, whatever the hand's range
DIRECTIONS = ("upload", "download")
MAX_HAND_BYTES = 4 * GiB  # the hand's files live in the temp dir, one per size
IMPLICIT = "<implicit>"  # an AEAD cipher's MAC, as sshd and the drivers name it


@dataclass
class Ours:
    """What one sshbench run said of one client's case in one direction."""

    stat: Stat | None = None
    size: int = 0  # the median size of its counted samples
    mac: str = "none"  # the MAC its samples negotiated (none: an AEAD cipher's)
    note: str = ""  # why there is no figure


@dataclass
class Row:
    client: str
    direction: str
    ours: Ours
    hand: tuple[float, float, float] | None  # (rate, lowest, highest) bytes/s
    size: int
    run: str  # whose sshbench run the figure came from


def case_view(report: Report, cipher: str, direction: str, client: str, link: str) -> CaseView | None:
    """The plain pipe case of `cipher` in `direction` for `client` (openssh's carries no client dim)."""
    for view in report.joined().values():
        case = view.case
        if (case.kind is CaseKind.CIPHER and case.cipher == cipher and case.direction.value == direction
                and case.link == link and case.streams == 1 and case.compression == OFF
                and dict(case.dims).get("client", "openssh") == client):
            return view
    return None


def read_ours(report: Report, cipher: str, direction: str, client: str, link: str) -> Ours:
    """The case's counted figure, size and negotiated MAC, or why it has none (skipped, failed, not planned)."""
    view = case_view(report, cipher, direction, client, link)
    if view is None:
        return Ours(note="no such case in the run")
    kept = counted(list(view.samples))
    macs = [s.negotiated.mac_c2s for s in view.samples if s.ok and s.negotiated and s.negotiated.mac_c2s]
    mac = macs[0] if macs else (view.case.mac or "none")
    stat = view.summary.throughput_bytes_per_second if view.summary else None
    size = int(statistics.median(s.size_bytes for s in kept)) if kept else 0
    failed = [s.error for s in view.samples if not s.ok and s.error]
    note = "" if stat else (view.record.reason or (failed[0] if failed else f"status {view.record.status.value}"))
    return Ours(stat, size, "none" if mac == IMPLICIT else mac, note)


def held_mac(cipher: str, client: str) -> str:
    """The MAC a run of `--client openssh,CLIENT` holds beside a non-AEAD cipher (docs/clients.md: the one every
    client of the run has), for a hand without sshbench's samples to read it from; none beside an AEAD cipher."""
    if "gcm" in cipher or "poly1305" in cipher:
        return "none"
    return "hmac-sha2-256" if client in ("dbclient", "plink") else "hmac-sha2-256-etm@openssh.com"


def hand_size(ours: Ours, seconds: float) -> int:
    """S: sshbench's own size, or what lasts `seconds` at its rate where that is more (whole MiB, at most
    MAX_HAND_BYTES); 0: no figure to size from."""
    if ours.stat is None:
        return 0
    wanted = min(MAX_HAND_BYTES, max(ours.size, ours.stat.median * seconds, 16 * MiB))
    return -(-int(wanted) // MiB) * MiB


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--clients", default=",".join(CLIENTS),
                        help=f"clients to check (default: all sshbench measures: {','.join(CLIENTS)})")
    parser.add_argument("--cipher", default="aes256-ctr",
                        help="the cipher of every case (aes256-ctr: the one all six clients have, plink's only)")
    parser.add_argument("--budget", default="3m", help="--time-budget of each sshbench run")
    parser.add_argument("--link", default="", help="an emulated link (root), e.g. rtt=80ms; loopback without")
    parser.add_argument("--seconds", type=float, default=4.0,
                        help="the shortest hand transfer at S (sshbench's size where that lasts longer)")
    parser.add_argument("--hand-repeats", type=int, default=3, help="hand runs at each of the two sizes")
    parser.add_argument("--nodelay", action="store_true",
                        help="the paramiko hand's socket with TCP_NODELAY, as sshbench's driver sets it (SSHClient's "
                             "own sets none; every other client here sets it itself)")
    parser.add_argument("--keep", help="a directory to keep each sshbench run's results file in")
    args = parser.parse_args(argv)
    args.names = [name.strip() for name in args.clients.split(",") if name.strip()]
    unknown = [name for name in args.names if name not in CLIENTS]
    if unknown or not args.names:
        parser.error(f"bad --clients {args.clients!r}: sshbench measures {', '.join(CLIENTS)}")
    try:
        args.budget_seconds = parse_duration(args.budget)
        args.link = parse_label(args.link).label if args.link else ""
        if args.link:
            netns.check_can_emulate()
    except SshbenchError as err:
        parser.error(str(err))
    if args.hand_repeats < 1 or args.seconds <= 0:
        parser.error("--hand-repeats must be at least 1 and --seconds above 0")
    return args


def sshbench_command(args: argparse.Namespace, name: str) -> list[str]:
    clients = "openssh" if name == "openssh" else f"openssh,{name}"
    return ["--client", clients, "--ciphers", args.cipher, "--macs", "none", "--kex", "none", "--hostkeys", "none",
            "--directions", ",".join(DIRECTIONS), "--echo", "0", "--no-controls", "--time-budget",
            f"{args.budget_seconds:.0f}s", "--placement", "split", *(["--link", args.link] if args.link else [])]


def main(argv: list[str]) -> None:
    args = parse(argv)
    print(f"{cpu_model()}, {os.cpu_count()} CPUs; {args.link or 'loopback'}, {args.cipher}, sshbench --time-budget "
          f"{args.budget_seconds:.0f}s a client, hand at S and S/4, {args.hand_repeats} runs of each (medians); "
          f"paramiko's hand {'with' if args.nodelay else 'without'} TCP_NODELAY")
    runs = [name for name in args.names if name != "openssh"] or ["openssh"]
    rows: list[Row] = []
    everything = placement.allowed()  # before the hand pins this process to the client half
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-clients-") as tmp:
        bench = ClientsHand(stack, args.link, args.cipher, tmp)
        bench.nodelay = args.nodelay
        for name in runs:
            why = CLIENTS[name].unavailable()
            if why is not None:
                print(f"  {name}: skipped: {why}", flush=True)
                continue
            if name == "goxcrypto" and bench.go is None:
                try:
                    bench.go = go_client(tmp)
                except SystemExit as err:  # sshbench's driver is built, the hand's program is not: no oracle
                    print(f"  {name}: skipped: {err}", flush=True)
                    continue
            before = load_average()
            out = Path(args.keep or tmp) / f"clients-{name}-{os.getpid()}.json"
            done = run_sshbench(sshbench_command(args, name), out, everything)
            report = read_results(str(out))[0] if out.exists() else None
            said = (done.stderr.strip().splitlines() or ["no message"])[-1][:300]
            checked = [name] + (["openssh"] if "openssh" in args.names and name == runs[0] != "openssh" else [])
            for client in checked:
                for direction in DIRECTIONS:
                    ours = read_ours(report, args.cipher, direction, client, args.link) if report else \
                        Ours(mac=held_mac(args.cipher, client), note=f"sshbench exit {done.returncode}: {said}")
                    rows.append(hand_row(bench, args, client, direction, ours, name))
                    print_row(rows[-1], flush=True)
            after = load_average()
            print(f"  {name}'s turn: sshbench exit {done.returncode}; load (1 min) {_load(before)} before, "
                  f"{_load(after)} after", flush=True)
    print("\nper client and direction (sshbench's median of counted samples; hand at S and S/4):")
    for row in rows:
        print_row(row)
    agreed = sum(acceptance(row).startswith("within") for row in rows)
    print(f"{agreed} of {len(rows)} rows within acceptance")


def hand_row(bench: ClientsHand, args: argparse.Namespace, client: str, direction: str, ours: Ours,
             run: str) -> Row:
    """The hand's figure for one client and direction at sshbench's size (or, without one, a probed size)."""
    bench.use(client, direction, ours.mac)
    size = hand_size(ours, args.seconds) or bench.size_for(PLAIN, args.seconds)
    return Row(client, direction, ours, bench.spread(size, args.hand_repeats), size, run)


def _load(load: list[float] | None) -> str:
    return f"{load[0]:.2f}" if load else "unknown"


def _mb(rate: float) -> str:
    return f"{rate / 1e6:.1f}"


def acceptance(row: Row) -> str:
    if row.ours.stat is None or row.hand is None:
        return "no sshbench figure"
    rate, low, high = row.hand
    if math.isnan(rate):  # its runs at S were not slower than at S/4
        return "no hand rate (S no slower than S/4)"
    ratio = row.ours.stat.median / rate
    if abs(ratio - 1) <= MARGIN:
        return "within 5%"
    if low <= row.ours.stat.median <= high:
        return "within the hand's range"
    return "OUTSIDE both 5% and the hand's range"


def print_row(row: Row, flush: bool = False) -> None:
    where = "" if row.run == row.client else f" (in {row.run}'s run)"
    stat = row.ours.stat
    if stat is None:
        ours = f"sshbench - ({row.ours.note})"
    else:
        interval = f", 95% {_mb(stat.ci_low)}-{_mb(stat.ci_high)}" if stat.ci_low and stat.ci_high else ", no interval"
        ours = f"sshbench {_mb(stat.median)} MB/s (n {stat.count}{interval})"
    hand = "hand -" if row.hand is None else \
        f"hand {_mb(row.hand[0])} MB/s ({_mb(row.hand[1])}-{_mb(row.hand[2])}) at {row.size // MiB} MiB"
    ratio = f"sshbench/hand {stat.median / row.hand[0]:.3f}" if stat and row.hand else "sshbench/hand -"
    print(f"  {row.client:9s} {row.direction:8s}{where}: {ours}; {hand}; {ratio}; {acceptance(row)}; "
          f"MAC {row.ours.mac}", flush=flush)


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        main(sys.argv[1:])
