"""The plain records a run produces: cases, samples, summaries and the report that holds them.

Base units only (seconds, bytes, bytes per second); renderers convert. A
`Report` is exactly what the results file holds (results/codec.py is its
JSON form), so every figure sshbench shows can be re-rendered from the file
alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from sshbench.options import RunOptions
from sshbench.plumbing.negotiation import Negotiated, PhaseName
from sshbench.results.case import Case as Case  # re-exported: a Report holds them
from sshbench.results.design import Design, PlacementTrial
from sshbench.results.environment import DEFAULT_EMBEDDED, Environment, RunWarning, StoredRecommendation
from sshbench.results.kinds import Failure, ReasonKind, StopCause, Unusable
from sshbench.results.runfacts import EchoResult as EchoResult  # re-exported: a Report holds them
from sshbench.results.runfacts import LoginLoad as LoginLoad
from sshbench.results.runfacts import TimeUse as TimeUse
from sshbench.results.schema import Signed
from sshbench.results.summary import Stat as Stat  # re-exported: a Report holds them
from sshbench.results.summary import Summary as Summary
from sshbench.results.tcpfacts import Basis, TcpFacts
from sshbench.vocabulary.case_terms import PIPE as PIPE
from sshbench.vocabulary.case_terms import CaseKind as CaseKind  # re-exported: the records and their kinds go together
from sshbench.vocabulary.case_terms import Direction as Direction
from sshbench.vocabulary.untrusted import AlgorithmName

# what each version added, and how older files are read: results/legacy.py
SCHEMA_VERSION = 17


@dataclass
class Sample:
    """One SSH connection carrying one transfer (or none, for set-up cases)."""

    case_id: str
    round: int  # 0 is the warm-up round
    warmup: bool
    ok: bool
    started_at: str  # UTC, ISO 8601
    size_bytes: int  # bytes asked for (0 for set-up cases)
    bytes_received: int | None = None  # as counted by the receiving side (file methods: the received file's size)
    setup_seconds: float | None = None  # ssh started -> remote command ready
    # A short command (--commands): ssh started -> exited, its command run and the connection closed; its figure
    command_seconds: float | None = None
    # The steady-state data phase. pipe: first byte sent -> receiver confirmed the last.
    # File methods: total_seconds minus overhead_seconds (the same tool moving a 1-byte file).
    data_seconds: float | None = None
    total_seconds: float | None = None  # ssh (or the file tool) started -> exited: what the user waits for
    overhead_seconds: float | None = None  # file methods: the same tool and algorithms moving a 1-byte file
    # The pipe's steady state: the last three quarters of the bytes and the time they took, timed by the client
    # (its writes for an upload, its reads for a download: at both ends of that interval the buffers and windows
    # are full, so bytes in = bytes out). The first quarter absorbs the start-up (a fixed ~0.1 s of an upload's
    # first bytes here, TCP's ramp over a link), which data_seconds still includes (fixed_seconds says how much).
    # N streams (measure/steady.py): from the last stream past its mark to the last stream's end, counting what the
    # split had left when a quarter-sized split would have ended: N x the least-advanced stream's remaining share
    # where the parts are independent, the bytes still to come where they share a bottleneck (parts_independent);
    # CPU per byte of that.
    steady_bytes: int | None = None
    steady_seconds: float | None = None
    # Bytes moved in the first half of those steady seconds: how much a sample's rate varies within one
    # connection (the two halves' ratio), against how much it varies between connections (analysis/stats/noise.py)
    steady_half_bytes: int | None = None
    client_cpu_steady_seconds: float | None = None  # CPU of each side during those steady seconds
    server_cpu_steady_seconds: float | None = None
    link_cpu_steady_seconds: float | None = None  # ... and of the emulated link's wire process (--link)
    # --link with a rate: the seconds of that window the line in the data's direction carried nothing, by the wire's
    # own account (targets/link/meter.py). Near 0: the link was full; a figure below the line with the line idle
    # was held upstream of it (the sender, or the wire itself waiting for a CPU on a busy machine)
    link_idle_steady_seconds: float | None = None
    # How the received data was checked: "count" (pipe), "size", "size+sha256", or "exit status" (/dev/null sink)
    verified: Literal["count", "size", "size+sha256", "exit status"] | None = None
    # Bytes ssh itself reports on the wire (ssh -v "Transferred: sent N, received M bytes"), packets included
    wire_bytes_sent: int | None = None
    wire_bytes_received: int | None = None
    client_cpu_user_seconds: float | None = None
    client_cpu_sys_seconds: float | None = None
    server_cpu_user_seconds: float | None = None
    server_cpu_sys_seconds: float | None = None
    # CPU used by each side outside the data phase: for the pipe, before the data phase began (handshake,
    # start-up), read from /proc; for file methods, the whole 1-byte transfer (wait4).
    # The data phase's CPU is the exact wait4 total minus this.
    client_cpu_setup_seconds: float | None = None
    server_cpu_setup_seconds: float | None = None
    # An external compressor's own CPU (--compression zstd, lz4, gzip), whole connection, included in the side's
    # CPU above: the client's compressing (or decompressing) process, and the server's command pipeline beside
    # ssh (its (de)compressor with the byte counter or source), as the remote shell's `times` reports it
    client_compressor_cpu_seconds: float | None = None
    server_compressor_cpu_seconds: float | None = None
    # --streams N: each connection's own steady rate (bytes/s, or whole-phase where it had no steady state), in
    # stream order; empty for one connection. The figures above are the N connections together.
    stream_bytes_per_second: list[float] = field(default_factory=list)
    stream_status: list[str] = field(default_factory=list)  # ... and each one's outcome: "ok", or what happened
    # --streams N: seconds from the first stream's last byte to the last stream's (same basis as the steady state):
    # the parts of one transfer ended this far apart; the steady window runs to the last (measure/steady.py).
    # None for one connection
    tail_seconds: float | None = None
    # --streams N: how far its parts went their own way (measure/steady.independence): 0 where the parts that ended
    # first handed their share to the rest (one bottleneck), 1 where the rest kept their own pace; the steady
    # window counts the bytes still to come at 0, an equal split's N x the laggard's at 1. None for one connection
    parts_independent: float | None = None
    exit_status: Signed | None = None  # negative: killed by that signal
    negotiated: Negotiated | None = None
    # A client driver's sample (--client, measure/drivers.py): whose word `negotiated` is ("server log": the
    # embedded server's, the driver's agreeing; "driver": the library's own, where the server logs none), the
    # channel window the client advertised as the server logged it, and the data phase on the driver's own clock.
    # None for ssh's samples, proven by its own ssh -v
    negotiated_from: Literal["server log", "driver"] | None = None
    client_window_bytes: int | None = None
    client_data_seconds: float | None = None
    phases: dict[PhaseName, float] = field(default_factory=dict)  # seconds since ssh started, by mark
    error: str | None = None
    # What ended it, where the run decides by that (results/kinds.py); None: a good sample, or words for people only
    failure: Failure | None = field(default=None, metadata={"omit_empty": True})
    stderr_tail: list[str] = field(default_factory=list)
    outlier: bool = False  # modified z-score of the case's headline figure above 3.5
    # Where the steady state's bytes were counted (results/tcpfacts.py), and what the sending TCP sockets did then
    timing: Basis | None = None
    tcp: TcpFacts | None = None
    # Why this sample is kept but not counted (measure/physics.py): no steady window, a window too short for its
    # link, or a rate above what the link can carry; its case was re-sized and measured again. A file transfer's
    # (measure/filetool.py): its data took no longer than the 1-byte run, so it has no rate
    unusable: str | None = None
    unusable_kind: Unusable | None = field(default=None, metadata={"omit_empty": True})  # ... as what it is
    # A back-to-back run's number: samples with one number were taken one right after the other, neighbours in
    # their ranking (the decision schedule's chains), so the ratio of consecutive ones shares the machine's load
    chain: int | None = None

    @property
    def throughput_bytes_per_second(self) -> float | None:
        """The per-byte rate: the steady state where it was timed (the pipe), else the whole data phase."""
        if not self.ok or not self.data_seconds or self.bytes_received is None:
            return None
        if self.steady_bytes and self.steady_seconds:
            return self.steady_bytes / self.steady_seconds
        return self.bytes_received / self.data_seconds

    @property
    def fixed_seconds(self) -> float | None:
        """What the data phase took beyond its bytes at the steady rate: a per-connection cost (start-up,
        ramp), real for small transfers, kept out of the per-byte rate."""
        rate = self.throughput_bytes_per_second
        if rate is None or not self.steady_seconds or self.data_seconds is None or self.bytes_received is None:
            return None
        return max(0.0, self.data_seconds - self.bytes_received / rate)

    @property
    def client_cpu_per_byte(self) -> float | None:
        """Client CPU seconds per byte moved: over the steady state where it was read there, else the data phase."""
        return _per_byte(self.client_cpu_steady_seconds, self.steady_bytes, self.client_cpu_data_seconds,
                         self.bytes_received)

    @property
    def server_cpu_per_byte(self) -> float | None:
        return _per_byte(self.server_cpu_steady_seconds, self.steady_bytes, self.server_cpu_data_seconds,
                         self.bytes_received)

    @property
    def link_cpu_per_byte(self) -> float | None:
        """The link emulator's CPU seconds per byte in the steady state (--link; None: no emulator)."""
        return _per_byte(self.link_cpu_steady_seconds, self.steady_bytes, None, None)

    @property
    def bottleneck_cpu_per_byte(self) -> float | None:
        """The busier side's CPU seconds per byte: what one stream of this cipher costs where it is dearest (the
        side that limits a CPU-bound transfer), none when a side's CPU is not known."""
        sides = (self.client_cpu_per_byte, self.server_cpu_per_byte)
        return None if None in sides else max(s for s in sides if s is not None)

    @property
    def cost(self) -> float | None:
        """What the sample cost where it was dearest, the figure of the cost ranking: the busier side's CPU
        seconds per byte for a transfer, per connection for a set-up case; None when a side's CPU is unknown."""
        if self.size_bytes:
            return self.bottleneck_cpu_per_byte
        if not self.ok or self.client_cpu_seconds is None or self.server_cpu_seconds is None:
            return None
        return max(self.client_cpu_seconds, self.server_cpu_seconds)

    @property
    def end_to_end_bytes_per_second(self) -> float | None:
        """Bytes over the whole connection or tool run, start-up and handshake included."""
        if not self.ok or not self.total_seconds or not self.bytes_received or not self.data_seconds:
            return None
        return self.bytes_received / self.total_seconds

    @property
    def client_cpu_seconds(self) -> float | None:
        if self.client_cpu_user_seconds is None or self.client_cpu_sys_seconds is None:
            return None
        return self.client_cpu_user_seconds + self.client_cpu_sys_seconds

    @property
    def server_cpu_seconds(self) -> float | None:
        if self.server_cpu_user_seconds is None or self.server_cpu_sys_seconds is None:
            return None
        return self.server_cpu_user_seconds + self.server_cpu_sys_seconds

    @property
    def client_cpu_data_seconds(self) -> float | None:
        return _minus(self.client_cpu_seconds, self.client_cpu_setup_seconds)

    @property
    def server_cpu_data_seconds(self) -> float | None:
        return _minus(self.server_cpu_seconds, self.server_cpu_setup_seconds)

    @property
    def handshake_seconds(self) -> float | None:
        """Our banner sent -> session open: the SSH handshake alone.

        It excludes ssh's own start-up and the remote login shell's start-up
        (rc files: `pyenv init` in a .bashrc cost ~60 ms per connection here),
        which set_up_seconds includes and which no algorithm changes.
        """
        start, end = self.phases.get("banner_sent"), self.phases.get("session_open")
        return None if start is None or end is None else end - start

    @property
    def kex_seconds(self) -> float | None:
        """KEXINIT sent -> NEWKEYS received: the part the key exchange and host key algorithms change."""
        start, end = self.phases.get("kexinit_sent"), self.phases.get("newkeys_received")
        return None if start is None or end is None else end - start


