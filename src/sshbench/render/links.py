"""Tables of a run over emulated links: the links as measured, each case per link with what limited it, echo.

Every figure comes from the report (analysis/physics/links.py computes the
ceilings); a renderer never runs anything. Each link's own detailed tables
(rankings with intervals, the method matrix, references) follow, drawn by
the ordinary table builders on that link's view of the report.
"""

from __future__ import annotations

from dataclasses import replace

from sshbench.analysis.findings import CPU_BOUND_SHARE, LINK_FULL_SHARE, WINDOW_BOUND_SHARE, Bound, Findings
from sshbench.implementations import IMPLEMENTATIONS
from sshbench.render.labels import flagged_name, pm
from sshbench.render.matrix import method_label
from sshbench.render.table_model import Cell, Column, Row, Span, Style, Table, cell
from sshbench.results.model import Direction, Report
from sshbench.results.views import builds_of, link_view, side_word
from sshbench.vocabulary.algorithms import Kind


def _windows() -> str:
    """The receive windows as the implementations state them (implementations/): one source for the figures."""
    return "; ".join(impl.window_note for impl in IMPLEMENTATIONS.values() if impl.window_note)


VERDICT_STYLE: dict[str, Style] = {"cpu": "", "window": "warn", "link": "good", "loss": "warn", "none": "dim"}
LEGEND = (f"each cell: steady-state MB/s ±95% interval, then what limited it and how close it came: CPU (a side "
          f"at >= {CPU_BOUND_SHARE:.0%} of a core), window (SSH's flow control: >= {WINDOW_BOUND_SHARE:.0%} of window "
          f"/ RTT), link (>= {LINK_FULL_SHARE:.0%} of raw TCP through the same link), or below limits")


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:,.2f}" if seconds < 0.01 else f"{seconds * 1000:,.1f}"


def links_overview(found: Findings) -> Table:
    """Each link: asked for, how it was made, and what was measured on it (RTT, raw TCP, window limits)."""
    report, tcp = found.report, found.references.measured_tcp
    rows = []
    build = next(iter(builds_of(report)), "")
    for link, windows in zip(report.environment.links, found.windows, strict=True):
        rtt = link.rtt_seconds
        limits = [_per_rtt(windows.upload, rtt), _per_rtt(windows.download, rtt)]
        for direction in (Direction.UPLOAD.value, Direction.DOWNLOAD.value):
            limits.append(_per_rtt(link.tcp_receive_buffer(direction), rtt))
        spread = (f"{_ms(min(link.connect_seconds))}-{_ms(max(link.connect_seconds))}"
                  if link.connect_seconds else "-")
        wire = "-" if link.emulator_cpu_seconds is None else f"{link.emulator_cpu_seconds:,.1f}"
        raw, reliable = tcp.get(link.label, (None, False))
        bdp = "-" if raw is None or not rtt or not reliable else f"{raw.median * rtt / 2**20:,.2f}"
        hosts = {None: "-", True: "tuned", False: "kernel's"}[link.tcp_tuned]
        tcp_cell = pm(raw, 1e6) + ("" if raw is None or reliable else " unreliable")
        rows.append(Row((cell(link.label), cell(_ms(rtt)), cell(spread), cell(tcp_cell), cell(bdp),
                         *(cell(limit) for limit in limits), cell(hosts), cell(link.emulator), cell(wire))))
    columns = (Column("link asked for"), Column("RTT\nms", numeric=True), Column("RTT range\nms", numeric=True),
               Column("raw TCP\nMB/s", numeric=True), Column("BDP\nMiB", numeric=True, priority=2),
               Column("SSH window/RTT\nup MB/s", numeric=True), Column("SSH window/RTT\ndown MB/s", numeric=True),
               Column("TCP buffer/RTT\nup MB/s", numeric=True, priority=2),
               Column("TCP buffer/RTT\ndown MB/s", numeric=True, priority=2),
               Column("hosts'\nTCP", priority=2), Column("made by", wrap=True, priority=3),
               Column("emulator\nCPU s", numeric=True, priority=3))
    which = f" of {side_word(report)} {build}" if build else ""
    return Table("The emulated links, as measured in this run", columns, tuple(rows), (
        "RTT: median TCP connect time across the link (after one warm-up), the range of the 15; raw TCP: the "
        "control case through the same link, no SSH; BDP: bandwidth-delay product, raw TCP x RTT: the bytes in "
        "flight that fill this link",
        f"SSH window/RTT: what one SSH channel{which} can carry per round trip: the receiver's channel window "
        f"({_windows()}) / the measured RTT",
        "TCP buffer/RTT: the most TCP itself can carry per round trip: the receiving end's largest receive buffer "
        "(tcp_rmem) / the RTT; the emulated hosts have a tuned host's (128 MiB, so TCP's window never limits) or "
        "the kernel's defaults (--link-tcp kernel)",
        "the links exist only in sshbench's own network namespaces; docs/links.md says how they are made"), note=True)


