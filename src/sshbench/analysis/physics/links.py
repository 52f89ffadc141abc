"""What limited each transfer case: a CPU, the link, or SSH's own flow-control window.

One SSH channel carries at most its receiver's window per round trip,
whatever the cipher (OpenSSH: channels.h, CHAN_SES_WINDOW_DEFAULT = 64 x
32 KiB = 2 MiB; sftp also keeps at most -R requests of -B bytes in flight,
64 x 32 KiB by default). So each case has three ceilings measured or
computed in the same run: the CPUs on either side (CPU s/GiB x rate, against
a full core per process and the side's CPUs together), raw TCP through the
very same link (the control case of that link; iperf3 to a real host) and
window / measured RTT. The verdict names the one the case reached (80% of
it or more). A case that reached none, on a path where its own sending
TCP sockets resent segments (their counters over the steady window,
results/tcpfacts.py), is loss-bound: every lost segment holds SSH's
in-order stream up for about a round trip while the channel window
waits, and the congestion window shrinks (rtt=40ms, 1% loss: 42% of the
window's pace). Only a case with neither is "below every limit" (its
tool's own round trips, or CPUs shared with other work) - never guessed.

Streams and compression change the ceilings, not the rule: N connections
have N windows and N processes per side; compression puts fewer bytes on
the link than the payload holds (the wire bytes ssh -v counts), and an
external compressor's bytes are what fill the channel's window, while SSH's
own zlib compresses below the channel, so its window counts the payload.

results/views.py restricts a report to one link's cases, so every table
sshbench already draws can be drawn per link.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from sshbench.analysis.physics.advice import (
    CPU_BOUND_SHARE,
    LINK_FULL_SHARE,
    WINDOW_BOUND_SHARE,
    core_shares,
    receive_window,
)
from sshbench.analysis.physics.references import raw_tcp, references
from sshbench.analysis.physics.windows import receiver
from sshbench.analysis.stats.stats import counted
from sshbench.compressors import OFF_CHOICE, Choice
from sshbench.results.environment import LinkFacts
from sshbench.results.model import Case, CaseKind, CaseView, Report, Stat, Summary
from sshbench.vocabulary.linkspec import LOSS_BASED

# A sending socket that resent this share of its data segments or more in the steady window, on a case that
# reached neither its window nor the link, was held back by loss (loopback and clean links resend under 0.1%)
LOSS_SHARE = 0.002
# ... unless another case of the same path, server and client moved this many times as much per stream without
# compression (a lower bound of what the loss lets one connection move there): then loss did not hold this one.
# A 2-stream SSH zlib upload over rtt=4ms with 0.92% loss (BBR) read 6.8 MB/s, 2.2 on the wire, beside another
# process on the client's CPU, and was called loss-bound, where the plain transfer beside it filled the line at 23.9
LOSS_OUTPACED = 2.0


@dataclass(frozen=True)
class Bound:
    """What limited one transfer case, with the ceilings it is compared with."""

    case_id: str
    link: str  # "" on loopback or to a real host
    method: str
    cipher: str
    direction: str
    build: str  # "" without --build
    stat: Stat  # payload bytes/s of the data phase: median and its interval
    rtt: float | None  # measured on the link (median TCP connect time), or to the real host
    window: int | None  # bytes one channel (or sftp's requests) may have in flight; None: not known
    tcp: float | None  # raw TCP through the same link (or iperf3 to the host), bytes/s (None: not measured)
    shares: dict[str, float]  # side -> cores used while the data moved, all its processes together
    streams: int = 1
    compression: Choice = OFF_CHOICE
    wire_ratio: float | None = None  # bytes on the link per payload byte (None: not counted)
    cores: dict[str, int | None] = field(default_factory=dict)  # side -> CPUs it could use (None: unknown)
    compressor_shares: dict[str, float] = field(default_factory=dict)  # side -> cores its compressors used
    loss: float | None = None  # share of data segments its sending sockets resent in the steady window (median)
    congestion: str | None = None  # the senders' congestion control ("bbr", "cubic" ...)
    dims: tuple[tuple[str, str], ...] = ()  # the case's declared-axis values (Case.dims)
    reference: str = "raw TCP"  # what `tcp` is: raw TCP (or iperf3), or the line's payload capacity (no control ran)
    # The --client whose window `window` is (a download of its case: analysis/physics/windows.py), and its knob that
    # sets that window ("-W"); "": the run's ssh or the server receives
    receiver: str = ""
    knob: str = ""
    # Raw TCP's own share of segments resent through the same link (None: not read, or no control), and the line's
    # payload bytes/s (None: no rate= or a real host): together they say whether raw TCP was itself held by loss
    reference_loss: float | None = None
    line: float | None = None
    # The most payload bytes/s per stream an uncompressed case of the same link, direction, method, build and
    # declared axes moved (None: no other such case): what the path's loss lets one connection of that window do
    outpaced: float | None = None
    # The share of the steady windows its emulated line was busy, by the wire's own count (median over the counted
    # samples; None: no rate-limited emulated link). Below the ceiling with the line idle, the pace was set before
    # the line: the sender, or on a busy machine the wire itself waiting for a CPU (docs/links.md)
    line_full: float | None = None

    @property
    def loss_paced_reference(self) -> bool:
        """Raw TCP through this link was held by loss, not by the line: a loss-based congestion control gives one
        connection about MSS/RTT x 1.22/sqrt(loss) (Mathis et al. 1997, plan/losspace.py) and each of N streams
        gets as much, so a case that matches it (N times it) is loss-bound, and the link's capacity is unknown.
        rtt=10ms,loss=1%,cc=cubic: raw TCP 9 MB/s, four SSH streams 33 MB/s, which "link" called "the link is full
        (376% of raw TCP)"."""
        if self.reference != "raw TCP" or self.reference_loss is None or self.reference_loss < LOSS_SHARE:
            return False
        if not self.congestion or any(name not in LOSS_BASED for name in self.congestion.split("+")):
            return False  # BBR does not back off on random loss: its raw TCP is the link's to say
        return not (self.line and self.tcp and self.tcp >= LINK_FULL_SHARE * self.line)

    @property
    def link_limit(self) -> float | None:
        """Bytes/s on the link the case could reach: raw TCP's (N times one loss-paced connection's)."""
        if self.tcp and self.loss_paced_reference:
            return self.tcp * self.streams
        return self.tcp

    @property
    def resent(self) -> float | None:
        """The case's own sockets' resent share, or raw TCP's through the same link where its own were not read."""
        return self.loss if self.loss is not None else self.reference_loss if self.loss_paced_reference else None

    @property
    def rate(self) -> float:
        return self.stat.median

    @property
    def wire_rate(self) -> float:
        """Bytes/s on the link: the payload rate, less what compression saved."""
        return self.rate * (self.wire_ratio if self.wire_ratio is not None and not self.compression.is_off else 1.0)

    @property
    def channel_rate(self) -> float:
        """Bytes/s through the SSH channels: compressed by an external compressor, not by SSH's own zlib."""
        return self.wire_rate if self.compression.external else self.rate

    @property
    def window_limit(self) -> float | None:
        """Channel bytes/s the windows allow: N windows per round trip."""
        return self.streams * self.window / self.rtt if self.window and self.rtt else None

    @property
    def busy(self) -> list[str]:
        """Sides whose CPU set the pace: every CPU the side had, or each ssh (or compressor) at a full core."""
        out = []
        for side, share in self.shares.items():
            compressors = self.compressor_shares.get(side, 0.0)
            ssh = max(0.0, share - compressors)
            cores = self.cores.get(side)
            if (cores and share >= CPU_BOUND_SHARE * cores) or ssh / self.streams >= CPU_BOUND_SHARE \
                    or compressors / self.streams >= CPU_BOUND_SHARE:
                out.append(side)
        return out

    @property
    def verdict(self) -> str:
        """cpu, window, link, loss or none: the ceiling this case reached, or what held it below them."""
        if self.busy:
            return "cpu"
        limits = {"window": (self.window_limit, self.channel_rate, WINDOW_BOUND_SHARE),
                  "link": (self.link_limit, self.wire_rate, LINK_FULL_SHARE)}
        reached = {name: limit / rate for name, (limit, rate, share) in limits.items()
                   if limit and rate >= share * limit}
        if not reached:
            return "loss" if self.held_by_loss else "none"
        tighter = min(reached, key=lambda name: reached[name])  # the tighter of the two it reached
        return "loss" if tighter == "link" and self.loss_paced_reference else tighter

    @property
    def held_by_loss(self) -> bool:
        """Its sockets resent a share that holds a stream back, and no case of the same path, server and client
        showed the loss lets one connection move far more (LOSS_OUTPACED) on the wire."""
        if self.resent is None or self.resent < LOSS_SHARE:
            return False
        return not (self.outpaced and self.outpaced >= LOSS_OUTPACED * self.wire_rate / self.streams)

    @property
    def link_share(self) -> float | None:
        """How full the link was: bytes on the link over raw TCP's (None where raw TCP was itself loss-paced: then
        the link's capacity was not measured)."""
        return self.wire_rate / self.tcp if self.tcp and not self.loss_paced_reference else None

    @property
    def short(self) -> str:
        """The cell text: the verdict with how close the case came to that ceiling."""
        if self.verdict == "cpu":
            return f"CPU ({'+'.join(self.busy)})"
        if self.verdict == "window" and self.window_limit:
            return f"window {self.channel_rate / self.window_limit:.0%}"
        if self.verdict == "link" and self.tcp:
            return f"link {self.wire_rate / self.tcp:.0%}"
        if self.verdict == "loss" and self.resent is not None:
            return f"loss {self.resent:.1%} resent"
        if self.line_full is not None:  # the emulator's own count says how far from full the line stayed
            return f"below limits, line busy {self.line_full:.0%}"
        return "below limits"

    @property
    def _flow_control(self) -> str:
        """What held the channel to its window: SSH's flow control, or a receiving --client's own window."""
        if not self.receiver:
            return "SSH's flow control"
        return f"{self.receiver}'s receive window{f' ({self.knob})' if self.knob else ''}"

    @property
    def text(self) -> str:
        said = [f"{self.rate / 1e6:,.1f} MB/s"]
        if not self.compression.is_off and self.wire_ratio:
            said.append(f"{self.wire_rate / 1e6:,.1f} MB/s on the wire ({1 / self.wire_ratio:.2f}:1 "
                        f"{self.compression.label})")
        if self.window_limit and self.window and self.rtt:
            streams = f"{self.streams} x " if self.streams > 1 else ""
            whose = f"{self.receiver}'s " if self.receiver else ""  # a receiving --client's own window, with its knob
            knob = f" ({self.knob})" if self.knob else ""
            said.append(f"window limit {streams}{whose}{self.window // 1024} KiB{knob} / {self.rtt * 1000:.1f} ms = "
                        f"{self.window_limit / 1e6:,.1f} MB/s ({self.channel_rate / self.window_limit:.0%})")
        if self.tcp and self.loss_paced_reference:
            limit = self.link_limit or self.tcp
            each = f" a connection, x {self.streams} = {limit / 1e6:,.1f} MB/s" if self.streams > 1 else ""
            said.append(f"{self.reference} {self.tcp / 1e6:,.1f} MB/s{each} ({self.wire_rate / limit:.0%}; itself "
                        f"loss-paced: {self.reference_loss or 0:.2%} resent)")
        elif self.tcp:
            said.append(f"{self.reference} {self.tcp / 1e6:,.1f} MB/s ({self.wire_rate / self.tcp:.0%})")
        if self.line_full is not None:
            said.append(f"line busy {self.line_full:.0%} of the time (the emulator's count)")
        said += [f"{side} {share:.0%} of a core" for side, share in self.shares.items()]
        if self.loss is not None:
            said.append(f"{self.loss:.2%} of segments resent ({self.congestion or 'TCP'})")
        loss = ("loss-bound, as raw TCP through the same link is: a loss-based congestion control gives each "
                "connection about MSS/RTT x 1.22/sqrt(loss), so more connections each get that much"
                if self.loss_paced_reference else
                "loss-bound: every lost segment holds SSH's in-order stream up for a round trip while the window "
                "waits, and shrinks TCP's congestion window")
        verdict = {"cpu": f"CPU-bound on the {' and '.join(self.busy)}",
                   "loss": loss,
                   "window": f"window-bound: {self._flow_control}, not the cipher or the link, set the pace",
                   "link": f"link-bound: SSH carried nearly what {self.reference} allows",
                   "none": "below every limit measured: the tool's own round trips, or CPUs shared with other work"}
        return f"{', '.join(said)}: {verdict[self.verdict]}"


