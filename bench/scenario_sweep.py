"""A scenario sweep with an oracle: K scenarios drawn at random (bench/scenario_draw.py), each measured by a real
sshbench run and again by hand from one shell through the same kind of link, and every row judged.

Why: the other benches check the cases someone chose, and the code was tuned until those agreed; a draw over the
whole space finds the combinations nobody picked. The hand is the oracle (bench/hand.py: an embedded server of
the bench's own, OpenSSH, Dropbear or tinysshd as drawn, behind the same emulated link, plain `ssh` from one shell):

    upload       head -c S FILE | ssh HOST 'cat >/dev/null' (N streams from one shell, each S/N), at S and S/4:
                 the difference of bytes over the difference of median times (logins cancel); over loss or a
                 round trip of 40 ms or more receiver-timed inside one transfer instead (the server's shell
                 stamps each stream's quarter and end), whose runs do not carry two transfers' loss variance
    download     ssh HOST 'cat < FILE' >/dev/null (external compressors on both ends, as sshbench runs them), at S
                 and S/4 the same way; over loss or a round trip of 40 ms or more receiver-timed, by this shell
    commands     ssh HOST true, one by one, each timed from start to exit (bench/commands_vs_hand.py); half the
                 hand's runs before sshbench's run and half after, so its spread holds the machine's drift

S is the larger of the size sshbench measured at and what lasts --hand-seconds at its rate (at most
MAX_HAND_BYTES). Acceptance, per row: the counted figure within the hand's own spread (its runs' range) or
within 5% of its median; no counted sample above the link's payload capacity (rate x (mtu - 52) / mtu, on its
own wire bytes per payload byte) by more than 1%; no case with every sample set aside unless the hand also
failed. A run sshbench refuses before measuring (exit 2, no sample beyond warm-ups) is redrawn, counted and
printed; one that fails after measuring is a row, and a finding. Prints each row as it ends, then a Markdown
table and `N of K scenarios within acceptance`. Exit 0 whether or not rows fail (a measurement, not a test), 2
on bad arguments.

Needs root. Usage: .venv/bin/python bench/scenario_sweep.py [--seed N] [--scenarios K] [--budget 2m]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from clirun import cpu_model
from commands_vs_hand import timed
from hand import Hand, Variant, stamping_sink
from remedies_vs_hand import run_sshbench
from scenario_draw import FIRST_SERVERS, SERVERS, Scenario, scenarios
from sshbench.analysis.connections.commands import command_figures
from sshbench.analysis.physics.links import bound_of
from sshbench.analysis.stats.stats import counted
from sshbench.compressors import choice
from sshbench.measure.sysinfo import load_average
from sshbench.options import parse_duration
from sshbench.plumbing import placement
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.model import Report, Sample, Stat
from sshbench.results.store import read_results
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.link import netns
from sshbench.vocabulary.errors import SshbenchError
from sshbench.vocabulary.linkspec import parse_label
from sshbench.vocabulary.units import GiB, MiB

MARGIN = 0.05  # a figure within 5% of the hand's median agrees, whatever the hand's spread
CAPACITY_TOLERANCE = 0.01  # a link with a rate has an exact capacity: timing granularity alone is forgiven
MAX_HAND_BYTES = 4 * GiB  # the hand's files live in the temp dir, one per size
REDRAWS = 10  # refusals allowed per scenario asked for, before the sweep stops drawing


@dataclass
class Ours:
    """What one sshbench run said of the scenario's case."""

    stat: Stat | None = None  # the counted figure: bytes/s, or seconds for a short command
    counted: list[Sample] = field(default_factory=list)
    moved: list[Sample] = field(default_factory=list)  # every sample that moved data, warm-ups and set-asides too
    measured: int = 0  # samples after the warm-up, ok or not
    aside: list[str] = field(default_factory=list)  # the set-aside samples' reasons
    failed: list[str] = field(default_factory=list)  # failed samples' errors
    limiter: str = "-"
    note: str = ""  # how the run ended, where it did not end well
    finding: str = ""  # a refusal or failure after measuring

    def pace(self) -> tuple[float | None, float]:
        """Bytes/s and bytes to size the hand with: the counted figure and samples, else (sizing only) those of
        every sample that moved data."""
        kept = self.counted or self.moved
        rates = [rate for s in kept if (rate := s.throughput_bytes_per_second)]
        size = statistics.median(s.size_bytes for s in kept) if kept else 0.0
        if self.stat is not None:
            return self.stat.median, size
        return (statistics.median(rates) if rates else None), size