def _per_rtt(window: int | None, rtt: float | None) -> str:
    limit = window / rtt if window and rtt else None
    return "-" if limit is None else f"{limit / 1e6:,.{1 if limit < 1e9 else 0}f}"


def _bound_cell(bound: Bound | None) -> Cell:
    if bound is None:
        return cell("-", "dim")
    digits = 1 if bound.rate < 10e6 else 0  # a window-bound Dropbear at 20 ms moves ~1.2 MB/s
    return (Span(pm(bound.stat, 1e6, digits), "strong"),
            Span("\n" + bound.short, VERDICT_STYLE[bound.verdict]))


def across_links(findings: Findings) -> list[Table]:
    """Per direction: rows method x cipher, a column per link."""
    report, found = findings.report, findings.crossed
    labels = [link.label for link in report.environment.links]
    tables = []
    for direction in (Direction.UPLOAD.value, Direction.DOWNLOAD.value):
        mine = [b for b in found if b.direction == direction]
        if not mine:
            continue
        keys = list(dict.fromkeys((b.build, b.method, b.cipher) for b in mine))
        by = {(b.build, b.method, b.cipher, b.link): b for b in mine}
        builds = [(cell(build),) if build else () for build, _, _ in keys]
        rows = tuple(Row((*shown, cell(method_label(method)),
                          cell(flagged_name(cipher, Kind.CIPHER) if "+" not in cipher else cipher),
                          *(_bound_cell(by.get((build, method, cipher, label))) for label in labels)))
                     for shown, (build, method, cipher) in zip(builds, keys, strict=True))
        columns = (*((Column(side_word(report)),) if any(builds) else ()), Column("method"),
                   Column("cipher", code=True),
                   *(Column(label, numeric=True) for label in labels))
        tables.append(Table(f"Across the links, {direction}: MB/s and what limited it", columns, rows,
                            (LEGEND,), note=True))
    return tables


def echo_table(found: Findings) -> Table | None:
    """Keystroke echo round trips per cipher (and build) and link: median ±95% interval (Findings.echoes), in
    milliseconds."""
    report = found.report
    if not report.echoes:
        return None
    labels = list(dict.fromkeys(e.link for e in report.echoes))
    rows_of = list(dict.fromkeys((e.cipher, e.build) for e in report.echoes))
    by = {(f.echo.cipher, f.echo.build, f.echo.link): f for f in found.echoes}
    builds = len({build for _, build in rows_of}) > 1
    obscured = {(e.cipher, e.build): e.obscured for e in report.echoes}
    mixed = len(set(obscured.values())) > 1  # builds whose clients differ: say it per row
    rows = []
    for cipher, build in rows_of:
        cells: list[Cell] = [cell(flagged_name(cipher, Kind.CIPHER))]
        if builds:
            cells.append(cell(build))
        if mixed:
            cells.append(cell("20 ms tick" if obscured[cipher, build] else "at once"))
        for label in labels:
            echo = by.get((cipher, build, label))
            stat = echo.stat if echo is not None else None
            cells.append(cell(f"{pm(stat, 1e-3, 2)} (n={stat.count})" if stat else
                              "failed" if echo is not None else "-", "" if stat else "bad"))
        rows.append(Row(tuple(cells)))
    columns = (Column("cipher", code=True), *((Column(side_word(report)),) if builds else ()),
               *((Column("keystrokes sent"),) if mixed else ()),
               *(Column(label or "loopback", numeric=True) for label in labels))
    clients = ("keystrokes sent: at once, or on the 20 ms tick of a client that obscures keystroke timing "
               "(OpenSSH 9.5+ ObscureKeystrokeTiming, on by default): compare rows of the same kind only" if mixed
               else "this client obscures keystroke timing (OpenSSH 9.5+ ObscureKeystrokeTiming, on by default): "
               "typed bytes wait for its 20 ms tick" if any(obscured.values()) else
               "this client has no ObscureKeystrokeTiming (OpenSSH before 9.5): keystrokes are sent at once")
    return Table("Keystroke echo round trip (interactive latency), ms", columns, tuple(rows), (
        "one byte typed into a pty session (stty raw -echo; cat) and its echo back, as sshping measures; "
        "median ±95% interval", clients), note=True)


def link_tables(found: Findings, per_link: list[tuple[str, list[Table]]]) -> list[Table]:
    """The cross-link tables first, then each link's own tables with the link in their titles."""
    tables = [links_overview(found), *across_links(found)]
    if (echo := echo_table(found)) is not None:
        tables.append(echo)
    for label, own in per_link:
        tables += [replace(t, title=f"{t.title} [link {label}]") for t in own]
    return tables


def per_link_views(report: Report) -> list[tuple[str, Report]]:
    return [(link.label, link_view(report, link.label)) for link in report.environment.links]
