"""Several hosts measured in one run, side by side: which server is fast, which cipher for which server.

Rows of plain text like rows.py, so the terminal, Markdown and HTML say the
same thing. Only pipe cases compare across hosts: the file methods depend on
each server's disks, which sshbench does not measure remotely.
"""

from __future__ import annotations

from sshbench.advice import limit_of
from sshbench.algorithms import Kind, lookup
from sshbench.environment import ServerFacts, TerrapinFacts, iperf_rate
from sshbench.export.rows import Row, TableSpec, pm
from sshbench.model import CaseStatus, Report, Summary, host_label

DIRECTIONS = ("upload", "download")


def terrapin_word(terrapin: TerrapinFacts | None) -> str:
    server = (terrapin or {}).get("server")
    if not terrapin or server is None:
        return "unknown"
    if terrapin.get("protected"):
        return "protected"
    return "EXPLOITABLE" if server.get("exploitable") else "not protected"


def _round_trip(server: ServerFacts) -> str:
    rtt = server.get("round_trip_seconds")
    if server.get("kind") != "remote":
        return "loopback"
    return "unknown" if rtt is None else f"{rtt * 1000:.2f} ms"


def _raw_tcp(server: ServerFacts) -> str:
    rates = [iperf_rate(server, d) for d in DIRECTIONS]
    if not any(rates):
        return "-" if server.get("kind") != "remote" else "not measured"
    return " / ".join("-" if r is None else f"{r / 1e6:,.0f}" for r in rates)


def overview(runs: list[Report]) -> TableSpec:
    """One row per host: what it runs, how far it is, and its fastest cipher and limit per direction."""
    headers = ["host", "server", "round trip", "Terrapin", "raw TCP MB/s up / down (iperf3)"]
    for direction in DIRECTIONS:  # the cipher's name is in the cipher x host table below
        headers += [f"fastest {direction} MB/s", f"{direction} limited by"]
    rows = []
    for report in runs:
        server = report.environment.get("server", {})
        cells = [host_label(report), str(server.get("version")), _round_trip(server),
                 terrapin_word(report.environment.get("terrapin")), _raw_tcp(server)]
        for direction in DIRECTIONS:
            limit = limit_of(report, direction)
            if limit is None:
                cells += ["-", "-"]
                continue
            best = _pipe_cipher(report, direction).get(limit.cipher)
            rate = pm(best.throughput_bytes_per_second, 1e6) if best else f"{limit.rate / 1e6:,.0f}"
            cells += [rate, limit.bound_by]
        rows.append(Row(cells))
    return TableSpec("Hosts", headers, rows, numeric_from=len(headers))


def _pipe_cipher(report: Report, direction: str) -> dict[str, Summary]:
    out = {}
    for summary in report.summaries:
        case = report.case(summary.case_id).case
        if case.kind is Kind.CIPHER and case.method == "pipe" and case.direction.value == direction and case.cipher:
            out[case.cipher] = summary
    return out


def _fastest(cipher: str, measured: list[dict[str, Summary]]) -> float:
    rates = [0.0]
    for per_host in measured:
        stat = per_host[cipher].throughput_bytes_per_second if cipher in per_host else None
        if stat is not None:
            rates.append(stat.median)
    return max(rates)


def _cell(report: Report, direction: str, cipher: str, measured: dict[str, Summary]) -> str:
    summary = measured.get(cipher)
    if summary is not None and summary.throughput_bytes_per_second is not None:
        return pm(summary.throughput_bytes_per_second, 1e6)
    for record in report.cases:
        case = record.case
        if (case.kind is Kind.CIPHER and case.method == "pipe" and case.cipher == cipher
                and case.direction.value == direction and record.status in (CaseStatus.SKIPPED, CaseStatus.FAILED)):
            return "not offered" if "not offered" in (record.reason or "") else record.status.value
    offered = report.environment.get("algorithms", {}).get("server_enabled", {}).get("cipher")
    return "not offered" if offered is not None and cipher not in offered else "-"


def cipher_by_host(runs: list[Report]) -> list[TableSpec]:
    """Per direction: ciphers (rows) by hosts (columns), steady-state MB/s of the pipe."""
    specs = []
    for direction in DIRECTIONS:
        measured = [_pipe_cipher(report, direction) for report in runs]
        ciphers = list(dict.fromkeys(c for per_host in measured for c in per_host))
        if not ciphers:
            continue
        order = sorted(ciphers, key=lambda c: -_fastest(c, measured))
        rows = []
        for cipher in order:
            grade = lookup(cipher, Kind.CIPHER).grade
            rows.append(Row([cipher, *[_cell(report, direction, cipher, m) for report, m in zip(runs, measured,
                                                                                            strict=True)]],
                            flagged=grade if grade.flagged else None))
        specs.append(TableSpec(f"Cipher x host, {direction} (MB/s, pipe, steady state)",
                               ["cipher", *[host_label(r) for r in runs]], rows, numeric_from=1))
    return specs


def host_tables(runs: list[Report]) -> list[TableSpec]:
    """Everything that compares hosts; empty for a single host."""
    if len(runs) < 2:
        return []
    return [overview(runs), *cipher_by_host(runs)]


HOSTS_NOTE = ("Hosts were measured one after another, never in parallel, each with its own share of the time "
              "budget and byte cap. To compare them by shape rather than speed: sshbench compare FILE "
              "--normalize CIPHER.")
