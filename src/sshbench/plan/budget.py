"""The time budget: shared by the hosts of a run, and checked against what the run must measure.

Several hosts in one run share one time budget and one byte cap. The
minimum a run promises (an interval for every case) is timed against it
twice: before anything is measured, from the plan and prior guesses of what
a visit takes (`minimum_before`, deliberately on the short side: it refuses
only what cannot fit), and after the warm-up, from what the warm-up
measured. A budget too small for it is said at once, with what it would
take and what to leave out; `--fit` leaves those out instead.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from sshbench.analysis.stats.verdicts import SETUP_RUNS_FACTOR
from sshbench.methods import PIPE
from sshbench.options import RunOptions
from sshbench.plan.losspace import loss_paced
from sshbench.results.model import Case, CaseRecord, CaseStatus, Sample
from sshbench.vocabulary.case_terms import CaseKind, Direction
from sshbench.vocabulary.linkspec import LinkSpec

# The minimum must fit with this much to spare: sample times vary 15-40% on a shared machine.
FIT_MARGIN = 1.1


def host_share(options: RunOptions, spent: tuple[float, int], hosts_left: int) -> RunOptions:
    """This host's part of the time budget and byte cap: what is left, split over the hosts still to go.

    A host that finishes early leaves its remainder to the next ones; the run as a whole stays within both.
    """
    seconds, sent = spent
    budget = None if options.time_budget_seconds is None else \
        max(1.0, (options.time_budget_seconds - seconds) / hosts_left)
    cap = None if options.max_bytes is None else max(0, (options.max_bytes - sent) // hosts_left)
    return dataclasses.replace(options, time_budget_seconds=budget, max_bytes=cap, budget_shared_by=hosts_left)


def duration(seconds: float) -> str:
    """'2 min 48 s', for messages."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def option_for(case: Case, options: RunOptions) -> str | None:
    """The option that leaves this case out of a run (None when no single option does)."""
    if case.kind in (CaseKind.CONTROL, CaseKind.CEILING):
        return "--no-controls"
    if case.kind is CaseKind.MAC:
        return "--macs none"
    if case.kind is CaseKind.KEX:
        return "--kex none"
    if case.kind is CaseKind.HOSTKEY:
        return "--hostkeys none"
    if not case.is_pipe:
        return "--method pipe"
    if len(options.directions) > 1:
        keep = "upload" if case.direction is Direction.DOWNLOAD else "download"
        return f"--directions {keep}"
    return None


@dataclass(frozen=True)
class Guesses:
    """What a visit takes, guessed before anything is measured (the warm-up replaces these)."""

    setup: float  # ssh start, handshake, remote shell, on loopback
    fixed: float  # the start of an upload's data phase, before the stream runs at full rate
    rate: float  # bytes/s of a fast cipher on loopback (the warm-up's 64 MiB at it)
    file_rate: float


# The short side of what 2-vCPU VMs show (set-up 0.07-0.08 s measured on an idle and on a loaded Xeon VM; fixed
# 0.08-0.12 s): the check before measuring refuses only budgets that surely cannot fit.
QUICK = Guesses(setup=0.08, fixed=0.1, rate=800e6, file_rate=400e6)
# A busy 2-vCPU VM (set-up 0.3-0.6 s measured on an EPYC VM at load 4-6, where a login shell's rc files run): what
# --plan says a run may need there, and what every example in the docs must fit (tests/unit/test_examples.py).
BUSY = Guesses(setup=0.5, fixed=0.15, rate=300e6, file_rate=150e6)
LOGIN_ROUND_TRIPS = 6  # a login's round trips across a link
CEILING_SECONDS = 1.1
REFERENCE_VISITS = 3
CHANNEL_WINDOW = 2 * 1024 * 1024


# The steady state of a pipe sample (measure/pipe.py) starts when 1/STEADY_FROM of its bytes have moved, and
# never before STEADY_AFTER: what an upload can have written but not yet delivered (our 1 MiB pipe, ssh's input
# buffer and SSH's 2 MiB channel window, which also bounds what TCP and an emulated link hold), with room to spare.
# A writer's marks measure delivery only once those are full; a sample too small for that is timed whole.
STEADY_FROM = 4
STEADY_AFTER = 8 * 1024 * 1024


