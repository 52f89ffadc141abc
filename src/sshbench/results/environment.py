"""What a run ran on: the machine, both sides' software and settings, and what was checked before measuring.

Typed records, so a misspelt field is a type error rather than a silent
"-" in a table, and so the results loader (schema.py) can check a file read
from disk against the same definitions before any renderer sees it. Every
field has a default: a run that stopped early, a remote host, or a test
fills only part of it. The JSON form is the dataclasses as they are
(schema version 4; results/legacy.py reads version 3).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from sshbench.implementations import OPENSSH, by_banner
from sshbench.plumbing.kexinit import Kexinit, terrapin
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.untrusted import (
    AlgorithmName,
    Destination,
    HostName,
    MultilineText,
    PartName,
    PartNameOrEmpty,
)

# The CPU flags that change SSH speeds by an order of magnitude: x86 AES-NI, VAES, SHA-NI; Arm's crypto
# extensions (/proc/cpuinfo "Features": aes, pmull, sha2)
CRYPTO_FLAGS = ("aes", "vaes", "sha_ni", "pmull", "sha2")


PLACEMENT_FELL_BACK = "fell back to free placement during the run"


@dataclass
class DuringRun:
    """How busy the machine was with work that is not ours while the run went on."""

    wall_seconds: float = 0.0
    own_cpu_seconds: float = 0.0
    others_cpu_share: float | None = None  # other processes' CPU, as a share of all CPUs over the run
    steal_share: float | None = None  # CPU time the hypervisor took


@dataclass
class HostFacts:
    hostname: str = "unknown"
    label: str = ""  # --label: the name this machine goes by in a fleet (the inventory name), "" when not given
    os: str = "unknown"
    kernel: str = "unknown"
    machine: str = "unknown"
    cpu_model: str = "unknown"
    cpu_count: int | None = None
    cpu_flags: dict[str, bool] = field(default_factory=dict)  # aes, vaes, pclmulqdq, sha_ni, avx2 ...
    python: str = "unknown"
    load_average_start: list[float] | None = None
    cpu_mhz: float | None = None
    frequency_governor: str | None = None
    load_average_end: list[float] | None = None
    during_run: DuringRun | None = None
    # Where the embedded ends ran (plumbing/placement.py): "split: client on CPU 0, server on CPU 1", "free", or
    # None (a real host, or a file written before placement was recorded); a split that gave way mid-run (the
    # cpuset shrank) adds "; " + PLACEMENT_FELL_BACK + ": <why>"
    placement: str | None = None
    placement_fallback: str | None = field(default=None, metadata={"omit_empty": True})  # that <why>, as a value
    # The CPUs each end of a connection could use: the halves of a split placement, all of them with a free one
    # (shared), this machine's for a real host's client (its server's: unknown); None in older files
    client_cpus: int | None = None
    server_cpus: int | None = None
    # The TCP congestion control this machine gives new connections (net.ipv4.tcp_congestion_control): what
    # loopback runs and a real host's uploads used (an emulated link's own is LinkFacts.congestion)
    tcp_congestion: str | None = None

    @property
    def crypto_flags(self) -> list[str]:
        """The AES/SHA instruction flags this CPU has, in a fixed order (empty: none of them)."""
        return [flag for flag in CRYPTO_FLAGS if self.cpu_flags.get(flag)]


@dataclass
class ClientFacts:
    path: str = "unknown"
    version: str = "unknown"
    openssl: str | None = None


@dataclass
class IperfFacts:
    """A real host's raw-TCP ceiling from iperf3, or why there is none."""

    upload_bytes_per_second: float | None = None  # client -> server, as the server received it
    download_bytes_per_second: float | None = None  # server -> client (iperf3 -R)
    bytes_moved: int = 0
    version: str | None = None  # the local iperf3's
    skipped: str | None = None  # why there is no figure (or only one)
    command: str | None = None

    def rate(self, direction: str) -> float | None:
        """Bytes per second one way ("upload" or "download"), if measured."""
        rate = self.upload_bytes_per_second if direction == "upload" else self.download_bytes_per_second
        return rate or None


class ServerKind(StrEnum):
    EMBEDDED = "embedded"  # a private server sshbench started on loopback
    REMOTE = "remote"  # a real host, reached with the user's ssh setup


DEFAULT_EMBEDDED = OPENSSH.name  # the embedded server without --server (targets/servers.DEFAULT), labelled "embedded"


@dataclass
class EmbeddedFacts:
    server: PartName = DEFAULT_EMBEDDED  # which embedded launcher (targets/servers/)
    path: str = "unknown"
    listen: str = "unknown"
    host_key_types: list[str] = field(default_factory=list)
    per_connection: str = ""
    refused_connections: int = 0  # TCP connections sshbench did not open itself, closed without a server
    # The implementation the launcher declared for the server it ran (implementations/: openssh, hpnssh ...); empty
    # in files written before it was recorded, where the launcher's name was the implementation's
    implementation: PartNameOrEmpty = ""
    # A window variant (--server dropbear:window=4MiB, named dropbear-w4194304): the channel receive window its
    # command line set, in bytes, which the window verdicts and limits use; None: its implementation's own
    receive_window: int | None = None
    # The server's command line as it ran, from /proc/PID/cmdline of its first connection's server (Dropbear's and
    # tinysshd's; empty where not read, and in files before schema 15)
    command: list[str] = field(default_factory=list)