def link_facts(report: Report, label: str) -> LinkFacts | None:
    return next((link for link in report.environment.links if link.label == label), None)


def _wire_ratio(report: Report, case_id: str, upload: bool) -> float | None:
    """Median bytes ssh -v counted on the wire per payload byte, over the case's counted samples."""
    ratios = [wire / s.bytes_received for s in counted(report.samples_of(case_id))
              if s.bytes_received and (wire := s.wire_bytes_sent if upload else s.wire_bytes_received)]
    return statistics.median(ratios) if ratios else None


def _tcp_loss(report: Report, case_id: str) -> tuple[float | None, str | None]:
    """The median share of data segments the case's sending sockets resent in their steady windows, and their
    congestion control (None, None: no sample had its sockets read)."""
    facts = [s.tcp for s in counted(report.samples_of(case_id)) if s.tcp is not None and s.tcp.segments]
    if not facts:
        return None, None
    losses = [f.loss for f in facts if f.loss is not None]
    names = sorted({f.congestion for f in facts})
    return (statistics.median(losses) if losses else None), "+".join(names) or None


def _compressor_shares(report: Report, case_id: str, rate: float) -> dict[str, float]:
    """Side -> cores its compressors used while the data moved (their CPU per payload byte x the rate)."""
    out = {}
    for side in ("client", "server"):
        per_byte = [cpu / s.bytes_received for s in counted(report.samples_of(case_id)) if s.bytes_received
                    and (cpu := getattr(s, f"{side}_compressor_cpu_seconds")) is not None]
        if per_byte:
            out[side] = statistics.median(per_byte) * rate
    return out


