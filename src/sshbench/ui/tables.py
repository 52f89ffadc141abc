"""Ranked result tables and the algorithm list, built from a Report: no commands run here.

Units: MB/s is 10^6 bytes per second, MiB/s is 2^20; both are shown because
people compare with tools that use either. CPU cost is CPU seconds per GiB
moved, per side, which stays steady when wall-clock throughput does not.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich import box
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from sshbench.advice import limits
from sshbench.algorithms import Grade, Kind, lookup
from sshbench.controls import EVP_OF
from sshbench.discovery import ClientInfo, ServerInfo
from sshbench.export.hosts import HOSTS_NOTE, host_tables
from sshbench.export.rows import (
    MATRIX_LEGEND,
    TableSpec,
    files_fact,
    iperf_fact,
    matrix_cell,
    method_label,
    method_matrices,
)
from sshbench.model import CaseStatus, Direction, Report, Stat, Summary, host_label
from sshbench.units import MiB, format_bytes

GRADE_STYLE = {
    Grade.RECOMMENDED: "green",
    Grade.ACCEPTABLE: "default",
    Grade.WEAK: "yellow",
    Grade.BROKEN: "bold red",
    Grade.UNKNOWN: "dim",
}
GRADE_MARK = {Grade.WEAK: "! weak", Grade.BROKEN: "!! broken"}


def grade_text(name: str, kind: Kind) -> Text:
    grade = lookup(name, kind).grade
    return Text(GRADE_MARK.get(grade, grade.value), style=GRADE_STYLE[grade])


def name_text(name: str, kind: Kind) -> Text:
    grade = lookup(name, kind).grade
    return Text(name, style="bold red" if grade is Grade.BROKEN else "yellow" if grade is Grade.WEAK else "")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f}"


def _interval(summary: Summary, stat: Stat | None) -> Text:
    """Half-width of the median's 95% interval in percent, green when it met the precision target."""
    width = stat.relative_half_width if stat else None
    if width is None:
        return Text("n<6", style="dim")
    style = "green" if summary.precise else "yellow" if summary.precise is False else ""
    return Text(f"±{width * 100:.1f}%", style=style)


def _num(stat: Stat | None, scale: float = 1.0, digits: int = 0, interval: bool = False) -> str:
    """Median, with its 95% interval's half-width ("812 ±14") when asked and known."""
    if stat is None:
        return "-"
    text = f"{stat.median / scale:,.{digits}f}"
    if interval and stat.half_width is not None:
        text += f" ±{stat.half_width / scale:,.{digits}f}"
    return text


def _rank(summary: Summary) -> str:
    if summary.rank is None:
        return "-"
    return "=" if summary.tied_with_previous else str(summary.rank)


_TITLES = {
    (Kind.CIPHER, Direction.UPLOAD): "Ciphers, upload (client -> server)",
    (Kind.CIPHER, Direction.DOWNLOAD): "Ciphers, download (server -> client)",
    (Kind.MAC, Direction.UPLOAD): "MACs, upload (client -> server)",
    (Kind.KEX, Direction.SETUP): "Key exchange: connection handshake",
    (Kind.HOSTKEY, Direction.SETUP): "Host key algorithms: connection handshake",
}


LEGEND = ("±: 95% interval of the median (order statistics), green when within the precision target\n"
          "'=': not significantly different from the row above (Mann-Whitney U, p >= 0.05)")


def _group_caption(report: Report, kind: Kind) -> str:
    opts = report.options
    if kind is Kind.CIPHER:
        text = (f"non-AEAD ciphers use MAC {opts['cipher_mac']}; AEAD ciphers need none\n"
                "efficiency: SSH throughput as a share of this cipher's crypto ceiling and of raw TCP; "
                "cycles/B: CPU per byte at the clock above")
    elif kind is Kind.MAC:
        text = f"all with cipher {opts['mac_cipher']}"
    else:
        text = ("handshake = banner sent -> session open (start-up of ssh and of the remote shell excluded); "
                "kex = KEXINIT sent -> NEWKEYS received")
    return f"{text}\n{LEGEND}"


