"""The shape of a run's `environment`: the machine, both sides' software, and what was checked.

These TypedDicts are the one description of that part of a results file:
mypy checks every key the code writes or reads against them (a misspelt key
is a type error, not a silent "-" in a table), and the results loader
(schema.py) validates a file read from disk against the same definitions
before any renderer sees it. Every key is optional (`total=False`): files
from runs that stopped early, or against a real host, hold fewer.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from sshbench.untrusted import AlgorithmName, Destination, HostName, MultilineText


class DuringRun(TypedDict, total=False):
    wall_seconds: float
    own_cpu_seconds: float
    others_cpu_share: float  # other processes' CPU, as a share of all CPUs over the run
    steal_share: float  # CPU time the hypervisor took


class HostFacts(TypedDict, total=False):
    hostname: str
    os: str
    kernel: str
    machine: str
    cpu_model: str
    cpu_count: int | None
    cpu_flags: dict[str, bool]  # aes, vaes, pclmulqdq, vpclmulqdq, sha_ni, avx2, avx512f, ssse3
    python: str
    load_average_start: list[float] | None
    load_average_end: list[float] | None
    cpu_mhz: float | None
    frequency_governor: str | None
    during_run: DuringRun


class ClientFacts(TypedDict, total=False):
    path: str
    version: str
    openssl: str | None


class IperfFacts(TypedDict, total=False):
    upload_bytes_per_second: float | None
    download_bytes_per_second: float | None
    bytes_moved: int
    version: str | None
    skipped: str | None
    command: str | None


ServerKind = Literal["embedded-openssh", "remote"]


class ServerFacts(TypedDict, total=False):
    kind: ServerKind
    version: str
    openssl: str | None
    # the embedded server
    path: str
    listen: str
    host_key_types: list[str]
    per_connection: str
    refused_connections: int  # TCP connections sshbench did not open itself, closed without an sshd
    # a real host
    destination: Destination  # as the user gave it: [user@]host[:port] or a Host alias
    hostname: HostName
    port: int
    user: str
    via_proxy: bool
    banner: str | None
    system: str
    round_trip_seconds: float | None
    server_cpu: str
    ssh_config: str
    iperf3: IperfFacts


class AlgorithmListsFacts(TypedDict, total=False):
    cipher: list[AlgorithmName]
    mac: list[AlgorithmName]
    kex: list[AlgorithmName]
    hostkey: list[AlgorithmName]


class AlgorithmFacts(TypedDict, total=False):
    client_supported: AlgorithmListsFacts
    client_defaults: AlgorithmListsFacts
    client_aead_ciphers: list[AlgorithmName]
    server_enabled: AlgorithmListsFacts
    server_defaults: AlgorithmListsFacts


class MaskCheck(TypedDict, total=False):
    unmasked_bytes_per_second: float
    masked_bytes_per_second: float


class CryptoFacts(TypedDict, total=False):
    aesni_masked: bool
    mask: dict[str, str] | None
    mask_check: MaskCheck | None


class TerrapinSide(TypedDict):
    banner: str
    strict_kex: bool
    exploitable: bool
    reason: str


class TerrapinFacts(TypedDict, total=False):
    client: TerrapinSide | None
    server: TerrapinSide | None  # None: not read (a host behind a proxy)
    protected: bool
    note: str


class DiskFacts(TypedDict, total=False):
    read_bytes_per_second: float
    write_bytes_per_second: float
    cold_read_bytes_per_second: float | None
    cold_write_bytes_per_second: float | None
    bytes_read: int
    bytes_written: int


class FilesFacts(TypedDict, total=False):
    workdir: str
    file_bytes: int
    files: int
    directory: bool
    total_bytes: int
    describe: str
    sparse_source: bool
    sink: Literal["file", "null"]
    verify: bool
    source_sha256: str | None
    disk: DiskFacts
    commands: dict[str, str]  # method -> the upload command as run


class Environment(TypedDict, total=False):
    host: HostFacts
    client: ClientFacts
    server: ServerFacts
    algorithms: AlgorithmFacts
    crypto: CryptoFacts
    terrapin: TerrapinFacts
    files: FilesFacts


class StoredWarning(TypedDict):
    code: str
    message: str
    advice: str


class StoredRecommendation(TypedDict):
    """The validated recommendation a run kept; renderers show it only if it matches the run's data."""

    policy: str
    client_block: MultilineText
    server_dropin: MultilineText
    prediction: list[str]


def names_of(lists: AlgorithmListsFacts | None, kind: str) -> list[str]:
    """One kind's names ("cipher", "mac", "kex", "hostkey") from a stored set of lists."""
    if not lists:
        return []
    by_kind: dict[str, list[str]] = {"cipher": lists.get("cipher", []), "mac": lists.get("mac", []),
                                     "kex": lists.get("kex", []), "hostkey": lists.get("hostkey", [])}
    return by_kind.get(kind, [])


def iperf_rate(server: ServerFacts, direction: str) -> float | None:
    """A real host's raw-TCP bytes per second in one direction ("upload"/"download"), if iperf3 gave one."""
    iperf = server.get("iperf3") or {}
    rate = iperf.get("upload_bytes_per_second") if direction == "upload" else iperf.get("download_bytes_per_second")
    return rate or None
