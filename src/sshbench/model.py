"""The plain records a run produces, and their JSON form.

Base units only (seconds, bytes, bytes per second); renderers convert. A
`Report` is exactly what the results file holds, so every figure sshbench
shows can be re-rendered from the file alone.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, get_type_hints

from sshbench.algorithms import ALGORITHM_KINDS, Kind, lookup
from sshbench.environment import Environment, StoredRecommendation, StoredWarning
from sshbench.errors import UsageError
from sshbench.methods import parse_method
from sshbench.negotiation import Negotiated
from sshbench.schema import SchemaError, Signed, build, convert
from sshbench.untrusted import AlgorithmName, clean

SCHEMA_VERSION = 3  # 2: handshake ends at session open; 3: transfer methods (scp, sftp, rsync), end-to-end rates


class Direction(StrEnum):
    UPLOAD = "upload"  # client -> server
    DOWNLOAD = "download"  # server -> client
    SETUP = "setup"  # connection set-up only, no data phase
    LOCAL = "local"  # no network at all (crypto ceilings)


@dataclass(frozen=True)
class Case:
    """One thing measured: an algorithm of one kind, in one direction, with its fixed partners."""

    kind: Kind
    direction: Direction
    cipher: AlgorithmName | None = None
    mac: AlgorithmName | None = None
    kex: AlgorithmName | None = None
    hostkey: AlgorithmName | None = None
    # How the bytes move: "pipe" (ssh carrying our stream), or a file tool: "scp", "scp-legacy",
    # "sftp", "rsync", or a tuned sftp such as "sftp-B65536-R128" (see methods.py).
    method: str = "pipe"

    @property
    def subject(self) -> str:
        """The algorithm this case is about (the others are held fixed or left to defaults)."""
        if self.kind is Kind.CONTROL:
            return "raw-tcp"
        value = self.cipher if self.kind is Kind.CEILING else getattr(self, self.kind.value)
        assert isinstance(value, str)
        return value

    @property
    def id(self) -> str:
        return f"{self.kind.value}:{self.subject}:{self.direction.value}{self._method_suffix}"

    @property
    def _method_suffix(self) -> str:
        return "" if self.method == "pipe" else f":{self.method}"

    @property
    def moves_data(self) -> bool:
        return self.direction is not Direction.SETUP

    @property
    def group(self) -> str:
        """Cases ranked against each other: same kind, direction and transfer method."""
        return f"{self.kind.value}:{self.direction.value}{self._method_suffix}"


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
    # The steady-state data phase. pipe: first byte sent -> receiver confirmed the last.
    # File methods: total_seconds minus overhead_seconds (the same tool moving a 1-byte file).
    data_seconds: float | None = None
    total_seconds: float | None = None  # ssh (or the file tool) started -> exited: what the user waits for
    overhead_seconds: float | None = None  # file methods: the same tool and algorithms moving a 1-byte file
    # How the received data was checked: "count" (pipe), "size", "size+sha256", or "exit status" (/dev/null sink)
    verified: str | None = None
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
    exit_status: Signed | None = None  # negative: killed by that signal
    negotiated: Negotiated | None = None
    phases: dict[str, float] = field(default_factory=dict)  # seconds since ssh started
    error: str | None = None
    stderr_tail: list[str] = field(default_factory=list)
    outlier: bool = False  # modified z-score of the case's headline figure above 3.5

    @property
    def throughput_bytes_per_second(self) -> float | None:
        if not self.ok or not self.data_seconds or self.bytes_received is None:
            return None
        return self.bytes_received / self.data_seconds

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
    # "fixed" (--size), "auto" (sized from the warm-up to last --sample-seconds), or "probe"
    # (still at the warm-up size: before the warm-up, or when it failed)
    size_source: str = ""
    status: CaseStatus = CaseStatus.PENDING
    reason: str | None = None


@dataclass(frozen=True)
class Stat:
    """Summary statistics of one metric over the counted samples of a case."""

    median: float
    mean: float
    min: float
    max: float
    stdev: float  # sample standard deviation (n-1); 0 for a single value
    count: int
    # 95% order-statistic confidence interval of the median (None below 6 samples)
    ci_low: float | None = None
    ci_high: float | None = None

    @property
    def half_width(self) -> float | None:
        """The larger distance from the median to an end of its interval."""
        if self.ci_low is None or self.ci_high is None:
            return None
        return max(self.median - self.ci_low, self.ci_high - self.median)

    @property
    def relative_half_width(self) -> float | None:
        hw = self.half_width
        return None if hw is None or not self.median else hw / abs(self.median)


@dataclass
class Summary:
    case_id: str
    group: str
    samples_ok: int
    samples_failed: int
    throughput_bytes_per_second: Stat | None = None  # steady state: the data phase alone
    end_to_end_bytes_per_second: Stat | None = None  # what the user waits for: start-up and handshake included
    overhead_seconds: Stat | None = None  # file methods: the same tool moving a 1-byte file
    setup_seconds: Stat | None = None  # ssh started -> remote command running
    handshake_seconds: Stat | None = None  # banner sent -> session open (ranks set-up cases)
    kex_seconds: Stat | None = None
    client_cpu_seconds_per_gib: Stat | None = None
    server_cpu_seconds_per_gib: Stat | None = None
    client_cycles_per_byte: Stat | None = None  # CPU s/GiB at the recorded clock (where it is known)
    server_cycles_per_byte: Stat | None = None
    client_cpu_seconds: Stat | None = None  # per connection (set-up cases)
    server_cpu_seconds: Stat | None = None
    factor: float | None = None  # 1.0 = fastest of its group; 4.6 = takes 4.6x as long
    rank: int | None = None
    outliers: int = 0  # counted samples flagged by modified z-score (kept, not dropped)
    precise: bool | None = None  # headline interval within the precision target (None: no target)
    # Not significantly different from the case ranked just above (Mann-Whitney U, p >= 0.05)
    tied_with_previous: bool = False
    p_vs_previous: float | None = None


@dataclass
class Report:
    """Everything one run measured, as saved in the results file."""

    tool_version: str
    started_at: str
    seed: int
    options: dict[str, Any]  # RunOptions.to_dict() and the seed
    environment: Environment
    status: str = "running"  # running | complete | interrupted | failed
    stop_reason: str | None = None  # why a complete run stopped early (the time budget)
    finished_at: str | None = None
    cases: list[CaseRecord] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)
    warnings: list[StoredWarning] = field(default_factory=list)  # see advice.py
    # The validated recommendation made when the run ended: policy, client_block, server_dropin, prediction
    recommendation: StoredRecommendation | None = None
    error: str | None = None
    schema_version: int = SCHEMA_VERSION

    def case(self, case_id: str) -> CaseRecord:
        for record in self.cases:
            if record.case.id == case_id:
                return record
        raise KeyError(case_id)

    def samples_of(self, case_id: str) -> list[Sample]:
        return [s for s in self.samples if s.case_id == case_id]


# ---------------------------------------------------------------- JSON form


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN or infinity; a reader must not have to guess
    if isinstance(value, str):
        return clean(value)  # one line of printable text: never write what the loader would refuse
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, Case):
            out["id"] = value.id
            if value.kind in ALGORITHM_KINDS:  # grades travel with the data, for every renderer
                algorithm = lookup(value.subject, value.kind)
                out["grade"], out["grade_reason"] = algorithm.grade.value, algorithm.reason
        if isinstance(value, Sample):
            out["throughput_bytes_per_second"] = value.throughput_bytes_per_second
            out["end_to_end_bytes_per_second"] = value.end_to_end_bytes_per_second
            out["kex_seconds"] = value.kex_seconds
            out["handshake_seconds"] = value.handshake_seconds
            out["client_cpu_data_seconds"] = value.client_cpu_data_seconds
            out["server_cpu_data_seconds"] = value.server_cpu_data_seconds
        return out
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def host_label(report: Report) -> str:
    """The host a run measured: the destination as the user gave it, or "embedded" (private loopback sshd)."""
    label = report.environment.get("server", {}).get("destination")
    return label if isinstance(label, str) and label else "embedded"


def results_to_dict(runs: list[Report]) -> dict[str, Any]:
    """One host: a plain "sshbench/run". Several (`sshbench run a b`): "sshbench/hosts", one run per host.

    Each host keeps its own run rather than a host field on every case:
    hosts differ in what they offer, their environment, Terrapin status and
    recommendation, and every renderer already knows how to show one run.
    """
    if len(runs) == 1:
        return report_to_dict(runs[0])
    return {"schema": "sshbench/hosts", "schema_version": SCHEMA_VERSION, "hosts": [host_label(r) for r in runs],
            "runs": [report_to_dict(r) for r in runs]}


def results_from_dict(data: object) -> list[Report]:
    """Every run a results file holds, in the order measured (one per host), checked field by field.

    The file is untrusted: anything that is not what sshbench writes is a
    SchemaError naming the field, before any renderer or command sees it.
    """
    if isinstance(data, dict) and data.get("schema") == "sshbench/hosts":
        _check_version(data)
        runs = data.get("runs")
        if not isinstance(runs, list) or not runs:
            raise SchemaError("runs must be a non-empty list of runs")
        return [report_from_dict(run, f"runs[{i}]") for i, run in enumerate(runs)]
    return [report_from_dict(data)]


def _check_version(data: dict[str, Any]) -> None:
    if data.get("schema_version") != SCHEMA_VERSION:
        raise SchemaError(f"results schema version {_shown(data.get('schema_version'))} is not {SCHEMA_VERSION} "
                          f"(written by another sshbench version): re-run with this version to compare")


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 20 else text[:17] + "..."


def report_to_dict(report: Report) -> dict[str, Any]:
    body = _plain(report)
    assert isinstance(body, dict)
    if report.recommendation is not None:  # the config texts are the only text kept with its line breaks
        body["recommendation"] = {**body["recommendation"],
                                  **{k: clean(report.recommendation[k], keep_newlines=True)
                                     for k in ("client_block", "server_dropin")}}
    return {"schema": "sshbench/run", **body}


def report_from_dict(data: object, where: str = "") -> Report:
    """Inverse of report_to_dict, for re-rendering a saved file; SchemaError for anything else."""
    if not isinstance(data, dict) or data.get("schema") != "sshbench/run":
        raise SchemaError("not an sshbench results file (no 'schema': 'sshbench/run')")
    _check_version(data)
    report = build(Report, data, where)
    _check_consistency(report, where)
    return report


def _check_consistency(report: Report, where: str) -> None:
    """What types cannot say: every case complete, every sample and summary naming a case of this run."""
    prefix = f"{where}." if where else ""
    ids: set[str] = set()
    for i, record in enumerate(report.cases):
        case = record.case
        needed = case.cipher if case.kind in (Kind.CEILING, Kind.CIPHER) else (
            getattr(case, case.kind.value) if case.kind in ALGORITHM_KINDS else "raw-tcp")
        if needed is None:
            raise SchemaError(f"{prefix}cases[{i}] is a {case.kind.value} case without its {case.kind.value} name")
        try:
            parse_method(case.method)
        except UsageError:
            raise SchemaError(f"{prefix}cases[{i}].method is not a transfer method: {_shown(case.method)}") from None
        if case.id in ids:
            raise SchemaError(f"{prefix}cases[{i}] repeats the case {case.id}")
        ids.add(case.id)
    named: list[tuple[str, list[str]]] = [("samples", [s.case_id for s in report.samples]),
                                          ("summaries", [s.case_id for s in report.summaries])]
    for kind, case_ids in named:
        for i, case_id in enumerate(case_ids):
            if case_id not in ids:
                raise SchemaError(f"{prefix}{kind}[{i}] names the case {_shown(case_id)}, which the file does "
                                  "not hold")
    for i, summary in enumerate(report.summaries):
        if summary.group != report.case(summary.case_id).case.group:
            raise SchemaError(f"{prefix}summaries[{i}].group does not match its case")
    report.options = _checked_options(report.options, f"{prefix}options")


def _checked_options(options: dict[str, Any], path: str) -> dict[str, Any]:
    """The options echo, each option of its type; one an older file lacks gets today's default."""
    from sshbench.options import RunOptions  # options.py imports this module

    defaults = RunOptions().to_dict()
    hints = get_type_hints(RunOptions, include_extras=True)
    for name, hint in hints.items():
        if name in options:
            convert(hint, options[name], f"{path}.{name}")
    convert(int, options.get("seed", 0), f"{path}.seed")
    return {**defaults, **{k: v for k, v in options.items() if k in hints or k == "seed"}}
