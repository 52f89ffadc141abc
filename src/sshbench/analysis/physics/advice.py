"""Warnings a user can act on: each is a value with its advice, stored in the results and printed by the UI.

Thresholds are named here so that the README can quote them and a reader can
argue with them in one place.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from enum import StrEnum

from sshbench.analysis.physics.references import pipe_ciphers, reliable
from sshbench.analysis.physics.windows import receive_window as receive_window  # re-exported: the links read it here
from sshbench.analysis.physics.windows import receiver
from sshbench.analysis.stats.stats import counted, headline, headline_value
from sshbench.axes.client import CLIENT
from sshbench.implementations import implementation
from sshbench.results.environment import RunWarning
from sshbench.results.model import CaseKind, Report, Summary
from sshbench.vocabulary.units import GiB

BUSY_LOAD_PER_CPU = 0.5  # 1-minute load average per CPU before the run started
OTHERS_CPU_SHARE = 0.10  # CPU time used by other processes during the run, as a share of all CPUs
STEAL_SHARE = 0.05  # CPU time taken by the hypervisor during the run
FIRST_RUN_RATIO = 1.25  # first measured sample this much worse than the median of the rest
WIDE_INTERVAL = 0.10  # median's 95% interval wider than +-10%
CONTROL_HEADROOM = 2.0  # raw TCP control must be at least twice the fastest SSH case
# The disk must read the source and write the sink this many times faster than the fastest file transfer,
# the usual margin careful benchmarks ask of `dd` before blaming the network or the cipher.
DISK_HEADROOM = 10.0


class Code(StrEnum):
    MACHINE_BUSY = "machine-busy"
    STEAL_TIME = "steal-time"
    FREQUENCY_SCALING = "frequency-scaling"
    FIRST_RUN_SLOW = "first-run-slow"
    WIDE_SPREAD = "wide-spread"
    CONTROL_TOO_CLOSE = "control-too-close"
    COMPRESSION_USELESS = "compression-useless"
    DISK_LIMITS = "disk-limits"
    STRANGERS = "strangers"
    EMULATOR_CPU = "emulator-cpu"
    PLACEMENT_CHANGED = "placement-changed"
    PLACEMENT_UNAVAILABLE = "placement-unavailable"


@dataclass(frozen=True)
class Advice:
    code: Code
    message: str
    advice: str

    def stored(self) -> RunWarning:
        """As the results file keeps it."""
        return RunWarning(self.code.value, self.message, self.advice)


def _names(ids: list[str], limit: int = 5) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _machine(report: Report) -> list[Advice]:
    host = report.environment.host
    out = []
    load, cpus = host.load_average_start, host.cpu_count or 1
    if load and load[0] > BUSY_LOAD_PER_CPU * cpus:
        out.append(Advice(Code.MACHINE_BUSY, f"the machine was busy before the run (load average {load[0]:.2f} "
                          f"on {cpus} CPUs)", "stop other work or rerun later; compare CPU s/GiB, which suffers "
                          "less from contention than MB/s"))
    during = host.during_run
    others = during.others_cpu_share if during else None
    if others is not None and others > OTHERS_CPU_SHARE:
        out.append(Advice(Code.MACHINE_BUSY, f"other processes used {others:.0%} of all CPU time during the run",
                          "stop other work or rerun later; trust the intervals, not single samples"))
    steal = during.steal_share if during else None
    if steal is not None and steal > STEAL_SHARE:
        out.append(Advice(Code.STEAL_TIME, f"the hypervisor took {steal:.0%} of CPU time (steal) during the run",
                          "a noisy neighbour shares this VM's host: rerun at another time or on dedicated CPUs"))
    governor = host.frequency_governor
    if governor and governor != "performance":
        out.append(Advice(Code.FREQUENCY_SCALING, f"CPU frequency scaling is active (governor {governor})",
                          "set the performance governor (cpupower frequency-set -g performance) for steadier "
                          "numbers"))
    if host.placement_fallback is not None:
        out.append(Advice(Code.PLACEMENT_CHANGED, "the CPUs this run may use changed while it ran, and the split "
                          f"placement gave way to free placement: {host.placement_fallback}", "samples before and "
                          "after the change ran differently: rerun where the allowed CPUs stay put, or with "
                          "--placement free"))
    allowed = host.client_cpus or cpus
    if report.options.placement != "free" and host.placement == "free" and allowed < 2 <= cpus \
            and report.environment.server.embedded:
        out.append(Advice(Code.PLACEMENT_UNAVAILABLE, f"--placement {report.options.placement} needs two CPUs and "
                          f"this run was allowed {allowed} of the machine's {cpus} (taskset, a cpuset, or a parent "
                          "pinned to one CPU): client and server shared it", "run sshbench where it may use two or "
                          "more CPUs (e.g. not under `taskset -c 0`), or say --placement free to mean it"))
    embedded = report.environment.server.embedded
    strangers = embedded.refused_connections if embedded else 0
    if strangers:
        out.append(Advice(Code.STRANGERS, f"{strangers} TCP connection(s) to the embedded server were not sshbench's "
                          "own and were closed at once, without starting an sshd",
                          "another process on this machine knocked on the benchmark's port (a scanner, or another "
                          "user); the samples were not served to it, but find out who"))
    return out


def _cases(report: Report) -> list[Advice]:
    out = []
    slow_first, wide = [], []
    for summary in report.summaries:
        samples = sorted(counted(report.samples_of(summary.case_id)), key=lambda s: s.round)
        values = [v for v in (headline_value(s) for s in samples) if v is not None]
        bigger_better = summary.throughput_bytes_per_second is not None
        if len(values) >= 3:
            first, rest = values[0], statistics.median(values[1:])
            worse = rest / first if bigger_better else first / rest
            if first > 0 and worse > FIRST_RUN_RATIO:
                slow_first.append(summary.case_id)
        stat = headline(summary)
        width = stat.relative_half_width if stat else None
        if width is not None and width > WIDE_INTERVAL:
            wide.append(summary.case_id)
    if slow_first:
        out.append(Advice(Code.FIRST_RUN_SLOW, f"the first measured sample was much slower than the rest for "
                          f"{_names(slow_first)}", "something was still warming up (caches, CPU frequency, "
                          "page cache): its sample is kept; rerun if it matters"))
    if wide:
        out.append(Advice(Code.WIDE_SPREAD, f"the median's 95% interval is wider than ±{WIDE_INTERVAL:.0%} for "
                          f"{_names(wide)}", "the machine is noisy for these cases: allow more samples "
                          "(--max-runs, --time-budget) or quieten the machine"))
    return out


def _controls(report: Report) -> list[Advice]:
    """Loopback only: raw TCP barely above SSH means the data path, not SSH, may set the figures. Over an
    emulated link raw TCP close to SSH is a finding (the link is full), shown in the link tables instead."""
    tcp, fastest = None, 0.0
    views = report.joined()
    for summary in report.summaries:
        case = views[summary.case_id].case
        stat = summary.throughput_bytes_per_second
        if stat is None or case.link:
            continue
        if case.kind is CaseKind.CONTROL:
            tcp = stat.median if reliable(stat) else None  # an unreliable one is said so, not compared
        elif case.kind is not CaseKind.CEILING and case.is_pipe:
            fastest = max(fastest, stat.median)
    if tcp is not None and fastest and tcp < CONTROL_HEADROOM * fastest:
        return [Advice(Code.CONTROL_TOO_CLOSE, f"the raw TCP control ({tcp / 1e6:,.0f} MB/s) is only "
                       f"{tcp / fastest:.1f}x the fastest SSH case ({fastest / 1e6:,.0f} MB/s)",
                       "the data path or the loopback itself may be limiting SSH figures; check the machine's "
                       "load and compare with bench/datapath.py")]
    return []


def _options(report: Report) -> list[Advice]:
    opts = report.options
    if opts.compressed and opts.data in ("zero", "random"):
        what = "zeros compress a thousandfold" if opts.data == "zero" else "random data does not compress"
        return [Advice(Code.COMPRESSION_USELESS, f"compression with {opts.data} data: {what}",
                       "use --data text or --data mixed to see what compression does for compressible data")]
    return []


def _disk(report: Report) -> list[Advice]:
    """File methods read a real file and write one: was the disk, not SSH, the limit?"""
    files = report.environment.files
    views = report.joined()
    fastest = max((s.throughput_bytes_per_second.median for s in report.summaries if s.throughput_bytes_per_second
                   and not views[s.case_id].case.is_pipe), default=0.0)
    if files is None or not files.disk.read_bytes_per_second or not fastest:
        return []
    disk = files.disk
    slow = [(what, rate) for what, rate in (("reads the source", disk.read_bytes_per_second),
                                            ("writes the sink", disk.write_bytes_per_second))
            if rate < DISK_HEADROOM * fastest and not (what == "writes the sink" and files.sink == "null")]
    if not slow:
        return []
    said = " and ".join(f"{what} at {rate / 1e6:,.0f} MB/s" for what, rate in slow)
    return [Advice(Code.DISK_LIMITS, f"the workdir's disk {said}, under {DISK_HEADROOM:g}x the fastest file "
                   f"transfer ({fastest / 1e6:,.0f} MB/s), so the disk may limit the file-method figures",
                   "compare with the pipe rows (no disk), or put --workdir on faster storage (e.g. /dev/shm) or "
                   "use --sink null to take the receiving disk out")]


CPU_BOUND_SHARE = 0.85  # a side whose ssh used this much of one core during the data phase limited the rate
LINK_FULL_SHARE = 0.8  # ssh at 80% of raw TCP (iperf3) or more: the link, not ssh, set the pace


# One SSH channel carries at most its receiver's window per round trip (analysis/physics/windows.py: whose, and how
# large). ssh carried at least this share of window / RTT: the window set the pace. Not 100%: the window also covers
# bytes waiting in both sides' socket buffers, which lengthen each round trip (measured over emulated links:
# 80-82% of window / RTT at 20 ms, with the window limit well under raw TCP and no CPU busy)
WINDOW_BOUND_SHARE = 0.7
# On loopback there is no round trip to divide by, only the two processes' turn-around: a receiver whose fixed window
# is this small makes the sender stop for a window adjust every few packets, and with no side at a full core that is
# the likely limit (Dropbear's 24 KiB: 48.8 MB/s upload, neither side busy; by hand 56-71 MB/s at its default and
# 120-124 with -W 4194304). OpenSSH's 2 MiB is never this (CPU-bound on loopback at 0.6-1.6 GB/s).
SMALL_WINDOW = 256 * 1024


@dataclass(frozen=True)
class Limit:
    """What limited the fastest pipe cipher of one direction."""

    direction: str
    cipher: str
    rate: float  # bytes/s, median
    shares: dict[str, float]  # side -> share of one core its ssh/sshd used while the data moved
    busy: list[str]  # sides at or above CPU_BOUND_SHARE
    tcp: float | None = None  # raw TCP to the same host (iperf3), bytes/s, when it was measured
    server_process: str = "sshd"  # what the server side's process is called: sshd, dropbear, tinysshd
    window: tuple[int, float] | None = None  # the receiver's channel window (bytes) and the round trip (s)
    # on loopback: the receiver's small fixed window (bytes), its implementation's title and the option that sets it
    small_window: tuple[int, str, str] | None = None
    case_id: str = ""  # the case it was read from
    client: str = ""  # the --client whose cases these are (its name, the client side's process); "": the run's ssh
    # ... where that client receives (a download): its knob that sets the window and the line that sets it
    receiving_client: tuple[str, str] | None = None

    @property
    def window_limit(self) -> float | None:
        """window / RTT, bytes/s: what one channel can carry however fast the CPUs and the link are."""
        return None if self.window is None or self.window[1] <= 0 else self.window[0] / self.window[1]

    @property
    def window_bound(self) -> bool:
        limit = self.window_limit
        return limit is not None and not self.busy and self.rate >= WINDOW_BOUND_SHARE * limit

    @property
    def small_window_bound(self) -> bool:
        """On loopback, no side at a full core and a receiver's window of at most SMALL_WINDOW: the likely limit."""
        return self.small_window is not None and not self.busy and len(self.shares) == 2 and self.tcp is None

    @property
    def link_full(self) -> bool:
        """ssh carried nearly what raw TCP did: the link itself was the limit."""
        return self.tcp is not None and self.rate >= LINK_FULL_SHARE * self.tcp

    @property
    def bound_by(self) -> str:
        """The short verdict, for tables that compare hosts."""
        if self.busy:
            return f"{' and '.join(self.busy)} CPU"
        if self.window_bound:
            return "SSH window / RTT"
        if self.small_window_bound and self.small_window is not None:
            return f"{self.small_window[1]}'s {self.small_window[0] // 1024} KiB window"
        if self.link_full:
            return "link (iperf3)"
        if "server" not in self.shares:
            return "not the client CPU; server unknown"
        if self.tcp is not None:
            return "not link (iperf3), no full core"
        return "link (or shared CPUs)" if len(self.shares) == 2 else "not the client CPU; server unknown"

    @property
    def text(self) -> str:
        said = ", ".join(f"{side} {self.server_process if side == 'server' else self.client or 'ssh'} "
                         f"{share:.0%} of a core" for side, share in self.shares.items())
        if "server" not in self.shares:
            said += ", server CPU unknown"
        if self.tcp:
            said += f"; raw TCP (iperf3) {self.tcp / 1e6:,.0f} MB/s, ssh carried {self.rate / self.tcp:.0%} of it"
        if self.busy:
            verdict = f"CPU-bound on the {' and '.join(self.busy)}"
        elif self.window_bound and self.window is not None and self.window_limit is not None:
            knob, how = self.receiving_client or ("", "")
            whose = f"receiving {self.client}'s" if self.receiving_client else "receiver's"
            verdict = (f"window-bound: one SSH channel carries at most the {whose} {self.window[0] // 1024} KiB "
                       f"window{f' ({knob})' if knob else ''} per {self.window[1] * 1000:.0f} ms round trip, "
                       f"{self.window_limit / 1e6:,.1f} MB/s, whatever the cipher (more parallel transfers, or "
                       + (f"a larger window: {how}, go faster)" if self.receiving_client and how else
                          "a server with a larger window, go faster)"))
        elif self.small_window_bound and self.small_window is not None:
            size, title, option = self.small_window
            verdict = (f"no side at a full core (>= {CPU_BOUND_SHARE:.0%}), and the receiving {title}'s channel window "
                       f"is {size // 1024} KiB: the sender stops for a window adjust every {size // 1024} KiB, "
                       f"{self.rate / size:,.0f} times a second here, so that window is the likely limit"
                       + (f"; a larger one is set with {option}" if option else ""))
        elif self.link_full:
            verdict = "the link was full"
        elif "server" not in self.shares:  # never "no side at a full core" when one side is unknown
            verdict = "client not CPU-bound; the server's share is unknown"
        elif self.tcp is not None:
            verdict = (f"not the link, and no side at a full core (>= {CPU_BOUND_SHARE:.0%}): CPUs shared with other "
                       "processes, or ssh's channel window over this round trip, limited it")
        elif len(self.shares) == 2:
            verdict = (f"no side at a full core (>= {CPU_BOUND_SHARE:.0%}): the link, or CPUs shared with other "
                       "processes, limited it")
        else:
            verdict = "client not CPU-bound; the server's share is unknown"
        where = f"{self.direction}, {CLIENT.title(self.client)}" if self.client else self.direction
        return f"{where}: fastest {self.cipher} at {self.rate / 1e6:,.0f} MB/s, {said}: {verdict}"


