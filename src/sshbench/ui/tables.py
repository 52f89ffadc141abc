"""Ranked result tables and the algorithm list, built from a Report: no commands run here.

Units: MB/s is 10^6 bytes per second, MiB/s is 2^20; both are shown because
people compare with tools that use either. CPU cost is CPU seconds per GiB
moved, per side, which stays steady when wall-clock throughput does not.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from sshbench.algorithms import Grade, Kind, lookup
from sshbench.discovery import ClientInfo, ServerInfo
from sshbench.model import CaseStatus, Direction, Report, Stat, Summary
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


def _spread(stat: Stat | None) -> str:
    """Relative standard deviation: how much to trust the median's neighbours."""
    if stat is None or stat.count < 2 or not stat.median:
        return "-"
    return f"±{stat.stdev / stat.mean * 100:.1f}%"


def _num(stat: Stat | None, scale: float = 1.0, digits: int = 0) -> str:
    return "-" if stat is None else f"{stat.median / scale:,.{digits}f}"


_TITLES = {
    (Kind.CIPHER, Direction.UPLOAD): "Ciphers, upload (client -> server)",
    (Kind.CIPHER, Direction.DOWNLOAD): "Ciphers, download (server -> client)",
    (Kind.MAC, Direction.UPLOAD): "MACs, upload (client -> server)",
    (Kind.KEX, Direction.SETUP): "Key exchange: connection handshake",
    (Kind.HOSTKEY, Direction.SETUP): "Host key algorithms: connection handshake",
}


def _group_caption(report: Report, kind: Kind) -> str:
    opts = report.options
    if kind is Kind.CIPHER:
        return f"non-AEAD ciphers use MAC {opts['cipher_mac']}; AEAD ciphers need none"
    if kind is Kind.MAC:
        return f"all with cipher {opts['mac_cipher']}"
    return ("handshake = banner sent -> remote command running (process start-up excluded); "
            "kex = KEXINIT sent -> NEWKEYS received")


def _throughput_table(report: Report, kind: Kind, direction: Direction, rows: list[Summary]) -> Table:
    table = Table(title=_TITLES[(kind, direction)], caption=_group_caption(report, kind), title_justify="left")
    _columns(table, kind, ("MB/s", "MiB/s", "spread", "factor", "CPU s/GiB\nclient", "CPU s/GiB\nserver",
                           "handshake\nms", "size", "n"))
    for summary in rows:
        record = report.case(summary.case_id)
        name = record.case.subject
        tput = summary.throughput_bytes_per_second
        table.add_row(
            str(summary.rank or "-"), name_text(name, kind), grade_text(name, kind),
            _num(tput, 1e6), _num(tput, MiB), _spread(tput), "-" if summary.factor is None else f"{summary.factor:.2f}",
            _num(summary.client_cpu_seconds_per_gib, digits=2), _num(summary.server_cpu_seconds_per_gib, digits=2),
            _ms(summary.handshake_seconds.median if summary.handshake_seconds else None),
            format_bytes(record.size_bytes), _count(summary),
        )
    return table


def _columns(table: Table, kind: Kind, figures: tuple[str, ...]) -> None:
    table.add_column("#", justify="right")
    table.add_column(kind.value, no_wrap=True)
    table.add_column("grade", no_wrap=True)
    for title in figures:
        table.add_column(title, justify="right", no_wrap=True)


def _count(summary: Summary) -> Text:
    text = Text(str(summary.samples_ok))
    if summary.samples_failed:
        text.append(f" ({summary.samples_failed} failed)", style="red")
    return text


def _setup_table(report: Report, kind: Kind, rows: list[Summary]) -> Table:
    table = Table(title=_TITLES[(kind, Direction.SETUP)], caption=_group_caption(report, kind),
                  title_justify="left")
    _columns(table, kind, ("handshake\nms", "min-max\nms", "spread", "factor", "kex\nms", "CPU ms\nclient",
                           "CPU ms\nserver", "n"))
    for summary in rows:
        name = report.case(summary.case_id).case.subject
        setup = summary.handshake_seconds
        table.add_row(
            str(summary.rank or "-"), name_text(name, kind), grade_text(name, kind),
            _ms(setup.median if setup else None),
            "-" if setup is None else f"{setup.min * 1000:.0f}-{setup.max * 1000:.0f}",
            _spread(setup), "-" if summary.factor is None else f"{summary.factor:.2f}",
            _ms(summary.kex_seconds.median if summary.kex_seconds else None),
            _ms(summary.client_cpu_seconds.median if summary.client_cpu_seconds else None),
            _ms(summary.server_cpu_seconds.median if summary.server_cpu_seconds else None),
            _count(summary),
        )
    return table


def result_tables(report: Report) -> list[Table]:
    """One ranked table per (kind, direction) that has summaries, in a fixed reading order."""
    tables: list[Table] = []
    for kind, direction in _TITLES:
        rows = [s for s in report.summaries if s.group == f"{kind.value}:{direction.value}"]
        if not rows:
            continue
        rows.sort(key=lambda s: (s.rank is None, s.rank or 0))
        if direction is Direction.SETUP:
            tables.append(_setup_table(report, kind, rows))
        else:
            tables.append(_throughput_table(report, kind, direction, rows))
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
    text.append(f"server:  {server.get('kind')} {server.get('version')}, {server.get('openssl')}\n")
    text.append(f"data:    {report.options.get('data')} bytes, SSH compression "
                f"{'on' if report.options.get('compression') else 'off'}; throughput excludes the handshake\n")
    return text


def problems(report: Report) -> list[Text]:
    """Skipped and failed cases with their reasons, and warnings: never silently dropped."""
    out = []
    for record in report.cases:
        if record.status in (CaseStatus.SKIPPED, CaseStatus.FAILED):
            style = "yellow" if record.status is CaseStatus.SKIPPED else "red"
            out.append(Text(f"{record.status.value}: {record.case.id}: {record.reason}", style=style))
    out += [Text(f"warning: {w}", style="yellow") for w in report.warnings]
    return out


def full_report(report: Report) -> RenderableType:
    parts: list[RenderableType] = [header(report), *result_tables(report), *problems(report)]
    return Group(*parts)


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