def _references(report: Report) -> tuple[Stat | None, dict[str, Stat]]:
    """The raw TCP control's throughput and each cipher's crypto ceiling, from this run."""
    tcp, ceilings = None, {}
    for summary in report.summaries:
        case = report.case(summary.case_id).case
        if case.kind is Kind.CONTROL:
            tcp = summary.throughput_bytes_per_second
        elif case.kind is Kind.CEILING and case.cipher and summary.throughput_bytes_per_second:
            ceilings[case.cipher] = summary.throughput_bytes_per_second
    return tcp, ceilings


def _share(value: Stat | None, ceiling: Stat | None) -> str:
    if value is None or ceiling is None or not ceiling.median:
        return "-"
    return f"{value.median / ceiling.median * 100:.0f}%"


def _throughput_table(report: Report, kind: Kind, direction: Direction, rows: list[Summary]) -> Table:
    sizes = [report.case(s.case_id).size_bytes for s in rows]
    source = {report.case(s.case_id).size_source for s in rows}
    how = "sized from the warm-up to last ~{:g} s".format(report.options.get("sample_seconds", 1.0)) \
        if source == {"auto"} else "fixed" if source == {"fixed"} else \
        "the file methods' test size" if source == {"file"} else "mixed"
    span = format_bytes(min(sizes)) if min(sizes) == max(sizes) else \
        f"{format_bytes(min(sizes))} to {format_bytes(max(sizes))}"
    table = _table(_TITLES[(kind, direction)], f"{_group_caption(report, kind)}\nbytes per sample: {span} ({how})")
    tcp, ceilings = _references(report)
    _columns(table, kind, ("MB/s", "MiB/s", "±", "factor", "efficiency\ncrypto TCP",
                           "CPU s/GiB\nclient", "CPU s/GiB\nserver", "cycles/B\nclnt srv", "n"))
    for summary in rows:
        record = report.case(summary.case_id)
        name = record.case.subject
        tput = summary.throughput_bytes_per_second
        table.add_row(
            _rank(summary), name_text(name, kind), grade_text(name, kind),
            _num(tput, 1e6, interval=True), _num(tput, MiB), _interval(summary, tput),
            "-" if summary.factor is None else f"{summary.factor:.2f}",
            f"{_share(tput, ceilings.get(record.case.cipher or '')) if kind is Kind.CIPHER else '-':>4} "
            f"{_share(tput, tcp):>4}",
            _num(summary.client_cpu_seconds_per_gib, digits=2, interval=True),
            _num(summary.server_cpu_seconds_per_gib, digits=2, interval=True),
            f"{_num(summary.client_cycles_per_byte, digits=1):>4} {_num(summary.server_cycles_per_byte, digits=1):>4}",
            _count(summary),
        )
    return table


def _table(title: str, caption: str) -> Table:
    """All result tables share one compact style: no vertical rules, so wide tables still fit."""
    return Table(title=title, caption=caption, title_justify="left", box=box.SIMPLE_HEAD)


def _columns(table: Table, kind: Kind, figures: tuple[str, ...]) -> None:
    table.add_column("#", justify="right")
    table.add_column(kind.value, no_wrap=True)
    table.add_column("grade", no_wrap=True)
    for title in figures:
        table.add_column(title, justify="right", no_wrap=True)


def _count(summary: Summary) -> Text:
    text = Text(str(summary.samples_ok))
    if summary.outliers:
        text.append(f" ({summary.outliers} out)", style="yellow")
    if summary.samples_failed:
        text.append(f" ({summary.samples_failed} failed)", style="red")
    return text