def steady_mark(size: int) -> int | None:
    """Bytes after which a transfer of `size` is in its steady state (pipe samples and the raw TCP control
    alike), or None when it is too small to have one and is timed whole."""
    start = max(size // STEADY_FROM, STEADY_AFTER)
    return start if start <= size // 2 else None


# Over a delayed link a sample must last long enough that its steady state (the last three quarters of its bytes,
# measure/pipe.py) comes after TCP's ramp (slow start to a 2 MiB window: about 8 round trips) and spans many round
# trips: at least this many RTTs of data.
LINK_STEADY_RTTS = 40
# Over a lossy link a stream's pace falls for seconds after its start (AMD EPYC, rtt=40ms with 1% loss, one stream
# by hand from one shell, medians of 9 runs a size: 28.7 MB/s between 8 and 32 MiB, 25.6 between 32 and 128, 26.5
# between 8 and 256; sshbench's own windows in samples of 32 and 128 MiB: 27.7 and 26.5), so samples of
# LINK_STEADY_RTTS read the early pace: 1.03-1.14 of a hand's 4-s transfers in 10 of 12 bench runs. A lossy link's
# samples hold this many round trips of data, and their windows the long run's pace.
LOSSY_STEADY_RTTS = 100
# ... and, with several streams, never less than this many seconds whatever the round trip: where 100 round trips
# are short, several streams' pace under loss was still growing past them (AMD EPYC, aes128-gcm upload, 4 streams
# from one shell as the hand: rtt=20ms with 1% loss, windows of 0.85-1.42 s read 0.90 of the hand, of about 3 s
# 0.98), while one stream read 0.99-1.03 at 5, 20 and 40 ms in 100 round trips. The 4 s that 100 round trips are at
# 40 ms, where every stream count agreed with the hand (bench/remedies_vs_hand.py, docs/streams.md). One stream gets
# less (below): a default run's sweep over a lossy link of 5 or 20 ms would not fit its budget at 4 s.
LOSSY_DATA_SECONDS = 4.0
# ... and one stream never less than this: where 100 round trips are a fraction of a second, one stream's pace
# under loss still grows past them (AMD EPYC, one OpenSSH download over rtt=3ms with 0.04% loss, by hand, 5 runs a
# size interleaved: 48 MiB 121.8 MB/s, 96 MiB 142.3, 490 MiB 156.3; sshbench's 0.3-s samples read 0.83 of the
# 490 MiB hand, the scenario sweep's only row outside its acceptance). Over 20 ms and more, 100 round trips are
# already this long, so only short lossy links' samples grow.
LOSSY_ONE_STREAM_SECONDS = 2.0
# The raw TCP control over a delayed link ramps for seconds (measured at 80 ms: 23 MB/s in 1 s samples, 32 MB/s in
# 6.5 s, 33 MB/s in 19 s timed whole): its samples last at least this long, and are timed over their steady state
# (the last three quarters of the bytes, as a pipe sample is, measure/controls.py).
LINK_CONTROL_SECONDS = 5.0


# A steady window of a sample sshbench sized lasts at least this long (measure/physics.py sets a shorter one
# aside): one scheduling hiccup of a loaded machine is a large share of a short window and only ever slows it.
# One loopback stream in 0.12-0.15 s windows read 1266 and 1447 MB/s in two runs, 1632-1660 in runs whose windows
# were 0.96-1.66 s, and its 2-stream rival (0.4-1.0 s windows) was picked "different, 1.15x" over it; every window
# of 0.6 s or more agreed with the hand (bench/remedies_vs_hand.py)
MIN_WINDOW_SECONDS = 0.5
MIN_DATA_SECONDS = MIN_WINDOW_SECONDS * STEADY_FROM / (STEADY_FROM - 1)  # the data phase that holds it


def sweep_seconds(options: RunOptions) -> float:
    """The data phase a sweep's pipe sample is sized for: --sample-seconds as the user gave it, else never under
    MIN_DATA_SECONDS (the default and the noise design's lengths)."""
    return max(options.sample_seconds, MIN_DATA_SECONDS) if options.adapt_length else options.sample_seconds


def target_seconds(case: Case, options: RunOptions) -> float:
    """How long a sample's data phase should last (the warm-up sizes it so): --sample-seconds, but a pipe
    sample of the sweeps at least MIN_DATA_SECONDS unless the user gave that length; longer over a delayed or
    lossy emulated link (steady_seconds; the raw TCP control LINK_CONTROL_SECONDS)."""
    link = options.link_named(case.link)
    base = sweep_seconds(options) if case.is_pipe and case.kind in (CaseKind.CIPHER, CaseKind.MAC) \
        else options.sample_seconds
    floor = steady_seconds(link, case.streams) if link is not None else 0.0
    if not floor:
        return base
    if case.kind is CaseKind.CONTROL:
        return max(options.sample_seconds, LINK_CONTROL_SECONDS)
    return max(base, floor)


def steady_seconds(link: LinkSpec, streams: int = 1) -> float:
    """The data phase a sample over `link` lasts at least, whatever --sample-seconds says: LINK_STEADY_RTTS round
    trips, or where it loses packets LOSSY_STEADY_RTTS and never under LOSSY_ONE_STREAM_SECONDS (one stream) or
    LOSSY_DATA_SECONDS (several)."""
    if link.loss:
        return max(LOSSY_STEADY_RTTS * link.rtt_seconds, LOSSY_DATA_SECONDS if streams > 1 else
                   LOSSY_ONE_STREAM_SECONDS)
    return LINK_STEADY_RTTS * link.rtt_seconds


Windows = Callable[[Case], int | None]  # a case's receiving side's channel window (None: OpenSSH's 2 MiB)


def visit_guess(case: Case, options: RunOptions, rtt: float, warmup: bool, file_bytes: int = 0,
                guesses: Guesses = QUICK, windows: Windows | None = None) -> float:
    """Seconds one visit of `case` takes, as guessed before anything is measured. Over a round trip each stream
    moves at most its receiver's window per RTT: Dropbear's 24 KiB, 4 streams over 77 ms, is 1.3 MB/s where the
    link's line rate said 6.8, and a 90-s budget the line rate let through ran out in the warm-up. The window
    holds channel bytes: SSH's zlib compresses below the channel, so its payload is windowed as is, but an external
    compressor's payload crosses the window compressed, by a ratio unknown before measuring (data that does not
    compress aside), and a guess that windowed it refused a Dropbear lz4 upload of text over 7 ms (1 min 31 s
    guessed for its 90 s)."""
    if case.kind is CaseKind.CEILING:
        return CEILING_SECONDS
    setup = guesses.setup + LOGIN_ROUND_TRIPS * rtt
    if not case.moves_data:
        return setup
    window = (windows(case) if windows is not None else None) or CHANNEL_WINDOW
    windowed = rtt > 0 and not compresses(case, options, channel=True)
    rate = min(guesses.rate, case.streams * window / rtt) if windowed else guesses.rate
    line = known_pace(options.link_named(case.link), case, options)
    rate = min(rate, line) if line else rate
    if not case.is_pipe:  # a file tool: the 1-byte run, then the file
        return 2 * setup + file_bytes / min(guesses.file_rate, rate)  # the window and the line bound them too
    if options.size_bytes:  # --size: every visit, the warm-up's too, moves that much
        return setup + guesses.fixed + options.size_bytes / rate
    if warmup:
        return setup + warmup_bytes(case, options) / rate
    # a sized sample lasts its target, but never moves less than the smallest automatic size: over a slow link
    # that floor, not the target, sets its length (32 MiB at 20 Mbit/s is 14 s, where the target is 0.67 s)
    smallest = max(MIN_AUTO_SIZE, case.streams * MIN_STREAM_SIZE)
    return setup + guesses.fixed + max(target_seconds(case, options), smallest / rate)


WARMUP_LINE_SECONDS = 8.0  # a warm-up over a rate-limited link lasts about this long at its line rate


def warmup_bytes(case: Case, options: RunOptions) -> int:
    """The warm-up's size: --warmup-bytes, or less where the case's link's line rate or its loss says it would
    take long (64 MiB at 10 Mbit/s is 54 s before loss, at 0.5% loss over 20 ms with CUBIC and MTU 1500 about
    60 s; measure/pace.py, plan/losspace.py), never under a steady window's floor."""
    floor = case.streams * 2 * STEADY_AFTER
    line = known_pace(options.link_named(case.link), case, options)
    if not line:
        return max(options.warmup_bytes, floor)
    return max(floor, min(options.warmup_bytes, int(line * WARMUP_LINE_SECONDS)))


def compresses(case: Case, options: RunOptions, channel: bool = False) -> bool:
    """Whether the case's compression may shrink what crosses the line (`channel`: the SSH channel, which SSH's
    own zlib, compressing below it, does not shrink) by a ratio unknown before measuring; random data cannot."""
    compression = case.compressor
    return options.data != "random" and (compression.external if channel else not compression.is_off)


def known_pace(link: LinkSpec | None, case: Case, options: RunOptions) -> float | None:
    """The payload bytes/s a case can be expected to move before it is measured: its link's line rate less IP and
    TCP headers at its MTU or, over a lossy path under a loss-based congestion control, the Mathis estimate
    (plan/losspace.py), the smaller where both are known. None: neither is known, or compression may multiply
    what the line carries (none, or random data, cannot grow; the guess stays on the short side: it refuses only
    what cannot fit)."""
    if link is None or compresses(case, options):
        return None
    known = [pace for pace in (link.payload_bytes_per_second(), loss_paced(link, case.streams)) if pace]
    return min(known) if known else None


def minimum_before(cases: list[Case], options: RunOptions, rtt: dict[str, float],
                   file_bytes: int = 0, guesses: Guesses = QUICK, windows: Windows | None = None) -> dict[Case, float]:
    """Per case, the guessed seconds of its warm-up and its minimum visits (the run's promise), before measuring."""
    out = {}
    for case in cases:
        if options.mode == "fixed":
            visits = options.runs if case.moves_data else options.setup_runs
        else:
            visits = REFERENCE_VISITS if case.kind in (CaseKind.CONTROL, CaseKind.CEILING) else options.min_runs
        link = rtt.get(case.link, 0.0)
        warm = 0.0 if case.kind is CaseKind.CEILING else \
            visit_guess(case, options, link, True, file_bytes, guesses, windows)
        out[case] = warm + (visits or 0) * visit_guess(case, options, link, False, file_bytes, guesses, windows)
    return out


def largest_savings(needed: dict[Case, float], options: RunOptions) -> dict[str, float]:
    """Option -> the seconds it would save, largest first. Where the two directions save alike (a sweep over a
    link), upload is kept: what backups, scp and rsync pushes do, and the direction the docs' link figures use."""
    savings: dict[str, float] = defaultdict(float)
    for case, seconds in needed.items():
        if (option := option_for(case, options)) is not None:
            savings[option] += seconds
    return dict(sorted(savings.items(), key=lambda item: (-round(item[1], 6), item[0] == "--directions download")))


def option_to_leave_out(needed: dict[Case, float], options: RunOptions) -> str | None:
    """The option --fit leaves out next: the one that saves most (largest_savings) among those that leave a case
    to measure. Where the cases left were uploads alone of a run of both directions, "--directions download"
    (the option that drops uploads) saved most and left the run with nothing, in the warm-up's check as before."""
    for option in largest_savings(needed, options):
        kept = (case for case in needed if option_for(case, options) != option)
        if option in LEAVE_OUT and any(case.kind not in (CaseKind.CONTROL, CaseKind.CEILING) for case in kept):
            return option
    return None


def too_long(needed: dict[Case, float], spent: float, left: float, options: RunOptions, before: bool = False) -> str:
    """Why the minimum cannot fit, what it would take, and what to leave out (largest saving first).

    `needed`: seconds each case still needs for its minimum, FIT_MARGIN included.
    """
    total = sum(needed.values())
    savings = largest_savings(needed, options)
    drops = list(savings.items())
    references = sum(1 for case in needed if case.kind in (CaseKind.CONTROL, CaseKind.CEILING))
    less = "; ".join(f"{option} saves {duration(seconds)}" for option, seconds in drops[:4])
    shared = options.budget_shared_by
    budget = "the time budget" if shared == 1 else f"this host's share of the time budget (1 of {shared})"
    how = (f"at least, guessed before measuring, {FIT_MARGIN - 1:.0%} to spare" if before else
           f"as the warm-up measured them, {FIT_MARGIN - 1:.0%} to spare")
    cases = len(needed) - references
    counted = f"{cases} case{'s' * (cases != 1)}" + (f" and {references} reference{'s' * (references != 1)}"
                                                     if references else "")
    return (f"the minimum ({options.min_runs} samples of each case, for an interval) for {counted} needs about "
            f"{duration(math.ceil(total))} more ({how}), and {budget} "
            f"leaves {duration(math.floor(max(0.0, left)))}: raise "
            f"--time-budget to {math.ceil((spent + total) * shared / 60)}m or more, or measure less "
            f"({less or 'fewer algorithms, or a smaller --size'}; --fit leaves out the largest)")


def leave_out_slowest(records: dict[str, CaseRecord], needed: dict[Case, float], why: str,
                      reference: str | None = None) -> dict[Case, float]:
    """A fitted run (--fit, or the default budget) whose minimum still does not fit once every option --fit names
    is spent: the case whose minimum takes longest is left out, saying so, down to one case. A change (streams,
    compression, a declared axis) goes before any plain case (one connection, no compression: what every change is
    compared with), and the plain cases of `reference` (the client's default cipher: the plain transfer of the
    link answer) go last, unless sshbench added them (CaseRecord.added): then they go first. It refused here, after
    minutes of warm-up, where the sizes it measured said what would fit; that one case then runs to the budget
    (its interval may fall short, and says so)."""
    if len(needed) <= 1:
        return {}  # the smallest scope: measured as far as the budget goes
    slowest = max(needed, key=lambda case: (records[case.id].added, not case.plain, case.cipher != reference,
                                            needed[case], case.id))
    record = records[slowest.id]
    record.status = CaseStatus.SKIPPED
    record.set_reason(f"left out to fit the time budget (the slowest case left, {needed[slowest]:.0f} s): {why}")
    return {case: seconds for case, seconds in needed.items() if case != slowest}


# What --fit may leave out, and how: the options too_long names, as RunOptions changes (before measuring,
# orchestrate/run.py; after the warm-up, measure/loop.py)
LEAVE_OUT: dict[str, dict[str, object]] = {
    "--hostkeys none": {"hostkeys": "none"}, "--kex none": {"kex": "none"}, "--macs none": {"macs": "none"},
    "--no-controls": {"controls": False}, "--method pipe": {"methods": (PIPE,)},
    "--directions upload": {"directions": (Direction.UPLOAD,)},
    "--directions download": {"directions": (Direction.DOWNLOAD,)},
}


MAX_RUNS_FROM_BUDGET = 200  # the most samples per throughput case a budget raises --max-runs to


def runs_cap(cases: list[Case], options: RunOptions, rtt: dict[str, float], share: float) -> int:
    """max_runs for a run that was not given --max-runs (decision mode): the default, or as many samples of
    every case as its share of the budget could take at the quick guesses, up to MAX_RUNS_FROM_BUDGET. Chosen
    before anything is measured, so the looks it plans (analysis/stats/verdicts.py) are fixed in advance. Without it a
    narrow run with a long budget (one cipher on two builds, 6 minutes) stopped its open comparisons at 30
    samples, "futile" at that cap, with most of its time unused."""
    if options.mode != "decision" or not options.max_runs_auto or not math.isfinite(share):
        return options.max_runs
    per_pass = sum(visit_guess(case, options, rtt.get(case.link, 0.0), False) /
                   (1 if case.moves_data else SETUP_RUNS_FACTOR)
                   for case in cases if case.kind not in (CaseKind.CONTROL, CaseKind.CEILING))
    if per_pass <= 0:
        return options.max_runs
    return max(options.max_runs, min(MAX_RUNS_FROM_BUDGET, int(share / per_pass)))


MIB = 1024 * 1024
MIN_AUTO_SIZE = 4 * STEADY_AFTER  # the smallest size with a steady state (measure/pipe.py) of 3/4 of its bytes
MAX_AUTO_SIZE = 64 * 1024 * MIB
MIN_STREAM_SIZE = 2 * STEADY_AFTER  # each stream's share of a --streams sample: enough for a steady state


def auto_size(warmup: Sample, target_seconds: float, streams: int = 1) -> int | None:
    """Bytes for one sample to last about `target_seconds`, from the warm-up's rate (whole MiB); with several
    streams, enough that each stream's share has a steady state of its own."""
    rate = warmup.throughput_bytes_per_second
    return None if rate is None else sized(rate, target_seconds, streams)


def sized(rate: float, target_seconds: float, streams: int = 1) -> int:
    """Bytes that last about `target_seconds` at `rate` (whole MiB, within the automatic sizes' bounds)."""
    size = int(rate * target_seconds) // MIB * MIB
    return max(MIN_AUTO_SIZE, streams * MIN_STREAM_SIZE, min(MAX_AUTO_SIZE, size))