@dataclass
class RemoteFacts:
    destination: Destination = "unknown"  # as the user gave it: [user@]host[:port] or a Host alias
    hostname: HostName = "unknown"
    port: int = 22
    user: str = ""
    via_proxy: bool = False
    banner: str | None = None
    system: str = "unknown"
    round_trip_seconds: float | None = None
    server_cpu: str = ""
    ssh_config: str = ""
    iperf3: IperfFacts | None = None


@dataclass
class ServerFacts:
    kind: ServerKind = ServerKind.EMBEDDED
    version: str = "unknown"
    openssl: str | None = None
    embedded: EmbeddedFacts | None = None
    remote: RemoteFacts | None = None

    @property
    def destination(self) -> str | None:
        """The real host as the user named it; None for the embedded server."""
        return self.remote.destination if self.remote else None

    @property
    def iperf(self) -> IperfFacts | None:
        return self.remote.iperf3 if self.remote else None

    @property
    def software(self) -> str:
        """openssh, hpnssh, dropbear, tinysshd or unknown: which server implementation, from what its launcher
        declared or its banner.

        Config advice follows it (implementations/: whether it reads sshd_config drop-ins, its window ...).
        """
        found = by_banner(self.version)
        if self.kind is ServerKind.EMBEDDED and self.embedded is not None and not found.banner_marker:
            # what the launcher declared; a build marked in its banner (HPN-SSH) says more
            return self.embedded.implementation or self.embedded.server
        return found.name

    @property
    def label(self) -> str:
        """How tables and config comments name the server: "embedded-openssh", or "remote"."""
        if self.kind is ServerKind.EMBEDDED:
            return f"embedded-{self.embedded.server if self.embedded else 'server'}"
        return self.kind.value


@dataclass
class AlgorithmFacts:
    client_supported: AlgorithmLists = field(default_factory=AlgorithmLists)
    client_defaults: AlgorithmLists = field(default_factory=AlgorithmLists)
    client_aead_ciphers: tuple[AlgorithmName, ...] = ()
    server_enabled: AlgorithmLists = field(default_factory=AlgorithmLists)
    server_defaults: AlgorithmLists = field(default_factory=AlgorithmLists)


@dataclass
class MaskCheck:
    """--no-aesni's proof: AES-GCM with and without the OpenSSL capability mask."""

    unmasked_bytes_per_second: float = 0.0
    masked_bytes_per_second: float = 0.0


@dataclass
class CryptoFacts:
    aesni_masked: bool = False
    mask: dict[str, str] | None = None
    mask_check: MaskCheck | None = None


@dataclass
class TerrapinSide:
    banner: str = ""
    strict_kex: bool = False
    exploitable: bool = False
    reason: str = ""


@dataclass
class TerrapinFacts:
    """Both sides' Terrapin verdicts; a side not read (a host behind a proxy) is None: unknown."""

    client: TerrapinSide | None = None
    server: TerrapinSide | None = None
    protected: bool = False  # both sides strict
    note: str | None = None


@dataclass
class DiskFacts:
    """How fast the source reads and the sink directory takes writes (cold first pass, then warm)."""

    read_bytes_per_second: float = 0.0
    write_bytes_per_second: float = 0.0
    bytes_read: int = 0
    bytes_written: int = 0
    cold_read_bytes_per_second: float | None = None
    cold_write_bytes_per_second: float | None = None


@dataclass
class FilesFacts:
    """What the file methods moved, where, how it was checked, and the commands as run."""

    workdir: str = ""
    file_bytes: int = 0
    files: int = 1
    directory: bool = False
    total_bytes: int = 0
    describe: str = ""
    sparse_source: bool = False
    sink: Literal["file", "null"] = "file"
    verify: bool = False
    source_sha256: str | None = None
    disk: DiskFacts = field(default_factory=DiskFacts)
    commands: dict[str, str] = field(default_factory=dict)  # method -> the upload command as run


@dataclass
class LinkFacts:
    """One emulated link as built and measured (targets/link): what the cases marked with its label crossed."""

    label: str  # the canonical --link text: rtt, and rate, loss and jitter when asked for
    emulator: str  # "veth pair ..." (a cable) or "sshbench wire over TUN ..." (delay, rate, loss in a process)
    mtu: int = 1500
    client_address: str = ""
    server_address: str = ""
    connect_seconds: list[float] = field(default_factory=list)  # TCP connect times across it: the RTT applied
    emulator_cpu_seconds: float | None = None  # the wire process's CPU over the whole run (None: no process)
    # Each end's TCP buffer limits (min, default, max bytes) as the run set them: "tcp_rmem", "tcp_wmem" per side
    client_tcp: dict[str, list[int]] = field(default_factory=dict)
    server_tcp: dict[str, list[int]] = field(default_factory=dict)
    tcp_tuned: bool | None = None  # raised to a tuned host's (--link-tcp tuned), or the kernel's (None: older files)
    congestion: str | None = None  # the TCP congestion control its sockets used (cc=, or the host's default)

    def tcp_receive_buffer(self, direction: str) -> int | None:
        """The largest TCP receive buffer the receiving end may grow to (upload: the server's), None: not known."""
        limits = (self.server_tcp if direction == "upload" else self.client_tcp).get("tcp_rmem")
        return limits[2] if limits and len(limits) == 3 else None

    @property
    def rtt_seconds(self) -> float | None:
        """The measured round trip: the median connect time."""
        return statistics.median(self.connect_seconds) if self.connect_seconds else None


