"""The result tables as plain rows of text, shared by the Markdown and HTML exporters.

One place decides what a table shows and how a figure is written (`812 ±14`),
so every export says the same thing; each exporter only chooses the markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sshbench.advice import limits
from sshbench.algorithms import Grade, Kind, lookup
from sshbench.environment import FilesFacts, ServerFacts, iperf_rate
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
    for group, title in GROUPS:  # the pipe's groups; other methods are in the method x cipher matrix
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
    out += matrix_tables(report)
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
    if tcp := iperf_fact(server):
        lines.append(tcp)
    lines += [f"limit: {line}" for line in limits(report)]
    if files := env.get("files"):
        lines.append(files_fact(files))
        lines += [f"{method}: {command}" for method, command in files.get("commands", {}).items()]
    return lines


def iperf_fact(server: ServerFacts) -> str | None:
    """The raw-TCP ceiling of a real host: iperf3's figures, or why there are none."""
    if server.get("kind") != "remote" or "iperf3" not in server:
        return None
    iperf = server["iperf3"] or {}
    figures = ", ".join(f"{rate / 1e6:,.0f} MB/s {d}" for d in ("upload", "download")
                        if (rate := iperf_rate(server, d)))
    if figures:
        return f"raw TCP to this host (iperf3, {iperf.get('version') or 'version unknown'}): {figures}" + (
            f"; {iperf['skipped']}" if iperf.get("skipped") else "")
    return f"raw TCP to this host: not measured ({iperf.get('skipped')})"


def files_fact(files: FilesFacts) -> str:
    """What the file methods moved, where to, how it was checked, and how fast the disk was."""
    disk = files.get("disk") or {}
    checked = ("exit status and ssh's byte count" if files.get("sink") == "null" else
               "size and SHA-256" if files.get("verify") else "size")
    return (f"file methods: {files.get('describe')} per transfer in {files.get('workdir')}, receiver writes "
            f"{'a real file' if files.get('sink') == 'file' else '/dev/null'}, {checked} checked; disk (warm): source "
            f"read {disk.get('read_bytes_per_second', 0) / 1e6:,.0f} MB/s, sink write "
            f"{disk.get('write_bytes_per_second', 0) / 1e6:,.0f} MB/s")


# ---------------------------------------------------------------- method x cipher matrix

MATRIX_LEGEND = ("each cell: steady-state MB/s ±95% interval (pipe: the data phase alone; file tools: total time "
                 "minus the same tool moving 1 byte); e2e: end-to-end MB/s, start-up and handshake included, "
                 "what the user waits for; CPU: client / server CPU s/GiB in the steady state")


@dataclass(frozen=True)
class Matrix:
    """Transfer methods (rows) by ciphers (columns) for one direction."""

    direction: str
    methods: list[str]
    ciphers: list[str]
    cells: dict[tuple[str, str], Summary]


def method_matrices(report: Report) -> list[Matrix]:
    """One matrix per direction, when more than one transfer method was measured."""
    out = []
    for direction in ("upload", "download"):
        cells: dict[tuple[str, str], Summary] = {}
        for summary in report.summaries:
            case = report.case(summary.case_id).case
            if case.kind is Kind.CIPHER and case.direction.value == direction and case.cipher:
                cells[(case.method, case.cipher)] = summary
        methods = list(dict.fromkeys(m for m, _ in cells))
        if len(methods) < 2 and not any(m != "pipe" for m in methods):
            continue
        ciphers = list(dict.fromkeys(c for _, c in cells))
        out.append(Matrix(direction, methods, ciphers, cells))
    return out


def method_label(method: str) -> str:
    from sshbench.methods import parse_method

    return parse_method(method).label


def matrix_cell(summary: Summary | None, files_per_transfer: int = 1, file_bytes: int = 0) -> list[str]:
    """A cell's lines: steady-state rate, end-to-end rate, CPU per side (and files/s for a set)."""
    if summary is None or summary.throughput_bytes_per_second is None:
        return ["-"]
    steady = summary.throughput_bytes_per_second
    lines = [pm(steady, 1e6)]
    if summary.end_to_end_bytes_per_second:
        lines.append(f"e2e {pm(summary.end_to_end_bytes_per_second, 1e6)}")
    client, server = summary.client_cpu_seconds_per_gib, summary.server_cpu_seconds_per_gib
    lines.append(f"CPU {client.median if client else float('nan'):.2f} / "
                 f"{server.median if server else float('nan'):.2f}".replace("nan", "?"))
    if files_per_transfer > 1 and file_bytes:
        lines.append(f"{steady.median / file_bytes:,.0f} files/s")
    return lines


def matrix_tables(report: Report, separator: str = " · ") -> list[TableSpec]:
    facts_files = report.environment.get("files", {})
    per_transfer, file_bytes = facts_files.get("files", 1), facts_files.get("file_bytes", 0)
    specs = []
    for matrix in method_matrices(report):
        headers = ["method", *[c + {Grade.WEAK: " (!)", Grade.BROKEN: " (!!)"}.get(lookup(c, Kind.CIPHER).grade, "")
                               for c in matrix.ciphers]]
        rows = []
        for method in matrix.methods:
            cells = [separator.join(matrix_cell(matrix.cells.get((method, c)),
                                                per_transfer if method != "pipe" else 1, file_bytes))
                     for c in matrix.ciphers]
            rows.append(Row([method_label(method), *cells]))
        specs.append(TableSpec(f"Transfer method x cipher, {matrix.direction}", headers, rows, numeric_from=1))
    return specs
