"""What fills the link: the changes a run measured, each against the plain transfer, with what limits it then.

On a long or slow link the cipher hardly matters (seed study 002): SSH's
window, the line rate or a CPU sets the pace, and the question is what
would make the transfer faster. So per path (an emulated link, or a real
host) and direction, the answer compares every change the run measured
with the plain case - this client's default cipher (where measured), one
connection, no compression, the first build, the pipe - and says how many
times as fast each moved the payload, stated as every "X vs Y" is
(analysis/comparisons/stated.py: a one-dimension change is a cross pair, decided with
its dimension's family under the run's rule; a cipher or a crossed change
is judged alone under the same rule), with that verdict. A change is one
dimension (the fastest safe cipher, N streams, a compressor, another build
or transfer method) or several at once, as the run crossed them.

They are listed by ratio, each marked where it is not separable from the
one above it, so nothing is ordered on a difference the data do not show.
Each carries its limiter after the change (analysis/physics/links.py) and its CPU
per byte on the busier side. The headline names the change that moved
the most payload (not the cheapest one that reached the link: 4 streams +
SSH zlib moved 1.23x what lz4 did through the same full link), and
analysis/answers/contest.py settles it against its nearest rivals. Compression
also gets the line rate below which it pays for this data: the payload
rate its busiest process can sustain on one core, from the CPU per byte
measured here, where its ratio on this data saves bytes at all.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from sshbench.analysis.answers.answer import client_default, true_default
from sshbench.analysis.answers.howto import howto
from sshbench.analysis.comparisons.stated import Statements
from sshbench.analysis.physics.links import Bound, bound_of
from sshbench.analysis.security.safety import safe_cipher
from sshbench.analysis.stats.stats import counted
from sshbench.axes import DECLARED
from sshbench.compressors import Choice
from sshbench.results.model import Case, Report, Sample, Stat, Summary
from sshbench.results.views import builds_of, side_word
from sshbench.vocabulary.case_terms import CaseKind, Direction, Relation

MIN_SAVING = 1.05  # payload bytes per wire byte below which a compressor saves nothing worth a break-even line


@dataclass(frozen=True)
class Remedy:
    """One measured change against the plain case."""

    change: str  # "4 streams", "zstd -3", "aes128-gcm@openssh.com", "build hpn-ssh-18.8.0", "4 streams + zstd -3"
    dimensions: tuple[str, ...]  # of: cipher, streams, compression, build, method
    case: Case
    rate: Stat  # payload bytes/s
    ratio: float  # times as fast as the plain case
    low: float | None
    high: float | None
    relation: Relation  # against the plain case, as the run's rule decided it (analysis/comparisons/stated.py)
    bound: Bound | None  # its limiter after the change
    cost: float | None  # CPU seconds per GiB on the busier side (compressors included)
    separable: bool = True  # significantly different from the remedy listed above it (False: not separable)
    tail: float | None = None  # N streams: how far apart its parts ended, median seconds (Sample.tail_seconds)
    split: int | None = None  # ... and the size of the split its rate is for: its counted samples' median bytes
    how_to: str = ""  # the command that applies exactly this change (analysis/answers/howto.py), for every output alike

    @property
    def faster(self) -> bool:
        return self.relation is Relation.DIFFERENT and self.ratio > 1

    @property
    def slower(self) -> bool:
        return self.relation is Relation.DIFFERENT and self.ratio < 1


@dataclass(frozen=True)
class BreakEven:
    """Where a compression choice pays: links whose payload rate without it is below `line_rate`."""

    compression: Choice
    line_rate: float  # bytes/s: its busiest process's payload rate on one core
    busiest: str  # "client compressor", "server ssh", ...
    ratio: float | None  # payload bytes per wire byte on this data

    @property
    def pays(self) -> bool:
        """Whether it saves bytes at all on this data (random data: 1.00:1, and no link is slow enough)."""
        return self.ratio is None or self.ratio >= MIN_SAVING


@dataclass(frozen=True)
class PathAnswer:
    """Per path and direction: the plain case, what it is limited by, and every change measured."""

    path: str  # the link's label, a real host's destination, or "" (loopback)
    link: str  # the case's link ("" for loopback or a real host)
    direction: Direction
    plain: Case
    plain_rate: Stat
    plain_bound: Bound | None
    remedies: tuple[Remedy, ...]
    break_even: tuple[BreakEven, ...] = ()
    client_default: str | None = None  # the cipher this client negotiates here when left alone (None: unknown)

    @property
    def default_measured(self) -> bool:
        """Whether the plain case is this client's default cipher (else the fastest safe one stands in)."""
        return self.client_default is not None and self.plain.subject == self.client_default

    @property
    def best(self) -> Remedy | None:
        """The change that moved the most payload, only where it is significantly faster than the plain case."""
        return self.remedies[0] if self.remedies and self.remedies[0].faster else None


