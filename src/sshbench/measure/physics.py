"""Checks every pipe sample must pass before it counts: a steady window, long enough, within the link's capacity.

Long enough means most of the transfer's bytes (a window of a late stream's tail says little) and many round
trips of its path.

A figure above what the link can carry is not a fast transfer but a
mistimed one (writer-side marks over buffers that were still filling gave
lz4 9.03 MB/s through a link whose ceiling, raw TCP x its ratio, was 8.86);
a steady window of a few round trips is TCP's ramp or one burst, not its
pace (0.16-0.7 s windows at rtt=20ms gave zstd 40.0 MB/s against a ceiling
of 38). Such a sample is kept in the results with the reason
(Sample.unusable) and counted nowhere; its case is re-sized larger so the
next one has the window it lacked (measure/loop.py).

The capacity is the link's own where it was given a rate (TCP payload per
second: the rate less IP and TCP headers at the link's MTU), else the best
raw TCP sample through the same path, times the streams (each stream is a
connection of its own). Bytes on the wire are what this is checked against:
the payload rate times the wire bytes per payload byte the sample itself
counted (ssh -v), so compression gets its ratio's due and no more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sshbench.analysis.physics.links import LOSS_SHARE
from sshbench.analysis.stats.stats import SET_ASIDE
from sshbench.plan.budget import MIN_WINDOW_SECONDS, sized, steady_mark
from sshbench.results.kinds import ReasonKind, Unusable
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Report, Sample
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.linkspec import LinkSpec

MIN_WINDOW_RTTS = 20  # a steady window spans at least this many round trips of its path
# ... and holds at least this share of the transfer's bytes (one stream's always holds half or more, from its mark):
# a stream that started late leaves a window of the others' last few MiB and its own tail (4 loopback streams of
# 19.5 MiB: windows of 0.04 s, 16% of the bytes)
MIN_WINDOW_SHARE = 0.25
# ... and runs at one pace: its second half's rate within this factor of its first half's. 16 streams through a
# 150 ms link still ramping or ending one by one ran their second halves at 0.53-0.65 of their first, and came to
# 74 MB/s where the same streams, longer, moved 93 by hand. A case is re-sized for this at most TREND_RESIZES
# times: a pace that still changes then is that configuration's own, and counts.
MAX_TREND = 1.3
TREND_RESIZES = 3
# A sample sshbench sized lasts at least this share of the data phase it was sized for (plan/budget.py
# target_seconds). Sizes come from a short warm-up, and where a path's pace grows for seconds that warm-up reads
# the ramp: 4 streams over rtt=20ms with 1% loss warmed up at 92 MB/s and then ran at 195, so samples sized for
# 4 s lasted 2.1 s, and their windows of 1.4 s read 0.90 of the hand. Such a sample is re-sized from its own pace.
MIN_PLANNED_SHARE = 2 / 3
AGAIN = "re-sized and measured again"  # a case sized automatically; one of a fixed --size is told what size to give
RATE_TOLERANCE = 0.01  # a link with a rate has an exact capacity: only timing granularity is forgiven
# Raw TCP's best sample is itself measured, on a shared machine, where one throughput sample varies 15-40%: the
# best of three or more is forgiven 15%, the best of fewer the full 40% (a 2-sample HPN-SSH run over rtt=20ms, which
# checks its cases against one or two raw TCP samples, exited 1 in a loaded CI, likely so)
MEASURED_TOLERANCE = 0.15
FEW_SAMPLES_TOLERANCE = 0.40
SETTLED_REFERENCE = 3  # raw TCP samples whose best is forgiven only MEASURED_TOLERANCE


@dataclass(frozen=True)
class Capacity:
    """What a path can carry: TCP payload bytes per second per connection, and how that was known."""

    bytes_per_second: float
    per_connection: bool  # raw TCP of one connection (scaled by a case's streams), not the link's line rate
    tolerance: float
    source: str  # for the reason: "the link's rate=50mbit", "raw TCP's best sample"


@dataclass(frozen=True)
class SetAside:
    """Why a good sample must not count: what it is, and its words (without the note that its case was re-sized,
    which `text` adds where a larger sample cures it)."""

    kind: Unusable
    why: str

    @property
    def text(self) -> str:
        """As the sample records it (Sample.unusable)."""
        return f"{self.why}; {AGAIN}" if self.kind.again else self.why


def link_capacity(link: LinkSpec, mtu: int | None) -> Capacity:
    """The TCP payload a link of this line rate and MTU carries per second (both directions alike)."""
    return Capacity(link.payload_bytes_per_second(mtu) or 0.0, False, RATE_TOLERANCE, "the link's line rate")


def measured_capacity(best_raw_tcp: float, samples: int) -> Capacity:
    """Raw TCP's best of `samples` counted samples (iperf3's figure counts as one)."""
    tolerance = MEASURED_TOLERANCE if samples >= SETTLED_REFERENCE else FEW_SAMPLES_TOLERANCE
    return Capacity(best_raw_tcp, True, tolerance, f"raw TCP's best sample of {samples} through the same path")


def checked(case: Case) -> bool:
    """The cases these checks apply to: pipe transfers of the cipher and MAC sweeps (not the references)."""
    return case.moves_data and case.is_pipe and case.kind in (CaseKind.CIPHER, CaseKind.MAC)


def _short(seconds: float) -> str:
    """Seconds under a threshold, rounded down: 0.498 s read "0.50 s, under 0.5 s" when rounded to nearest."""
    return f"{math.floor(round(seconds * 100, 6)) / 100:.2f}"  # round first: 0.29 * 100 is 28.999999999999996


def unusable(sample: Sample, case: Case, rtt: float | None, capacity: Capacity | None,
             trend: bool = True, sized: bool = False, planned: float | None = None) -> SetAside | None:
    """Why a good sample of `case` must not count (None: it counts). `rtt`: its path's round trip (None or 0 on
    loopback); `capacity`: what the path carries (None: not known, not checked); `trend`: whether a pace that
    changes within the window still sets the sample aside (not once its case was re-sized TREND_RESIZES times,
    nor at a fixed size, which no re-size can cure); `sized`: sshbench chose the size (a window under
    MIN_WINDOW_SECONDS is then re-sized; the user's --size or --sample-seconds is their choice of length, and
    counts; so is --runs N's count of samples, whose sizes still aim at the window); `planned`: the data phase
    sshbench sized the sample for (None where the user gave --size or --runs N), of which it must last
    MIN_PLANNED_SHARE."""
    if not sample.ok or not checked(case) or sample.timing is None:
        return None
    if not sample.steady_seconds or not sample.steady_bytes:
        if steady_mark(sample.size_bytes // case.streams) is None:
            return None  # a --size too small for any stream count to have one: every case is timed whole alike
        if case.streams == 1:
            return SetAside(Unusable.NO_WINDOW, "no steady window: too few of its bytes moved past its mark for one")
        return SetAside(Unusable.NO_WINDOW, "no steady window: its streams hardly overlapped or were too small for one")
    if sample.bytes_received and sample.steady_bytes < MIN_WINDOW_SHARE * sample.bytes_received:
        return SetAside(Unusable.NARROW_WINDOW, f"steady window of {sample.steady_bytes / sample.bytes_received:.0%} "
                        "of the bytes: its streams started too far apart for the window they shared")
    if rtt and sample.steady_seconds < MIN_WINDOW_RTTS * rtt:
        return SetAside(Unusable.FEW_ROUND_TRIPS, f"steady window {_short(sample.steady_seconds)} s, under "
                        f"{MIN_WINDOW_RTTS} round trips of {rtt * 1000:.0f} ms")
    if sized and sample.steady_seconds < MIN_WINDOW_SECONDS:
        return SetAside(Unusable.SHORT_WINDOW,
                        f"steady window {_short(sample.steady_seconds)} s, under {MIN_WINDOW_SECONDS:g} s")
    if planned and sample.data_seconds is not None and sample.data_seconds < MIN_PLANNED_SHARE * planned:
        return SetAside(Unusable.SHORT_PHASE, f"data phase {_short(sample.data_seconds)} s, under "
                        f"{MIN_PLANNED_SHARE:.0%} of the {planned:.2f} s it was sized for (its warm-up ran slower)")
    half = sample.steady_half_bytes
    # where a pace drifts within a window: several streams still ramping or ending one by one. One stream's halves
    # differ by the machine's noise and its path's losses alone (3-15% on loopback; 1.37-1.56x under load 2.6 through
    # a namespace's veth; 2.78x at rtt=20ms with 1% loss): its ramp is what the 20 round trips above are for
    # Nor where the senders lost segments in the window: each loss recovery changes the pace, and that is the path's
    # own (8 streams at rtt=40ms with 1% loss ran their second halves at 0.41-0.76x their first in every round; the
    # rule set 3 of 7 aside, and the case ended its 180 s budget with 3-4 counted samples)
    lossy = sample.tcp is not None and (sample.tcp.loss or 0.0) >= LOSS_SHARE
    if trend and half and sample.steady_bytes > half and case.streams > 1 and not lossy:
        pace = (sample.steady_bytes - half) / half
        if not 1 / MAX_TREND <= pace <= MAX_TREND:
            return SetAside(Unusable.NOT_STEADY, f"not steady: the window's second half ran at {pace:.2f}x its "
                            "first (a ramp, or streams ending one by one)")
    rate = sample.steady_bytes / sample.steady_seconds
    wire = sample.wire_bytes_sent if case.direction.value == "upload" else sample.wire_bytes_received
    per_payload = wire / sample.bytes_received if wire and sample.bytes_received else 1.0
    if capacity is None:
        return None
    limit = capacity.bytes_per_second * (case.streams if capacity.per_connection else 1)
    if rate * per_payload > limit * (1 + capacity.tolerance + block_uncertainty(case, sample.steady_bytes)):
        return SetAside(Unusable.ABOVE_CAPACITY, f"{rate / 1e6:,.2f} MB/s of payload is "
                        f"{rate * per_payload / 1e6:,.2f} MB/s on the wire, above the {limit / 1e6:,.2f} MB/s the path "
                        f"carries ({capacity.source}): mistimed, not counted")
    return None


def block_uncertainty(case: Case, steady_bytes: int) -> float:
    """The share of a steady window's bytes that an external decompressor's blocks leave uncertain: its receiver
    counts each stream's bytes after the decompressor, which writes a whole block at once, so each end of the
    window may be off by one block per stream (zstd over rate=50mbit, 4 streams: 0.999-1.007 of the line's payload
    capacity, the uncompressed cases 0.993-0.999; 2 streams over 30 Mbit at MTU 9000, 15 MB windows: 1.02-1.04)."""
    block = case.compressor.compressor.output_block
    return 2 * case.streams * block / steady_bytes if block and steady_bytes else 0.0


def path_of(report: Report, case: Case) -> tuple[float | None, Capacity | None]:
    """The round trip and the capacity of the path `case` crosses, from the run so far: an emulated link's given
    rate (its MTU from the run's facts), else the best counted raw TCP sample of that path, else a real host's
    iperf3 figure; (None, None) where nothing is known yet."""
    spec = report.options.link_named(case.link) if case.link else None
    remote = report.environment.server.remote
    rtt = spec.rtt_seconds if spec is not None else remote.round_trip_seconds if remote is not None else None
    if spec is not None and spec.rate_bits:
        facts = next((f for f in report.environment.links if f.label == case.link), None)
        return rtt, link_capacity(spec, facts.mtu if facts is not None and facts.mtu else None)
    best = [s.throughput_bytes_per_second for r in report.cases if r.case.kind is CaseKind.CONTROL
            and r.case.link == case.link for s in report.samples_of(r.case.id)
            if s.ok and not s.warmup and s.throughput_bytes_per_second]
    if best:
        return rtt, measured_capacity(max(b for b in best if b is not None), len(best))
    iperf = report.environment.server.iperf
    found = iperf.rate(case.direction.value) if iperf is not None and remote is not None else None
    return rtt, measured_capacity(found, 1) if found else None


def set_aside(record: CaseRecord, sample: Sample, report: Report, largest: int, planned: float) -> None:
    """A sample that fails these checks is kept but not counted (Sample.unusable), and its case, where sized
    automatically, larger from then on (at most `largest`): twice as large, or as large as its own pace needs to
    last `planned` seconds (plan/budget.py target_seconds), so the next one has what this one lacked."""
    if sample.warmup:
        return
    resized = sum(1 for s in report.samples_of(record.case.id) if s.unusable_kind is Unusable.NOT_STEADY)
    ours = record.size_source in ("auto", "warmup")  # sshbench chose the size, so it may grow it
    growing = ours and record.size_bytes < largest and report.options.mode == "decision"
    # a changing pace is cured by a larger size only: at the user's --size (or the file tools') it counts
    aside = unusable(sample, record.case, *path_of(report, record.case), trend=ours and resized < TREND_RESIZES,
                     sized=growing and report.options.adapt_length, planned=planned if growing else None)
    if aside is None:
        return
    said = aside.text
    if ours:
        paced = sized(sample.size_bytes / sample.data_seconds, planned, record.case.streams) \
            if sample.data_seconds else 0
        record.size_bytes = min(largest, max(record.size_bytes * 2, paced))
    elif aside.kind.again:  # the user's --size: kept, and the reason says what size would have the window
        needed = _needed(sample, record, path_of(report, record.case)[0])
        said = (f"{aside.why}; --size {_mib(record.size_bytes)} is too small for it: give --size {_mib(needed)} or "
                "more, or leave --size out")
    sample.unusable, sample.unusable_kind = said, aside.kind


GIVE_UP_AFTER = 4  # samples of a case set aside with none counted: then it is measured no further


def give_up_if_never_counted(record: CaseRecord, report: Report) -> bool:
    """Stop a case whose last GIVE_UP_AFTER samples were all set aside and none ever counted: each re-size made
    the next sample longer, and such a case (behind a wrong path MTU, every sample of a full link) took the
    whole budget and ended the run with nothing. Left out of the schedule (SKIPPED) with the first reason and
    how many; the run's end makes it FAILED (measure/loop.py), so the exit code and the results say so."""
    mine = [s for s in report.samples_of(record.case.id) if not s.warmup and s.ok]
    if len(mine) < GIVE_UP_AFTER or any(not s.unusable for s in mine):
        return False
    record.status = CaseStatus.SKIPPED
    record.set_reason(f"{SET_ASIDE}{mine[0].unusable} ({len(mine)} samples, none counted: measured no further; "
                      "the results file has each one)", ReasonKind.SET_ASIDE)
    return True


def size_too_small(sample: Sample, record: CaseRecord, report: Report) -> str | None:
    """Where the user's --size left the warm-up (a sample of that very size) no steady window that could count,
    why, and the size to give: said before the counted samples, which would all be set aside for it (16 MiB of
    zstd text, and 16 streams of 256 MiB over 20 ms, measured for minutes and ended in exit 1)."""
    if record.size_source in ("auto", "warmup", "file") or not sample.ok or report.options.size_bytes is None:
        return None
    rtt, _ = path_of(report, record.case)
    aside = unusable(sample, record.case, rtt, None, trend=False)
    if aside is None or not aside.kind.again:
        return None
    needed = _needed(sample, record, rtt)
    return (f"{record.case.id}: its warm-up at --size {_mib(record.size_bytes)} had {aside.why}, "
            f"so no sample of that size would count: give --size {_mib(needed)} or more, or leave --size out "
            "(sshbench then sizes each case from its warm-up)")


def check_sizes(report: Report, records: dict[str, CaseRecord]) -> None:
    """A --size too small for a steady window, as the warm-up (a sample of that size) shows: refused now
    (UsageError), with the size to give, not after every counted sample was set aside for it."""
    if report.options.size_bytes is None:
        return
    for sample in (s for s in report.samples if s.warmup):
        record = records.get(sample.case_id)
        if record is not None and record.status is not CaseStatus.SKIPPED \
                and (why := size_too_small(sample, record, report)) is not None:
            raise UsageError(why)


def _needed(sample: Sample, record: CaseRecord, rtt: float | None) -> int:
    """The size whose steady window would pass: twice this one, or, where the window was short in round trips,
    the bytes MIN_WINDOW_RTTS of them carry at this sample's pace over the share of the bytes its window held."""
    need = 2 * record.size_bytes
    if rtt and sample.steady_seconds and sample.steady_bytes and sample.bytes_received:
        pace = sample.steady_bytes / sample.steady_seconds
        share = sample.steady_bytes / sample.bytes_received
        need = max(need, int(1.5 * MIN_WINDOW_RTTS * rtt * pace / share))  # 1.5: the pace varies between samples
    return need


def _mib(size: int) -> str:
    """A size as --size takes it: whole MiB, rounded up to a power of two."""
    mib = 1
    while mib * 1024 * 1024 < size:
        mib *= 2
    return f"{mib}MiB"