def wire_rate(sample: Sample, upload: bool) -> float:
    """A sample's rate on the link: its payload rate times its own wire bytes per payload byte (ssh -v's count)."""
    rate = sample.throughput_bytes_per_second or 0.0
    wire = sample.wire_bytes_sent if upload else sample.wire_bytes_received
    return rate * wire / sample.bytes_received if wire and sample.bytes_received else rate


def read_ours(sc: Scenario, report: Report) -> Ours:
    """The scenario's case in a results file: its counted figure, set-aside and failed samples, limiter."""
    limiter = "-"
    if sc.commands:
        figure = next((f for f in command_figures(report) if f.case.link == sc.link and f.case.command == "true"
                       and not f.reused), None)
        wanted, stat = (figure.case.id, figure.seconds) if figure else ("", None)
    else:
        wanted = sc.case_id
        summary = next((s for s in report.summaries if s.case_id == wanted), None)
        stat = summary.throughput_bytes_per_second if summary else None
        bound = bound_of(report, summary) if summary and stat else None
        limiter = bound.short if bound else limiter
    every = report.samples_of(wanted)
    samples = [s for s in every if not s.warmup]
    moved = [s for s in every if s.ok and s.throughput_bytes_per_second]
    aside = [s.unusable for s in samples if s.ok and s.unusable]
    return Ours(stat, counted(samples), moved, len(samples), aside, [s.error or "failed" for s in samples if not s.ok],
                limiter)


def run_ours(sc: Scenario, budget: str, out: Path, cpus: frozenset[int] | None) -> Ours | str:
    """One sshbench run of the scenario: what it said, or (a str) why it refused before measuring: no sample at
    all, or only warm-ups where it refused with exit 2 (a minimum timed after the warm-up that --fit could not
    fit). A run that failed otherwise after any sample is a row, with the failure as a finding."""
    done = run_sshbench(sc.argv(budget), out, cpus)
    said = (done.stderr.strip().splitlines() or ["no message"])[-1][:300]
    report = read_results(str(out))[0] if out.exists() else None
    samples = report.samples if report else []
    if not [s for s in samples if not s.warmup] and (not samples or done.returncode == 2):
        warm = f" after {len(samples)} warm-up samples" if samples else ""
        return f"exit {done.returncode}{warm}: {report.error if report and report.error else said}"
    assert report is not None
    ours = read_ours(sc, report)
    if done.returncode not in (0, 1) or report.status != "complete":
        ours.finding = f"sshbench exit {done.returncode}, {report.status} after measuring: {report.error or said}"
    elif done.returncode == 1:
        ours.note = f"exit 1 ({len(ours.failed)} of this case's samples failed)"
    return ours