def _line(report: Report, link: str) -> float | None:
    """The TCP payload an emulated link's line rate carries, at the MTU it was built with (None: no rate=)."""
    facts = link_facts(report, link)
    spec = report.options.link_named(link)
    return spec.payload_bytes_per_second(facts.mtu if facts else None) if spec is not None else None


def _reference(report: Report, link: str, direction: str) -> tuple[float | None, float | None]:
    """(RTT, raw TCP bytes/s) of the path a case crossed: an emulated link, or a real host."""
    if link:
        facts = link_facts(report, link)
        tcp = raw_tcp(report).get(link)
        # without a raw TCP control: the TCP payload the line rate it was given carries
        return (facts.rtt_seconds if facts else None), (tcp.median if tcp else _line(report, link))
    remote = report.environment.server.remote
    iperf = report.environment.server.iperf
    return (remote.round_trip_seconds if remote else None), (iperf.rate(direction) if iperf else None)


def _control_loss(report: Report, link: str, direction: str) -> float | None:
    """The share of segments the raw TCP control resent through this emulated link (None: none, or not read)."""
    for case, _stat in references(report):
        if case.kind is CaseKind.CONTROL and case.link == link and link and case.direction.value == direction:
            return _tcp_loss(report, case.id)[0]
    return None


def round_trip(report: Report, link: str) -> float | None:
    """The measured round trip of the path a case crossed (an emulated link, or a real host), in seconds."""
    return _reference(report, link, "upload")[0]