def limit_of(report: Report, direction: str, client: str = "") -> Limit | None:
    """Whether a CPU limited the fastest pipe cipher of a direction (None: nothing measured there); `client`: of
    that --client's cases (its own window receives their downloads), else of the run's ssh's.

    CPU s/GiB x GiB/s is the share of one core each side's ssh used while
    the data moved. Near 100% that side's CPU set the pace; well below on
    both sides, the link (or something between) did.
    """
    dims = (("client", client),) if client else ()
    rated = [(s.throughput_bytes_per_second.median, s) for s in pipe_ciphers(report, direction, dims).values()
             if s.throughput_bytes_per_second]
    if not rated:
        return None
    rate, best = max(rated, key=lambda pair: pair[0])
    shares = core_shares(best, rate)
    busy = [side for side, share in shares.items() if share >= CPU_BOUND_SHARE]
    iperf = report.environment.server.iperf
    tcp = iperf.rate(direction) if iperf else None
    server = report.environment.server
    process = implementation(server.software).process
    rtt = server.remote.round_trip_seconds if server.remote else None
    bytes_in_flight = receive_window(report, direction, client=client)
    window = (bytes_in_flight, rtt) if rtt and bytes_in_flight else None
    small = None
    found = receiver(report, direction, client=client)
    if server.remote is None and not report.environment.links:  # loopback: the two ends' turn-around alone
        fixed = None if found.window.follows_tcp else found.window.fixed  # a window variant's own, where measured
        if fixed is not None and fixed <= SMALL_WINDOW and bytes_in_flight:
            small = (bytes_in_flight, found.title, found.option)
    return Limit(direction, report.case(best.case_id).case.subject, rate, shares, busy, tcp, process, window, small,
                 best.case_id, client, (found.knob, found.option) if found.client else None)