@dataclass
class OwnServer:
    """What a side of a `--server a,b` run knows of its own embedded server: its facts, what it enabled and chose
    by default, and its Terrapin status. The report's own `server`, `algorithms` and `terrapin` are the first
    side's; a view of one side (results/views.py) takes these instead, so its advice is that server's."""

    server: ServerFacts = field(default_factory=ServerFacts)
    enabled: AlgorithmLists = field(default_factory=AlgorithmLists)
    defaults: AlgorithmLists = field(default_factory=AlgorithmLists)
    terrapin: TerrapinFacts | None = None
    recommendation: StoredRecommendation | None = None  # this server's, as Report.recommendation is the run's


@dataclass
class BuildFacts:
    """One side of a run that compared sides: an SSH build (--build: its two programs as run, and the switches
    they declared), or an embedded server (--server a,b: the run's client against that server, `own` set)."""

    name: PartName  # as case ids and tables carry it (Case.build)
    spec: str  # its canonical --build text (vocabulary/buildspec.py); a server side: the launcher's name
    client: ClientFacts = field(default_factory=ClientFacts)
    server: ClientFacts = field(default_factory=ClientFacts)  # path, version and OpenSSL of its sshd
    client_settings: dict[str, str] = field(default_factory=dict)  # e.g. HPN-SSH's {"tcprcvbufpoll": "yes"}
    server_settings: dict[str, str] = field(default_factory=dict)
    own: OwnServer | None = None  # a server side's own server (None: a build, whose sides share the run's facts)

    @property
    def axis(self) -> str:
        """What the sides are, as titles name them: "server" or "build"."""
        return "server" if self.own is not None else "build"


@dataclass
class ClientPartFacts:
    """A client the run measured besides its ssh (--client, clientparts/): what its driver said it is at the run's
    start, and the window and packet size its source gives it (with where that stands)."""

    name: PartName  # as Case.dims "client" spells it
    implementation: PartName
    version: str = "unknown"
    program: list[str] = field(default_factory=list)  # the driver's argv prefix: the interpreter and its file
    window: int | None = None  # the channel receive window it advertises when left alone, and its largest packet
    max_packet: int | None = None
    window_source: str = ""  # "paramiko 5.1.0 paramiko/common.py: DEFAULT_WINDOW_SIZE = 64 * 2**15"
    supported: AlgorithmLists = field(default_factory=AlgorithmLists)  # what its driver can negotiate


@dataclass
class Environment:
    host: HostFacts = field(default_factory=HostFacts)
    client: ClientFacts = field(default_factory=ClientFacts)
    server: ServerFacts = field(default_factory=ServerFacts)
    algorithms: AlgorithmFacts = field(default_factory=AlgorithmFacts)
    crypto: CryptoFacts | None = None
    terrapin: TerrapinFacts | None = None
    files: FilesFacts | None = None  # only when a file method ran
    links: list[LinkFacts] = field(default_factory=list)  # emulated links (--link), in the order given
    # The sides compared, in the order given: SSH builds (--build) or embedded servers (--server a,b)
    builds: list[BuildFacts] = field(default_factory=list)
    clients: list[ClientPartFacts] = field(default_factory=list)  # --client: each one measured besides ssh


@dataclass
class RunWarning:
    """A warning kept with the run: what was seen and what to do (analysis/physics/advice.py)."""

    code: str
    message: str
    advice: str


@dataclass
class StoredRecommendation:
    """The validated recommendation a run kept; renderers show it only if the run's data produce it."""

    policy: str
    client_block: MultilineText
    server_dropin: MultilineText
    prediction: list[str] = field(default_factory=list)


def terrapin_report(server: Kexinit | None, client: Kexinit | None) -> TerrapinFacts:
    """Both verdicts for the results file; a connection is protected only when both ends are strict.

    A side whose KEXINIT could not be read (a server behind a proxy) is None: unknown, never "protected".
    """
    def side(offer: Kexinit | None, who: str) -> TerrapinSide | None:
        if offer is None:
            return None
        verdict = terrapin(offer, who)
        return TerrapinSide(offer.banner, verdict.strict_kex, verdict.exploitable, verdict.reason)

    sides = side(client, "client"), side(server, "server")
    return TerrapinFacts(*sides, protected=all(s is not None and s.strict_kex for s in sides))