def _per_byte(steady: float | None, steady_bytes: int | None, whole: float | None,
              whole_bytes: int | None) -> float | None:
    if steady is not None and steady_bytes:
        return steady / steady_bytes
    return None if whole is None or not whole_bytes else whole / whole_bytes


def _minus(total: float | None, before: float | None) -> float | None:
    return None if total is None or before is None else max(0.0, total - before)


class CaseStatus(StrEnum):
    PENDING = "pending"
    MEASURED = "measured"
    SKIPPED = "skipped"  # the server refused it, or it cannot be measured here
    FAILED = "failed"  # no successful measured sample


@dataclass
class CaseRecord:
    case: Case
    size_bytes: int = 0  # bytes per measured sample (0 for set-up cases)
    # "fixed" (--size), "auto" (sized from the warm-up to last --sample-seconds), "warmup" (still at the
    # warm-up size: before the warm-up, or when it failed), "file" (the file methods' test size)
    size_source: Literal["", "fixed", "auto", "warmup", "file"] = ""
    status: CaseStatus = CaseStatus.PENDING
    reason: str | None = None
    # What the reason is, where anything decides by it (results/kinds.py); None: words for people only
    reason_kind: ReasonKind | None = field(default=None, metadata={"omit_empty": True})
    # sshbench's addition, not the user's selection: the client default's plain cases (plan/cases.py), the
    # plain transfer every change is compared with; a fitted run leaves these out before anything asked for
    added: bool = field(default=False, metadata={"omit_empty": True})

    def set_reason(self, reason: str | None, kind: ReasonKind | None = None) -> None:
        """The case's reason, and what it is where anything decides by it: a new reason never keeps the kind of
        the one it replaces."""
        self.reason, self.reason_kind = reason, kind