def core_shares(summary: Summary, rate: float) -> dict[str, float]:
    """Side -> the share of one core its ssh (or sshd) used while the data moved: CPU s/GiB x GiB/s."""
    return {side: stat.median * rate / GiB for side, stat in
            (("client", summary.client_cpu_seconds_per_gib), ("server", summary.server_cpu_seconds_per_gib))
            if stat is not None}


EMULATOR_SHARE = 0.3  # the link emulator's share of a core above which it may have slowed a CPU-bound case


def _emulator(report: Report) -> list[Advice]:
    """Over an emulated link the wire process (sshbench's emulator) needs CPU too, on the same machine as
    client and server (about 43% of the three together at 20 ms on 2 vCPUs): where a case was CPU-bound and the
    emulator used a good part of a core meanwhile, the CPU limit may be partly the emulator's."""
    hit: list[str] = []
    for summary in report.summaries:
        link, rate = summary.link_cpu_seconds_per_gib, summary.throughput_bytes_per_second
        if link is None or rate is None:
            continue
        shares = core_shares(summary, rate.median)
        emulator = link.median * rate.median / GiB
        if emulator >= EMULATOR_SHARE and any(share >= CPU_BOUND_SHARE for share in shares.values()):
            hit.append(f"{summary.case_id} ({emulator:.0%} of a core)")
    if not hit:
        return []
    return [Advice(Code.EMULATOR_CPU, f"the link emulator used a good part of a core while CPU-bound cases ran: "
                   f"{_names(hit)}", f"on {report.environment.host.cpu_count} CPUs it competed with client and "
                   "server, so part of that CPU limit may be the emulator's: compare with the same cases on the "
                   "cable (rtt=0) or on a machine with more cores")]


def advise(report: Report) -> list[Advice]:
    """Every warning that applies to a finished (or interrupted) run."""
    return [*_machine(report), *_cases(report), *_controls(report), *_options(report), *_disk(report),
            *_emulator(report)]