def _cost(report: Report, case_id: str) -> float | None:
    """CPU seconds per GiB of payload on the busier side, its compressors included (median)."""
    return _sample_median(report, case_id, lambda s: c * 2**30 if (c := s.bottleneck_cpu_per_byte) else None)


def _tail(report: Report, case_id: str) -> float | None:
    """How far apart N streams' parts ended (median seconds of its counted samples), said beside the split's
    rate: the slower parts' lag, which grows with a split's size where a part stays slow."""
    return _sample_median(report, case_id, lambda s: s.tail_seconds)


def _split(report: Report, case_id: str) -> int | None:
    """The size N streams' rate is for (median bytes of its counted samples): an equal split's rate falls with
    its size where a part stays slow (measure/steady.py), so the figure names the size it was measured at."""
    size = _sample_median(report, case_id, lambda s: float(s.size_bytes) if s.size_bytes else None)
    return None if size is None else int(size)


def _sample_median(report: Report, case_id: str, value: Callable[[Sample], float | None]) -> float | None:
    """The median of `value` over the case's counted samples that have one."""
    values = [v for s in counted(report.samples_of(case_id)) if (v := value(s)) is not None]
    return statistics.median(values) if values else None


def change_of(case: Case, plain: Case, side: str = "build") -> tuple[str, tuple[str, ...]]:
    parts, dims = [], []
    if case.cipher != plain.cipher:
        parts.append(case.subject)
        dims.append("cipher")
    if case.streams != plain.streams:
        parts.append(f"{case.streams} streams")
        dims.append("streams")
    if case.compression != plain.compression:
        parts.append(case.compressor.label)
        dims.append("compression")
    if case.build != plain.build:
        parts.append(f"{side} {case.build}")  # side: what the run's sides are (results/views.py side_word)
        dims.append("build")
    if case.method != plain.method:
        parts.append(f"method {case.method}")
        dims.append("method")
    for axis in DECLARED:  # axes/: each in its own words
        if (value := case.value_of(axis.name)) != plain.value_of(axis.name):
            parts.append(axis.title(str(value)))
            dims.append(axis.name)
    return " + ".join(parts), tuple(dims)


def _compared(report: Report, summary: Summary, plain: Summary, case: Case, plain_case: Case,
              statements: Statements) -> Remedy | None:
    rate = summary.throughput_bytes_per_second
    found = statements.of(plain.case_id, summary.case_id)
    if rate is None or found is None:
        return None
    change, dims = change_of(case, plain_case, side_word(report))
    return Remedy(change, dims, case, rate, found.ratio, found.low, found.high, found.relation,
                  bound_of(report, summary), _cost(report, summary.case_id), tail=_tail(report, summary.case_id),
                  split=_split(report, summary.case_id) if case.streams > 1 else None, how_to=howto(case, plain_case))


def _plain(report: Report, rows: dict[Case, Summary], direction: Direction, link: str) -> Case | None:
    """The plain case of a path and direction: the client's default cipher where measured, else the fastest safe
    one; one connection, no compression, the first build, the pipe."""
    build = next(iter(builds_of(report)), "")
    candidates = {c.subject: c for c in rows if c.kind is CaseKind.CIPHER and c.plain and c.is_pipe
                  and c.build == build and c.link == link and c.direction is direction}
    default = client_default(report, list(candidates))
    if default is not None:
        return candidates[default]
    safe = [c for c in candidates.values() if safe_cipher(report, c.subject)]
    return max(safe, key=lambda c: rows[c].throughput_bytes_per_second.median  # type: ignore[union-attr]
               if rows[c].throughput_bytes_per_second else 0.0, default=None)