@dataclass(frozen=True)
class CaseView:
    """One case joined with everything measured of it: its record, its summary (None before any) and samples."""

    record: CaseRecord
    summary: Summary | None
    samples: tuple[Sample, ...]

    @property
    def case(self) -> Case:
        return self.record.case


@dataclass
class Report:
    """Everything one run measured, as saved in the results file."""

    tool_version: str
    started_at: str
    seed: int
    options: RunOptions = field(default_factory=RunOptions)
    environment: Environment = field(default_factory=Environment)
    status: Literal["running", "complete", "interrupted", "failed"] = "running"
    stop_reason: str | None = None  # why a complete run stopped early (the time budget)
    stopped_by: StopCause | None = field(default=None, metadata={"omit_empty": True})  # ... as what it was
    finished_at: str | None = None
    cases: list[CaseRecord] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)
    warnings: list[RunWarning] = field(default_factory=list)  # see analysis/physics/advice.py
    # The validated recommendation made when the run ended: policy, client_block, server_dropin, prediction
    recommendation: StoredRecommendation | None = None
    error: str | None = None
    # The key exchange every throughput and host key case used (None: ssh's own default; older files)
    partner_kex: AlgorithmName | None = None
    time_use: TimeUse | None = None  # where the run's wall time went (None: older files)
    echoes: list[EchoResult] = field(default_factory=list)  # keystroke echo latency per cipher and link (--echo)
    # Logins per second against a listening sshd, per parallel client count and key exchange (--logins)
    logins: list[LoginLoad] = field(default_factory=list, metadata={"omit_empty": True})
    # Looks planned at the verdicts, per kind of table ("throughput", "handshake"): what their correction divides
    # by (analysis/stats/verdicts.py; empty in files from before each table had its own)
    looks: dict[str, int] = field(default_factory=dict)
    # The sample counts of those looks, per kind of table: the group-sequential boundaries' information (empty in
    # files from before 0.4, whose verdicts were corrected by Bonferroni over `looks`)
    look_points: dict[str, list[int]] = field(default_factory=dict)
    # The noise measured after the first passes and the design it chose (sample length, pairing), with the figures
    # that decided it (analysis/stats/noise.py; None: not measured, as in fixed and precision modes and older files)
    design: Design | None = None
    # The trial of both placements an embedded run with --placement auto began with, and its choice
    # (analysis/stats/placing.py; None: a real host, a placement given, or a file from before 0.4)
    placement_trial: PlacementTrial | None = None
    schema_version: int = SCHEMA_VERSION

    def case(self, case_id: str) -> CaseRecord:
        """One case's record (a linear search: for many, use `joined`)."""
        for record in self.cases:
            if record.case.id == case_id:
                return record
        raise KeyError(case_id)

    def joined(self) -> dict[str, CaseView]:
        """Every case by id with its summary and samples, in one pass: what a table or an analysis that walks the
        summaries looks each row up in, instead of a search per row."""
        summaries = {s.case_id: s for s in self.summaries}
        samples: dict[str, list[Sample]] = {}
        for sample in self.samples:
            samples.setdefault(sample.case_id, []).append(sample)
        return {r.case.id: CaseView(r, summaries.get(r.case.id), tuple(samples.get(r.case.id, ())))
                for r in self.cases}

    def samples_of(self, case_id: str) -> list[Sample]:
        return [s for s in self.samples if s.case_id == case_id]

    @property
    def label(self) -> str:
        """The host this run measured: the destination as the user gave it, or "embedded" (OpenSSH's sshd), or
        "embedded-dropbear" / "embedded-tinysshd" for the other embedded servers; with --label, the machine's
        name ("web1"), and "web1>PEER" for a run from web1 to a real host PEER."""
        server = self.environment.server
        if server.destination:
            measured = server.destination
        else:
            kind = server.embedded.server if server.embedded else DEFAULT_EMBEDDED
            measured = "embedded" if kind == DEFAULT_EMBEDDED else f"embedded-{kind}"
        label = self.environment.host.label  # --label: the machine's name in a fleet
        if not label:
            return measured
        return label if measured == "embedded" else f"{label}>{measured}"