def _setup_table(report: Report, kind: Kind, rows: list[Summary]) -> Table:
    table = _table(_TITLES[(kind, Direction.SETUP)], _group_caption(report, kind))
    _columns(table, kind, ("handshake\nms", "min-max\nms", "±", "factor", "kex\nms", "CPU ms\nclient",
                           "CPU ms\nserver", "n"))
    for summary in rows:
        name = report.case(summary.case_id).case.subject
        setup = summary.handshake_seconds
        table.add_row(
            _rank(summary), name_text(name, kind), grade_text(name, kind),
            _ms(setup.median if setup else None),
            "-" if setup is None else f"{setup.min * 1000:.0f}-{setup.max * 1000:.0f}",
            _interval(summary, setup), "-" if summary.factor is None else f"{summary.factor:.2f}",
            _ms(summary.kex_seconds.median if summary.kex_seconds else None),
            _ms(summary.client_cpu_seconds.median if summary.client_cpu_seconds else None),
            _ms(summary.server_cpu_seconds.median if summary.server_cpu_seconds else None),
            _count(summary),
        )
    return table


def controls_table(report: Report) -> Table | None:
    """The references measured in this run: what SSH is compared against in the efficiency columns."""
    rows = [(report.case(s.case_id).case, s) for s in report.summaries]
    rows = [(c, s) for c, s in rows if c.kind in (Kind.CONTROL, Kind.CEILING)]
    if not rows:
        return None
    table = _table("Controls and ceilings, measured in this run",
                   "raw TCP: the same splice source and sink over loopback TCP, no SSH\n"
                   "crypto ceiling: openssl speed -evp, one core, 16 KiB blocks, the libcrypto ssh uses")
    for header_text in ("reference", "OpenSSL primitive", "MB/s", "MiB/s", "±", "n"):
        table.add_column(header_text, justify="left" if header_text in ("reference", "OpenSSL primitive")
                         else "right", no_wrap=True)
    rows.sort(key=lambda cs: (cs[0].kind is Kind.CEILING, cs[0].subject))
    for case, summary in rows:
        tput = summary.throughput_bytes_per_second
        label = "raw TCP over loopback" if case.kind is Kind.CONTROL else f"crypto ceiling {case.subject}"
        table.add_row(label, "-" if case.kind is Kind.CONTROL else EVP_OF.get(case.subject, "-"),
                      _num(tput, 1e6, interval=True), _num(tput, MiB), _interval(summary, tput), _count(summary))
    return table


def matrix_tables(report: Report) -> list[RenderableType]:
    """Method x cipher, per direction: the answer to "which cipher AND which tool"."""
    files = report.environment.get("files", {})
    tables: list[RenderableType] = []
    for matrix in method_matrices(report):
        caption = ""
        if files:
            caption = (f"file tools moved {files.get('describe')} per transfer, receiver writing "
                       f"{'a real file' if files.get('sink') == 'file' else '/dev/null'}; "
                       f"checked: {_verified(report, matrix.direction)}")
        table = Table(title=f"Transfer method x cipher, {matrix.direction}", title_justify="left",
                      box=box.SIMPLE_HEAD)
        table.add_column("method", no_wrap=True)
        for cipher in matrix.ciphers:
            table.add_column(name_text(cipher, Kind.CIPHER), justify="right", no_wrap=True)
        for method in matrix.methods:
            cells = [matrix.cells.get((method, cipher)) for cipher in matrix.ciphers]
            table.add_row(method_label(method), *[
                _matrix_text(cell, files.get("files", 1) if method != "pipe" else 1, files.get("file_bytes", 0))
                for cell in cells])
        tables += [table, Text(f"{caption}\n{MATRIX_LEGEND}\n", style="dim")]
    return tables


def _matrix_text(summary: Summary | None, per_transfer: int, file_bytes: int) -> Text:
    lines = matrix_cell(summary, per_transfer, file_bytes)
    text = Text(lines[0], style="bold")
    if summary is not None and summary.precise is False:
        text.stylize("yellow")
    for line in lines[1:]:
        text.append("\n" + line, style="dim" if line.startswith("CPU") else "")
    return text


