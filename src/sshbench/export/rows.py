"""The result tables as plain rows of text, shared by the Markdown and HTML exporters.

One place decides what a table shows and how a figure is written (`812 ±14`),
so every export says the same thing; each exporter only chooses the markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sshbench.algorithms import Grade, Kind, lookup
from sshbench.model import Report, Stat, Summary
from sshbench.units import MiB

GROUPS = (("cipher:upload", "Ciphers, upload (client to server)"),
          ("cipher:download", "Ciphers, download (server to client)"),
          ("mac:upload", "MACs, upload (client to server)"),
          ("kex:setup", "Key exchange: connection handshake"),
          ("hostkey:setup", "Host key algorithms: connection handshake"))
LEGEND = ("812 ±14: median and half-width of its 95% interval (order statistics). '=': not significantly "
          "different from the row above (Mann-Whitney U, p >= 0.05). MB/s = 10^6 B/s, MiB/s = 2^20 B/s. "
          "factor 1.00 = fastest.")


@dataclass(frozen=True)
class Row:
    cells: list[str]
    flagged: Grade | None = None  # weak or broken: renderers mark the row


@dataclass(frozen=True)
class TableSpec:
    title: str
    headers: list[str]
    rows: list[Row] = field(default_factory=list)
    numeric_from: int = 3  # columns from here on are right-aligned figures


def pm(stat: Stat | None, scale: float, digits: int = 0) -> str:
    if stat is None:
        return "-"
    text = f"{stat.median / scale:,.{digits}f}"
    return text + (f" ±{stat.half_width / scale:,.{digits}f}" if stat.half_width is not None else "")


def _rank(summary: Summary) -> str:
    return "=" if summary.tied_with_previous else str(summary.rank or "-")


def _flag(grade: Grade) -> Grade | None:
    return grade if grade.flagged else None


def _grade_text(grade: Grade) -> str:
    return {Grade.WEAK: "weak (!)", Grade.BROKEN: "broken (!!)"}.get(grade, grade.value)


def tables(report: Report) -> list[TableSpec]:
    out = []
    for group, title in GROUPS:
        summaries = sorted((s for s in report.summaries if s.group == group),
                           key=lambda s: (s.rank is None, s.rank or 0))
        if not summaries:
            continue
        setup = group.endswith(":setup")
        headers = (["#", "algorithm", "grade", "handshake ms", "kex ms", "factor", "n"] if setup else
                   ["#", "algorithm", "grade", "MB/s", "MiB/s", "factor", "CPU s/GiB client",
                    "CPU s/GiB server", "n"])
        rows = []
        for s in summaries:
            case = report.case(s.case_id).case
            grade = lookup(case.subject, case.kind).grade
            head = [_rank(s), case.subject, _grade_text(grade)]
            if setup:
                figures = [pm(s.handshake_seconds, 1e-3, 1), pm(s.kex_seconds, 1e-3, 1)]
            else:
                figures = [pm(s.throughput_bytes_per_second, 1e6), pm(s.throughput_bytes_per_second, MiB)]
            figures.append(f"{s.factor or 0:.2f}")
            if not setup:
                figures += [pm(s.client_cpu_seconds_per_gib, 1, 2), pm(s.server_cpu_seconds_per_gib, 1, 2)]
            count = f"{s.samples_ok}" + (f" ({s.outliers} outliers)" if s.outliers else "")
            rows.append(Row([*head, *figures, count], _flag(grade)))
        out.append(TableSpec(title, headers, rows))
    controls = controls_table(report)
    if controls.rows:
        out.append(controls)
    return out


def controls_table(report: Report) -> TableSpec:
    pairs = [(report.case(s.case_id).case, s) for s in report.summaries]
    pairs = [(c, s) for c, s in pairs if c.kind in (Kind.CONTROL, Kind.CEILING) and s.throughput_bytes_per_second]
    pairs.sort(key=lambda cs: (cs[0].kind is Kind.CEILING, cs[0].subject))
    rows = [Row(["raw TCP over loopback" if c.kind is Kind.CONTROL else f"crypto ceiling {c.subject}",
                 pm(s.throughput_bytes_per_second, 1e6), str(s.samples_ok)]) for c, s in pairs]
    return TableSpec("Controls and ceilings, measured in the same run", ["reference", "MB/s", "n"], rows,
                     numeric_from=1)


def facts(report: Report) -> list[str]:
    """The machine, versions and method, one line each."""
    env = report.environment
    host, client, server = env.get("host", {}), env.get("client", {}), env.get("server", {})
    flags = ", ".join(f for f, on in host.get("cpu_flags", {}).items() if on and f in ("aes", "vaes", "sha_ni"))
    opts = report.options
    mode = (f"fixed, {opts['runs']} samples per case" if opts.get("runs") is not None else
            f"precision ±{opts.get('precision', 0) * 100:g}% (95% interval of the median), "
            f"{opts.get('min_runs')}-{opts.get('max_runs')} samples per case")
    lines = [
        f"machine: {host.get('cpu_model')} x{host.get('cpu_count')} ({flags or 'no AES/SHA instructions'}), "
        f"{host.get('os')}, kernel {host.get('kernel')}",
        f"client: {client.get('version')}, {client.get('openssl')}; server: {server.get('kind')} "
        f"{server.get('version')}",
        f"data: {opts.get('data')} bytes, SSH compression {'on' if opts.get('compression') else 'off'}; "
        f"mode: {mode}; seed {report.seed}; status {report.status}"
        + (f" ({report.stop_reason})" if report.stop_reason else ""),
    ]
    if env.get("crypto", {}).get("aesni_masked"):
        lines.append("AES-NI, VAES and PCLMULQDQ masked in OpenSSL (--no-aesni)")
    return lines