class SweepHand(Hand):
    """bench/hand.py's hand for one scenario: its server (Dropbear too) and its direction (a download reads the
    file on the server's side and drops it on this one)."""

    def __init__(self, stack: contextlib.ExitStack, sc: Scenario, tmp: str) -> None:
        self.download = sc.direction == "download" and not sc.commands
        data = "zero" if sc.commands else sc.data
        super().__init__(stack, sc.link, sc.cipher, data, tmp, server=sc.server)

    def pipeline(self, variant: Variant, share: int, mark: int = 0) -> str:
        """An upload as bench/hand.py runs it; a download reads the file on the server and drops it here, with a
        `mark` stamped by this side's shell (the receiver) after each `mark` bytes and after the last."""
        if not self.download:
            return super().pipeline(variant, share, mark)
        source = f"< {shlex.quote(self._file(share))}"
        sink = f"{{ {stamping_sink(mark)}; }}" if mark else ">/dev/null"
        compression = choice(variant[1])
        if compression.external and compression.level is not None:
            pack = shlex.join(compression.compressor.compress(compression.level))
            unpack = shlex.join(compression.compressor.decompress())
            return f"{self.ssh} {HOST_ALIAS} {shlex.quote(f'{pack} {source}')} | {unpack} " + \
                (f"| {sink}" if mark else sink)
        options = "-o Compression=yes " if compression.is_ssh else ""
        return f"{self.ssh} {options}{HOST_ALIAS} {shlex.quote(f'cat {source}')} " + (f"| {sink}" if mark else sink)