def _verified(report: Report, direction: str) -> str:
    """How the received files of this direction's file-method samples were checked, counted."""
    counts: dict[str, int] = {}
    for sample in report.samples:
        case = report.case(sample.case_id).case
        if case.method != "pipe" and case.direction.value == direction and sample.ok and not sample.warmup:
            counts[sample.verified or "none"] = counts.get(sample.verified or "none", 0) + 1
    return ", ".join(f"{what} x{n}" for what, n in sorted(counts.items())) or "nothing yet"


def result_tables(report: Report) -> list[RenderableType]:
    """One ranked table per (kind, direction) that has summaries, in a fixed reading order."""
    tables: list[RenderableType] = []
    for kind, direction in _TITLES:
        rows = [s for s in report.summaries if s.group == f"{kind.value}:{direction.value}"]
        if not rows:
            continue
        rows.sort(key=lambda s: (s.rank is None, s.rank or 0))
        if direction is Direction.SETUP:
            tables.append(_setup_table(report, kind, rows))
        else:
            tables.append(_throughput_table(report, kind, direction, rows))
    tables += matrix_tables(report)
    controls = controls_table(report)
    if controls is not None:
        tables.append(controls)
    return tables


def header(report: Report) -> Text:
    env = report.environment
    host, client, server = env.get("host", {}), env.get("client", {}), env.get("server", {})
    flags = ", ".join(f for f, on in host.get("cpu_flags", {}).items() if on and f in ("aes", "vaes", "sha_ni"))
    text = Text()
    text.append("sshbench ", style="bold")
    text.append(f"{report.tool_version}  {report.started_at}  seed {report.seed}\n")
    text.append(f"machine: {host.get('cpu_model')} x{host.get('cpu_count')} ({flags or 'no AES/SHA instructions'})"
                f", {host.get('os')}, kernel {host.get('kernel')}\n")
    text.append(f"client:  {client.get('version')}, {client.get('openssl')}\n")
    openssl = server.get("openssl")
    text.append(f"server:  {server.get('kind')} {server.get('version')}{', ' + openssl if openssl else ''}\n")
    text.append(f"data:    {report.options.get('data')} bytes, SSH compression "
                f"{'on' if report.options.get('compression') else 'off'}; throughput excludes the handshake\n")
    crypto = env.get("crypto", {})
    if crypto.get("aesni_masked"):
        check = crypto.get("mask_check") or {}
        text.append("crypto:  AES-NI, VAES and PCLMULQDQ masked in OpenSSL for client, server and ceilings "
                    f"(verified: aes-128-gcm {check.get('unmasked_bytes_per_second', 0) / 1e6:,.0f} -> "
                    f"{check.get('masked_bytes_per_second', 0) / 1e6:,.0f} MB/s)\n", style="yellow")
    if files := env.get("files"):
        text.append(f"files:   {files_fact(files)}\n")
    if server.get("kind") == "remote":
        rtt = server.get("round_trip_seconds")
        text.append(f"remote:  {server.get('destination')} = {server.get('user')}@{server.get('hostname')} port "
                    f"{server.get('port')}, {server.get('system')}; round trip "
                    f"{'unknown (via proxy)' if rtt is None else f'{rtt * 1000:.2f} ms (TCP connect)'}\n")
    if tcp := iperf_fact(server):
        text.append(f"network: {tcp}\n")
    for line in limits(report):
        text.append(f"limit:   {line}\n")
    if host.get("cpu_mhz"):
        text.append(f"clock:   {host['cpu_mhz']:,.0f} MHz as reported by /proc/cpuinfo (for cycles per byte)\n")
    return text