def _candidates(report: Report, rows: dict[Case, Summary], plain: Case) -> list[Case]:
    """One case per other measured condition (stream count, compression, build, method, declared axes): the
    plain cipher's where it was measured under it, else the fastest safe cipher measured under it (a run that
    crossed streams with one selected cipher, and measured the client's default only as the plain case); and the
    fastest safe cipher under the plain conditions."""
    same = [c for c in rows if c.link == plain.link and c.direction is plain.direction and c != plain
            and c.kind is CaseKind.CIPHER and (c.cipher == plain.cipher or safe_cipher(report, c.subject))]
    conditions: dict[tuple[object, ...], list[Case]] = {}
    for case in same:
        conditions.setdefault((case.streams, case.compression, case.build, case.method, case.dims), []).append(case)
    out = []
    for condition, cases in conditions.items():
        if condition == (plain.streams, plain.compression, plain.build, plain.method, plain.dims):
            continue
        mine = [c for c in cases if c.cipher == plain.cipher]
        out.append(mine[0] if mine else max(cases, key=lambda c: _median(rows[c])))
    ciphers = [c for c in same if c.cipher != plain.cipher and c.plain and c.is_pipe and c.build == plain.build]
    if ciphers:
        out.append(max(ciphers, key=lambda c: _median(rows[c])))
    return out


def _median(summary: Summary) -> float:
    return summary.throughput_bytes_per_second.median if summary.throughput_bytes_per_second else 0.0


def _ordered(remedies: list[Remedy], statements: Statements) -> tuple[Remedy, ...]:
    """By ratio, fastest first; each marked where it is not separable from the one above it (the two judged under
    the run's rule, as every stated pair is)."""
    ordered = sorted(remedies, key=lambda r: -r.ratio)
    out: list[Remedy] = []
    for remedy in ordered:
        if out:
            above = statements.of(remedy.case.id, out[-1].case.id)
            separable = above is not None and above.relation is Relation.DIFFERENT and above.ratio > 1
            remedy = dataclasses.replace(remedy, separable=separable)
        out.append(remedy)
    return tuple(out)


def break_even(report: Report, case: Case) -> BreakEven | None:
    """Where a compressed case's compression pays: below the payload rate its busiest process can sustain."""
    if case.compressor.is_off:
        return None
    per_byte: dict[str, list[float]] = {}
    for s in counted(report.samples_of(case.id)):
        if not s.bytes_received or s.client_cpu_seconds is None or s.server_cpu_seconds is None:
            continue
        client_comp, server_comp = s.client_compressor_cpu_seconds or 0.0, s.server_compressor_cpu_seconds or 0.0
        for name, cpu in (("client ssh", s.client_cpu_seconds - client_comp), ("client compressor", client_comp),
                          ("server ssh", s.server_cpu_seconds - server_comp), ("server compressor", server_comp)):
            per_byte.setdefault(name, []).append(cpu / s.bytes_received / case.streams)
    medians = {name: statistics.median(values) for name, values in per_byte.items() if values}
    if not medians or max(medians.values()) <= 0:
        return None
    busiest = max(medians, key=lambda name: medians[name])
    upload = case.direction is Direction.UPLOAD
    ratios = [s.bytes_received / wire for s in counted(report.samples_of(case.id))
              if s.bytes_received and (wire := s.wire_bytes_sent if upload else s.wire_bytes_received)]
    return BreakEven(case.compressor, 1 / medians[busiest], busiest,
                     statistics.median(ratios) if ratios else None)


def path_answers(report: Report) -> list[PathAnswer]:
    """Per path and direction, the plain case and every measured change against it (none: nothing to compare)."""
    views = report.joined()
    rows = {views[s.case_id].case: s for s in report.summaries
            if views[s.case_id].case.moves_data and s.throughput_bytes_per_second}
    links = [f.label for f in report.environment.links] or [""]
    remote = report.environment.server.remote
    statements = Statements(report)
    out = []
    for link in links:
        for direction in (Direction.UPLOAD, Direction.DOWNLOAD):
            plain = _plain(report, rows, direction, link)
            if plain is None:
                continue
            found = [r for c in _candidates(report, rows, plain)
                     if (r := _compared(report, rows[c], rows[plain], c, plain, statements)) is not None]
            if not found:
                continue
            remedies = _ordered(found, statements)
            # each compressor's break-even, from its one-connection case (the plain transfer may differ from it
            # in cipher too: a run of --ciphers X compares with this client's default)
            evens = tuple(b for r in remedies if "compression" in r.dimensions and "streams" not in r.dimensions
                          and (b := break_even(report, r.case)) is not None)
            path = link or (remote.destination if remote else "")
            stat = rows[plain].throughput_bytes_per_second
            assert stat is not None
            out.append(PathAnswer(path, link, direction, plain, stat, bound_of(report, rows[plain]), remedies,
                                  evens, true_default(report, [c.subject for c in rows if c.kind is CaseKind.CIPHER])))
    return out