def hand_size(sc: Scenario, ours: Ours, seconds: float) -> int | None:
    """S: sshbench's own size (the median of the samples it counted), or more where that lasts under `seconds`
    at its pace (at most MAX_HAND_BYTES), in whole MiB per stream; None: no pace to size from."""
    pace, measured = ours.pace()
    pace = pace or sc.ceiling
    if pace is None:
        return None
    per_stream = MiB * sc.streams
    wanted = min(MAX_HAND_BYTES, max(measured, pace * seconds, 4 * per_stream))
    return -(-int(wanted) // per_stream) * per_stream


RECEIVER_TIMED_RTT = 0.040  # seconds: from this round trip on (or with any loss) a transfer is receiver-timed


def hand_commands(sc: Scenario, args: argparse.Namespace, runs: int) -> list[float]:
    """`runs` hand runs of `ssh HOST true` (each run's median of --hand-commands), on a server and link of their
    own. Half are taken before sshbench's run and half after (`sweep`): a login's time drifts with the machine
    over minutes (Dropbear behind rtt=0 read 59.6 ms in one sshbench run and 70.7 in the next, the hand 75-80
    between them), and a hand taken on one side alone read that drift as sshbench's error."""
    if runs < 1:
        return []
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        bench = SweepHand(stack, sc, tmp)
        return [statistics.median(timed(bench.ssh, "", args.hand_commands, bench.env)) for _ in range(runs)]


def measure_hand(sc: Scenario, ours: Ours, args: argparse.Namespace,
                 before: list[float] | None = None) -> tuple[list[float], str]:
    """The hand's runs (bytes/s, or seconds for a command: `before` are those taken before sshbench ran) and how
    it was timed; a failure raises SystemExit."""
    if sc.commands:
        earlier = before or []
        runs = earlier + hand_commands(sc, args, args.hand_runs - len(earlier))
        return runs, (f"{len(runs)} runs of {args.hand_commands} `ssh HOST true` (each run's median), "
                      f"{len(earlier)} before sshbench's run and {len(runs) - len(earlier)} after")
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        bench = SweepHand(stack, sc, tmp)
        variant: Variant = (sc.streams, sc.compression)
        size = hand_size(sc, ours, args.hand_seconds) or bench.size_for(variant, args.hand_seconds)
        link = parse_label(sc.link)
        # Over loss or a long round trip, two transfers' difference carries both their variances (a 96-ms
        # download's two-size hand ranged 1.6x between its runs): timed where the bytes arrive, inside one
        receiver = link.loss > 0 or link.rtt_seconds >= RECEIVER_TIMED_RTT
        timing = bench.receiver_rate if receiver else bench.rate
        runs = [timing(variant, size, 1) for _ in range(args.hand_runs)]
        how = "receiver-timed at S" if receiver else "at S and S/4"
        return runs, f"{args.hand_runs} runs {how}, S = {size // MiB} MiB"


@dataclass
class Row:
    number: int
    sc: Scenario
    ours: Ours
    hand: list[float]
    how: str  # how the hand was timed, or why it failed
    hand_failed: bool
    load: tuple[float | None, float | None]

    @property
    def good(self) -> list[float]:
        """The hand's runs that gave a figure (two sizes whose times did not grow give none)."""
        return [x for x in self.hand if math.isfinite(x) and x > 0]

    @property
    def hand_median(self) -> float | None:
        return statistics.median(self.good) if self.good else None

    @property
    def top_wire(self) -> float:
        """sshbench's fastest counted sample on the link, bytes/s (0: none)."""
        return max((wire_rate(s, self.sc.direction == "upload") for s in self.ours.counted), default=0.0)

    def allowed(self, sample: Sample) -> float:
        """The share above the line a counted sample may read: timing granularity, and where an external
        decompressor counts the bytes, one of its blocks per stream at each end of the window."""
        block = choice(self.sc.compression).compressor.output_block
        steady = sample.steady_bytes or 0
        return CAPACITY_TOLERANCE + (2 * self.sc.streams * block / steady if block and steady else 0.0)

    @property
    def ratio(self) -> float | None:
        mine, theirs = self.ours.stat, self.hand_median
        return mine.median / theirs if mine and theirs else None

    def failures(self) -> list[str]:
        """Why the row is outside the acceptance (none: within)."""
        out = [self.ours.finding] if self.ours.finding else []
        stat, hand_failed = self.ours.stat, self.hand_failed or not self.good
        if stat is None:
            if not self.ours.aside:
                out.append("no counted figure")
            elif not hand_failed:
                out.append(f"every sample set aside ({len(self.ours.aside)}) where the hand measured")
        elif hand_failed:
            out.append("the hand gave no figure to judge it by")
        elif abs((ratio := stat.median / statistics.median(self.good)) - 1) > MARGIN \
                and not min(self.good) <= stat.median <= max(self.good):
            out.append(f"{ratio:.3f} of the hand, outside 5% and the hand's spread")
        limit = self.sc.ceiling
        over = [wire for sample in self.ours.counted if limit and not self.sc.commands
                and (wire := wire_rate(sample, self.sc.direction == "upload")) > limit * (1 + self.allowed(sample))]
        if over and limit:  # the product's own rule (measure/physics.py): 1% of timing, and a decompressor's blocks
            out.append(f"a counted sample at {max(over) / 1e6:.2f} MB/s on the wire, above the link's "
                       f"{limit / 1e6:.2f} MB/s")
        return out


def _value(row: Row, value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.1f} ms" if row.sc.commands else f"{value / 1e6:,.2f} MB/s"


def _figure(row: Row) -> str:
    stat = row.ours.stat
    if stat is None:
        return "none"
    interval = f" [{_value(row, stat.ci_low)}, {_value(row, stat.ci_high)}]" if stat.ci_low is not None else ""
    return f"{_value(row, stat.median)}, n={stat.count}{interval}"


def _hand(row: Row) -> str:
    if row.hand_failed or not row.good:
        return f"failed: {row.how}" if row.hand_failed else "no figure"
    low = _value(row, min(row.good)).split()[0]  # the range in the median's unit, said once
    return f"{_value(row, row.hand_median)} ({low}-{_value(row, max(row.good))})"


def _aside(row: Row) -> str:
    aside = row.ours.aside
    return f"{len(aside)} of {row.ours.measured}: {aside[0]}" if aside else f"0 of {row.ours.measured}"


def _load(row: Row) -> str:
    return " -> ".join("?" if x is None else f"{x:.2f}" for x in row.load)


def _ceiling(row: Row) -> str:
    return "-" if row.sc.commands else _value(row, row.sc.ceiling) if row.sc.ceiling else "none (no rate)"


def show(row: Row, total: int, budget: str, cpu: str) -> None:
    """One scenario's lines, as soon as it is measured."""
    fails = row.failures()
    print(f"[{row.number}/{total}] {row.sc.text}")
    print(f"  sudo .venv/bin/sshbench {shlex.join(row.sc.argv(budget))}")
    print(f"  machine: {cpu}; load (1 min) {_load(row)}")
    print(f"  sshbench: {_figure(row)}; limiter {row.ours.limiter}; set aside {_aside(row)}"
          + (f"; {row.ours.note}" if row.ours.note else "")
          + (f"; {len(row.ours.failed)} failed: {row.ours.failed[0][:120]}" if row.ours.failed else ""))
    print(f"  hand: {_hand(row)}" + ("" if row.hand_failed else f" ({row.how})"))
    ratio = f"{row.ratio:.3f}" if row.ratio is not None else "-"
    top = row.top_wire
    wire = "" if row.sc.commands or not top else f" (sshbench's fastest counted sample {_value(row, top)} on the wire)"
    print(f"  sshbench / hand {ratio}; payload ceiling {_ceiling(row)}{wire}")
    print(f"  verdict: {'within acceptance' if not fails else 'OUTSIDE: ' + '; '.join(fails)}", flush=True)


def markdown(rows: list[Row]) -> str:
    """The rows as a Markdown table, for docs/."""
    head = ("| # | scenario | sshbench (n, 95%) | hand median (range) | sshbench / hand | payload ceiling | set aside "
            "(first reason) | limiter | load | verdict |")
    lines = [head, "|---|---|---:|---:|---:|---:|---|---|---|---|"]
    for row in rows:
        fails = row.failures()
        cells = [str(row.number), row.sc.text, _figure(row), _hand(row),
                 f"{row.ratio:.3f}" if row.ratio is not None else "-", _ceiling(row), _aside(row),
                 row.ours.limiter, _load(row), "ok" if not fails else "**" + "; ".join(fails) + "**"]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


def load_now() -> float | None:
    load = load_average()
    return load[0] if load else None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options; a bad one exits 2 (argparse's own status)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, help="the draw's seed (default: from the clock, printed first)")
    parser.add_argument("--servers", default=",".join(SERVERS),
                        help=f"the servers drawn from, in order (default {','.join(SERVERS)}; the seeds in "
                             f"docs/methodology.md before tinysshd joined: {','.join(FIRST_SERVERS)})")
    parser.add_argument("--scenarios", type=int, default=10, help="how many scenarios to measure (K)")
    parser.add_argument("--budget", default="2m", help="each sshbench run's --time-budget (default 2m)")
    parser.add_argument("--hand-runs", type=int, default=5, help="hand runs per scenario: their range is its spread")
    parser.add_argument("--hand-seconds", type=float, default=4.0, help="the shortest hand transfer, in seconds")
    parser.add_argument("--hand-commands", type=int, default=6, help="`ssh HOST true` per hand run")
    parser.add_argument("--keep", help="a directory to keep each scenario's sshbench results file in")
    parser.add_argument("--draws", help="only these draws of the seed (their numbers, as the kept files name "
                                        "them: scenario-R-draw-D), e.g. to measure a finding again: 3,31,33")
    args = parser.parse_args(argv)
    try:
        args.draws = sorted({int(d) for d in args.draws.split(",")}) if args.draws else None
    except ValueError:
        parser.error("--draws needs draw numbers, e.g. 3,31,33")
    if args.draws is not None and (args.draws[0] < 1 or args.seed is None):
        parser.error("--draws needs --seed (the draws of which seed) and numbers from 1")
    if args.scenarios < 1 or args.hand_runs < 1 or args.hand_commands < 1 or args.hand_seconds <= 0:
        parser.error("--scenarios, --hand-runs and --hand-commands need 1 or more, --hand-seconds above 0")
    if args.seed is not None and args.seed < 0:
        parser.error("--seed needs a whole number from 0")
    try:
        parse_duration(args.budget)
    except SshbenchError as exc:
        parser.error(f"--budget: {exc}")
    args.servers = tuple(args.servers.split(","))
    if not args.servers or any(server not in SERVERS for server in args.servers):
        parser.error(f"--servers takes names from {','.join(SERVERS)}, e.g. {','.join(FIRST_SERVERS)}")
    return args


def sweep(args: argparse.Namespace, cpu: str, rows: list[Row], refused: list[str]) -> None:
    """Draw, run sshbench, run the hand, print: until K rows, or until too many draws were refused."""
    cpus = placement.allowed()  # every CPU, for sshbench to split as for a user (the hand pins this process)
    draws = scenarios(args.seed, args.servers)
    with tempfile.TemporaryDirectory(prefix="bench-sweep-results-") as tmp:
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)  # a --keep that does not exist yet is made, not a traceback
        keep = tempfile.mkdtemp(prefix=f"sweep-{args.seed}-", dir=args.keep) if args.keep else tmp  # never overwrite
        drawn = 0
        while len(rows) < (len(args.draws) if args.draws else args.scenarios):
            if len(refused) >= REDRAWS * args.scenarios:
                print(f"stopped drawing: {len(refused)} draws refused before measuring")
                return
            sc, drawn = next(draws), drawn + 1
            if args.draws is not None:
                if drawn > args.draws[-1]:
                    return
                if drawn not in args.draws:
                    continue  # the seed's other draws: not measured, so the numbers stay the seed's
            before = load_now()
            try:  # a command's hand brackets sshbench's run: half its runs now
                earlier = hand_commands(sc, args, args.hand_runs // 2) if sc.commands else []
            except (SystemExit, SshbenchError, OSError):
                earlier = []  # the hand fails again after, and says why there
            out = Path(keep) / f"scenario-{len(rows) + 1}-draw-{drawn}.json"
            ours = run_ours(sc, args.budget, out, cpus)
            if isinstance(ours, str):
                refused.append(f"{sc.text}: {ours}")
                print(f"  refused before measuring, redrawn ({len(refused)} so far): {refused[-1]}", flush=True)
                continue
            try:
                hand, how, failed = *measure_hand(sc, ours, args, earlier), False
            except (SystemExit, SshbenchError, OSError) as exc:  # the hand's own failures (a pipeline, its link)
                hand, how, failed = [], str(exc.code if isinstance(exc, SystemExit) else exc)[:300], True
            rows.append(Row(len(rows) + 1, sc, ours, hand, how, failed, (before, load_now())))
            show(rows[-1], len(args.draws) if args.draws else args.scenarios, args.budget, cpu)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.seed is None:
        args.seed = time.time_ns() % 2**32
    print(f"seed {args.seed} (repeat: .venv/bin/python bench/scenario_sweep.py --seed {args.seed} --scenarios "
          f"{args.scenarios} --budget {args.budget} --servers {','.join(args.servers)})", flush=True)
    try:
        netns.check_can_emulate()
    except SshbenchError as exc:
        print(f"scenario_sweep: {exc}", file=sys.stderr)
        return exc.exit_code  # sshbench's own status for it (10)
    cpu = cpu_model()
    rows: list[Row] = []
    refused: list[str] = []
    interrupted = False
    try:
        sweep(args, cpu, rows, refused)
    except KeyboardInterrupt:  # what it started is ended by now (each scenario's ExitStack, the run's group)
        interrupted = True
    print()
    print(f"CPU {cpu}; seed {args.seed}; sshbench --time-budget {args.budget} per scenario; hand "
          f"{args.hand_runs} runs per scenario")
    print(markdown(rows))
    print()
    for text in refused:
        print(f"refused before measuring and redrawn: {text}")
    within = sum(not row.failures() for row in rows)
    print(f"{within} of {len(rows)} scenarios within acceptance ({len(refused)} draws refused before measuring and "
          f"redrawn{'; interrupted' if interrupted else ''})")
    return 130 if interrupted else 0


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        code = main()
    sys.exit(code)