def run_mode(report: Report) -> Text:
    """How the run decided when to stop, and whether it got there."""
    opts = report.options
    if opts.get("runs") is not None:
        text = Text(f"mode:    fixed, {opts['runs']} measured samples per throughput case, "
                    f"{opts['setup_runs']} per set-up case")
    else:
        budget = opts.get("time_budget_seconds")
        text = Text(f"mode:    precision, target ±{opts['precision'] * 100:g}% (95% interval of each median), "
                    f"{opts['min_runs']}-{opts['max_runs']} samples per case, time budget "
                    f"{'none' if budget is None else f'{budget:.0f} s'}")
        short = [s for s in report.summaries if s.precise is False]
        if short:
            text.append(f"\n         {len(short)} of {len(report.summaries)} cases did not reach the target; "
                        "their achieved interval is shown in yellow", style="yellow")
    if report.stop_reason:
        text.append(f"\n         stopped early: {report.stop_reason}", style="yellow")
    return text


def problems(report: Report) -> list[Text]:
    """Skipped and failed cases with their reasons, and warnings: never silently dropped."""
    out = []
    for record in report.cases:
        if record.status in (CaseStatus.SKIPPED, CaseStatus.FAILED):
            style = "yellow" if record.status is CaseStatus.SKIPPED else "red"
            out.append(Text(f"{record.status.value}: {record.case.id}: {record.reason}", style=style))
    out += [Text(f"warning: {w['message']}; {w['advice']}", style="yellow") for w in report.warnings]
    return out


def full_report(report: Report) -> RenderableType:
    parts: list[RenderableType] = [header(report), run_mode(report), *result_tables(report), *problems(report)]
    return Group(*parts)


def spec_table(spec: TableSpec) -> Table:
    """A shared TableSpec (export/rows.py, export/hosts.py) on the terminal; weak and broken rows coloured."""
    table = Table(title=escape(spec.title), title_justify="left", box=box.SIMPLE_HEAD)
    for index, heading in enumerate(spec.headers):  # host labels may hold brackets ([::1]): no markup
        numeric = index >= spec.numeric_from
        table.add_column(escape(heading), justify="right" if numeric else "left", no_wrap=numeric or index == 0)
    for row in spec.rows:
        style = GRADE_STYLE[row.flagged] if row.flagged else None
        cells = [escape(cell) for cell in row.cells]
        if row.flagged:
            cells[0] += f" ({GRADE_MARK[row.flagged]})"
        table.add_row(*cells, style=style)
    return table


def hosts_report(runs: list[Report]) -> RenderableType:
    """The hosts of a multi-host run side by side (after each host's own report)."""
    return Group(Rule("All hosts"), *[spec_table(spec) for spec in host_tables(runs)], Text(HOSTS_NOTE, style="dim"))


def host_rule(report: Report) -> Rule:
    return Rule(f"host {escape(host_label(report))}")


# ---------------------------------------------------------------- `sshbench algos`


def algorithms_tables(client: ClientInfo, server: ServerInfo) -> list[Table]:
    """What the client supports, what the embedded server offers, and each name's grade, side by side."""
    tables = []
    for kind, title in ((Kind.CIPHER, "Ciphers"), (Kind.MAC, "MACs"), (Kind.KEX, "Key exchange"),
                        (Kind.HOSTKEY, "Host key algorithms")):
        table = Table(title=title, title_justify="left")
        for header_text in ("name", "client", "client default", "server", "grade", "why"):
            table.add_column(header_text)
        names: Iterable[str] = dict.fromkeys((*client.supported.of(kind), *server.enabled.of(kind)))
        for name in names:
            alg = lookup(name, kind)
            extra = " (AEAD)" if alg.aead else ""
            table.add_row(
                name_text(name, kind),
                _mark(name in client.supported.of(kind)),
                _mark(name in client.defaults.of(kind)),
                _mark(name in server.enabled.of(kind)),
                grade_text(name, kind),
                alg.reason + extra,
            )
        tables.append(table)
    return tables


def _mark(flag: bool) -> Text:
    return Text("yes", style="green") if flag else Text("-", style="dim")