def bound_of(report: Report, summary: Summary) -> Bound | None:
    """The Bound of one transfer case (a cipher or MAC case that moved data), or None for any other."""
    joined = report.joined()
    case = joined[summary.case_id].case
    stat = summary.throughput_bytes_per_second
    if stat is None or case.kind not in (CaseKind.CIPHER, CaseKind.MAC):
        return None
    subject = case.subject if case.kind is CaseKind.CIPHER else f"{case.cipher} + {case.mac}"
    rtt, tcp = _reference(report, case.link, case.direction.value)
    line = bool(case.link) and not raw_tcp(report).get(case.link)
    client = dict(case.dims).get("client", "")
    window = receive_window(report, case.direction.value, case.method, case.build, case.link, client)
    found = receiver(report, case.direction.value, case.build, client)
    host = report.environment.host
    return Bound(case.id, case.link, case.method, subject, case.direction.value, case.build, stat, rtt, window, tcp,
                 core_shares(summary, stat.median), case.streams, case.compressor,
                 _wire_ratio(report, case.id, case.direction.value == "upload"),
                 {"client": host.client_cpus, "server": host.server_cpus},
                 _compressor_shares(report, case.id, stat.median), *_tcp_loss(report, case.id), case.dims,
                 "the line's payload capacity" if line else "raw TCP", found.client, found.knob,
                 _control_loss(report, case.link, case.direction.value),
                 _line(report, case.link) if case.link else None, _outpaced(joined.values(), case),
                 _line_full(report, case.id))


def _line_full(report: Report, case_id: str) -> float | None:
    """The median share of its steady windows the case's emulated line was busy (None: no sample over a
    rate-limited emulated link)."""
    full = [1 - s.link_idle_steady_seconds / s.steady_seconds for s in counted(report.samples_of(case_id))
            if s.link_idle_steady_seconds is not None and s.steady_seconds]
    return statistics.median(full) if full else None


def _outpaced(views: Iterable[CaseView], case: Case) -> float | None:
    """The most payload bytes/s per stream another uncompressed transfer case of the same link, direction, method,
    build and declared axes (so the same windows) moved: what one connection through that path's loss can do."""
    rates = [stat.median / other.streams for view in views
             if (other := view.case).id != case.id and view.summary is not None
             and (stat := view.summary.throughput_bytes_per_second) is not None
             and other.kind in (CaseKind.CIPHER, CaseKind.MAC) and other.compressor.is_off
             and (other.link, other.direction, other.method, other.build, other.dims)
             == (case.link, case.direction, case.method, case.build, case.dims)]
    return max(rates, default=None)


def every_bound(report: Report) -> list[Bound]:
    """Every transfer case's Bound, loopback included, in the summaries' order (the streams chart has a line per
    path, loopback too)."""
    return [b for s in report.summaries if (b := bound_of(report, s)) is not None]


def crossed(report: Report, found: list[Bound]) -> list[Bound]:
    """Of these Bounds, those of cases that crossed a link: an emulated one, or to a real host."""
    remote = report.environment.server.remote is not None
    return [b for b in found if b.link or remote]


def bounds(report: Report) -> list[Bound]:
    """A Bound for every measured throughput case that crossed a link: an emulated one, or to a real host."""
    return crossed(report, every_bound(report))

