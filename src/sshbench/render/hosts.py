"""Several hosts measured in one run, side by side: which server is fast, which cipher for which server.

Only pipe cases compare across hosts: the file methods depend on each
server's disks, which sshbench does not measure remotely.
"""

from __future__ import annotations

from collections.abc import Mapping

from sshbench.analysis.findings import Fleet
from sshbench.render.fleet import fleet_tables
from sshbench.render.labels import GRADE_STYLE, flagged_name, grade_of, pm
from sshbench.render.table_model import Column, Row, Span, Style, Table, cell
from sshbench.results.environment import ServerFacts, ServerKind, TerrapinFacts
from sshbench.results.kinds import ReasonKind
from sshbench.results.model import CaseStatus, Report, Summary
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.case_terms import CaseKind

DIRECTIONS = ("upload", "download")


def terrapin_word(terrapin: TerrapinFacts | None) -> str:
    if terrapin is None or terrapin.server is None:
        return "unknown"
    if terrapin.protected:
        return "protected"
    return "EXPLOITABLE" if terrapin.server.exploitable else "not protected"


def _round_trip(report: Report) -> str:
    server = report.environment.server
    if server.kind is not ServerKind.REMOTE or server.remote is None:
        links = report.environment.links  # an embedded run over emulated links is not loopback (it said so)
        return "; ".join(f"emulated {link.label}" + (f": {link.rtt_seconds * 1000:.1f} ms" if link.rtt_seconds
                                                     else "") for link in links) or "loopback"
    rtt = server.remote.round_trip_seconds
    return "unknown" if rtt is None else f"{rtt * 1000:.2f} ms"


def _raw_tcp(server: ServerFacts) -> str:
    iperf = server.iperf
    rates = [iperf.rate(d) if iperf else None for d in DIRECTIONS]
    if not any(rates):
        return "-" if server.kind is not ServerKind.REMOTE else "not measured"
    return " / ".join("-" if r is None else f"{r / 1e6:,.0f}" for r in rates)


def overview(fleet: Fleet) -> Table:
    """One row per host: what it runs, how far it is, and its fastest cipher and limit per direction (as each
    host's figures in the Fleet hold them)."""
    titles = ["host", "server", "round trip", "Terrapin", "raw TCP MB/s up / down (iperf3)"]
    for direction in DIRECTIONS:  # the cipher's name is in the cipher x host table below
        titles += [f"fastest {direction} MB/s", f"{direction} limited by"]
    rows = []
    for report, figures in zip(fleet.runs, fleet.hosts, strict=True):
        server = report.environment.server
        measured = any(s.ok and not s.warmup for s in report.samples)
        label = report.label if measured else f"{report.label} ({report.status}: nothing measured)"
        cells = [label, server.version, _round_trip(report), terrapin_word(report.environment.terrapin),
                 _raw_tcp(server)]
        for direction in DIRECTIONS:
            limit = figures.limits.get(direction)
            if limit is None:
                cells += ["-", "-"]
                continue
            best = figures.pipe[direction].get(limit.cipher)
            rate = pm(best.throughput_bytes_per_second, 1e6) if best else f"{limit.rate / 1e6:,.0f}"
            cells += [rate, limit.bound_by]
        rows.append(Row(tuple(cell(c) for c in cells)))
    columns = (Column(titles[0]), *(Column(t, wrap=True) for t in titles[1:]))
    return Table("Hosts", columns, tuple(rows))


def _fastest(cipher: str, measured: list[Mapping[str, Summary]]) -> float:
    rates = [0.0]
    for per_host in measured:
        stat = per_host[cipher].throughput_bytes_per_second if cipher in per_host else None
        if stat is not None:
            rates.append(stat.median)
    return max(rates)


def _cell(report: Report, direction: str, cipher: str, measured: Mapping[str, Summary]) -> str:
    summary = measured.get(cipher)
    if summary is not None and summary.throughput_bytes_per_second is not None:
        client, server = summary.client_cpu_seconds_per_gib, summary.server_cpu_seconds_per_gib
        cpu = f"\nCPU {pm(client, digits=2, interval=False)} / {pm(server, digits=2, interval=False)}" \
            if client or server else ""
        return pm(summary.throughput_bytes_per_second, 1e6) + cpu
    for record in report.cases:
        case = record.case
        if (case.kind is CaseKind.CIPHER and case.is_pipe and case.cipher == cipher
                and case.direction.value == direction and record.status in (CaseStatus.SKIPPED, CaseStatus.FAILED)):
            return "not offered" if record.reason_kind is ReasonKind.NOT_OFFERED else record.status.value
    offered = report.environment.algorithms.server_enabled.cipher
    return "not offered" if offered and cipher not in offered else "-"


def cipher_by_host(fleet: Fleet) -> list[Table]:
    """Per direction: ciphers (rows) by hosts (columns), steady-state MB/s of the pipe."""
    tables, runs = [], list(fleet.runs)
    for direction in DIRECTIONS:
        measured = [host.pipe[direction] for host in fleet.hosts]
        ciphers = list(dict.fromkeys(c for per_host in measured for c in per_host))
        if not ciphers:
            continue
        rows = []
        for cipher in sorted(ciphers, key=lambda c: -_fastest(c, measured)):
            grade = grade_of(cipher, Kind.CIPHER)
            style: Style = GRADE_STYLE[grade] if grade.flagged else ""
            mark = flagged_name(cipher, Kind.CIPHER)[len(cipher):]
            name = (Span(cipher, style), *((Span(mark, style),) if mark else ()))
            figures = [_cell(report, direction, cipher, m) for report, m in zip(runs, measured, strict=True)]
            rows.append(Row((name, *(cell(c, style) for c in figures)), grade if grade.flagged else None))
        columns = (Column("cipher", code=True), *(Column(r.label, numeric=True) for r in runs))
        tables.append(Table(f"Cipher x host, {direction} (MB/s, pipe, steady state)", columns, tuple(rows),
                            ("each cell: MB/s, median ±95% interval; CPU: client / server CPU seconds per GiB "
                             "(unknown: -), same machine and cipher: which server is faster, and cheaper",)))
    return tables


def host_tables(fleet: Fleet) -> list[Table]:
    """Everything that compares hosts; empty for a single host."""
    if len(fleet.runs) < 2:
        return []
    return [overview(fleet), *cipher_by_host(fleet), *fleet_tables(fleet)]
