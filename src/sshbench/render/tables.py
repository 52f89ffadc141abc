"""What each result table of a run shows, built once from its Findings for every output (table_model.py).

The terminal, Markdown and HTML all draw these tables; none of them decides
again what a table contains or how a figure is written (labels.py). Nothing
here runs a command or prints.
"""

from __future__ import annotations

from dataclasses import replace

from sshbench.analysis.findings import DecisionRule, Findings
from sshbench.axes import declared
from sshbench.compressors import choice
from sshbench.render.build_tables import build_tables
from sshbench.render.cells import count_cell, factor_cell, interval_cell, rank_cell
from sshbench.render.commands import command_table
from sshbench.render.labels import (
    GRADE_STYLE,
    RELATION_MARK,
    RELATION_STYLE,
    TITLES,
    grade_cell,
    grade_of,
    legend,
    ms,
    pm,
)
from sshbench.render.links import echo_table, link_tables, per_link_views
from sshbench.render.logins import logins_table
from sshbench.render.matrix import matrix_tables
from sshbench.render.phases import phase_table
from sshbench.render.table_model import Cell, Column, Row, Style, Table, cell, plain
from sshbench.render.variants import variant_tables
from sshbench.results.model import Report, Stat, Summary
from sshbench.results.views import Variant, build_view, builds_of, side_word, variant_view, variants_of
from sshbench.vocabulary.algorithms import EVP_OF, Grade, Kind
from sshbench.vocabulary.case_terms import CaseKind, Direction
from sshbench.vocabulary.units import MiB, format_bytes


def _cost_rank(summary: Summary) -> Cell:
    """The case's place in the cost ranking, marked ≈ / ? when it is equivalent to / not yet separable from the
    next cheaper case there (no mark: significantly costlier, or the cheapest)."""
    if summary.cost_rank is None:
        return cell("-")
    relation = summary.cost_relation
    if relation in RELATION_MARK:
        return cell(f"{summary.cost_rank}{RELATION_MARK[relation]}", RELATION_STYLE[relation])
    return cell(str(summary.cost_rank))


def _legacy(report: Report) -> bool:
    """Written before verdicts between neighbours existed (schema 4 and older)."""
    return not any(s.relation for s in report.summaries) and any(s.tied_with_previous for s in report.summaries)


def _reference_spread(summary: Summary, stat: Stat | None) -> Cell:
    """A reference's interval, or with too few samples for one, how far its samples spread (labelled so)."""
    if stat is None or stat.relative_half_width is not None or stat.count < 2 or not stat.median:
        return interval_cell(summary, stat)
    spread = max(stat.median - stat.min, stat.max - stat.median) / stat.median
    return cell(f"range ±{spread * 100:.1f}%", "dim")


def _name_cells(name: str, kind: Kind) -> tuple[Cell, Cell, Grade | None]:
    grade = grade_of(name, kind)
    name_style: Style = "broken" if grade is Grade.BROKEN else "weak" if grade is Grade.WEAK else ""
    return cell(name, name_style), cell(grade_cell(grade), GRADE_STYLE[grade]), grade if grade.flagged else None


def _ranked_columns(kind: Kind, figures: tuple[tuple[str, int], ...]) -> tuple[Column, ...]:
    """Rank, name, grade, then the figures with their priority (key figures first, table_model.Column)."""
    return (Column("#", numeric=True), Column(kind.value, code=True), Column("grade"),
            *(Column(title, numeric=True, priority=priority) for title, priority in figures))


def group_caption(report: Report, kind: Kind, rule: DecisionRule) -> list[str]:
    """A ranked table's caption: what its cases share, then the legend of the rule its verdicts were made with (the
    run's, Findings.rule: every view of a run shares its options, looks and design)."""
    opts = report.options
    if kind is Kind.CIPHER:
        lines = [f"non-AEAD ciphers use MAC {opts.cipher_mac}; AEAD ciphers need none",
                 "efficiency: SSH throughput as a share of this cipher's crypto ceiling and of raw TCP; "
                 "cycles/B: CPU per byte at the clock above"]
    elif kind is Kind.MAC:
        lines = [f"all with cipher {opts.mac_cipher}"]
    else:
        lines = ["handshake = banner sent -> session open (start-up of ssh and of the remote shell excluded); "
                 "kex = KEXINIT sent -> NEWKEYS received"]
    if report.partner_kex and kind is not Kind.KEX:
        lines.append(f"every connection used key exchange {report.partner_kex} (fixed for the run)")
    lines.append(FACTOR_CAPTION)
    table_rule = rule.for_table(kind in (Kind.CIPHER, Kind.MAC))
    return [*lines, *legend(table_rule, opts.mode == "precision", _legacy(report))]


COST_CAPTION = ("cost: the busier side's CPU s/GiB, what a busy server or a battery pays per byte (MB/s says which "
                "single stream is fastest); cost #: its place in a cost ranking of its own, ≈ / ? after it: "
                "equivalent to / not yet separable from the next cheaper there")
SETUP_COST_CAPTION = ("cost: the busier side's CPU ms per login, start-up included, what a busy server pays (handshake "
                      "ms says which logs in fastest); cost #: its place in a cost ranking of its own, ≈ / ? after it: "
                      "equivalent to / not yet separable from the next cheaper there")
FIXED_CAPTION = ("fixed: what a connection's data phase takes beyond its bytes at the steady rate (the stream's start, "
                 "TCP's ramp): paid once per transfer, kept out of MB/s")
FACTOR_CAPTION = "factor: how many times as long as the fastest [its 95% interval, Hodges-Lehmann]"
OPTIONAL = {"cost\nCPU s/GiB": COST_CAPTION, "cost\nCPU ms": SETUP_COST_CAPTION, "fixed\nms": FIXED_CAPTION}


def _without_empty(columns: tuple[Column, ...], rows: list[Row],
                   caption: list[str]) -> tuple[tuple[Column, ...], tuple[Row, ...], tuple[str, ...]]:
    """The table without the optional columns no row has a figure in (files written before sshbench measured
    them), and the caption lines that explain them only where they are shown."""
    empty = {i for i, column in enumerate(columns) if column.title in OPTIONAL or column.title == "cost\n#"}
    empty = {i for i in empty if all(plain(row.cells[i]) == "-" for row in rows)}
    shown = [c.title for i, c in enumerate(columns) if i not in empty]
    lines = [line for line in caption if line not in OPTIONAL.values()] + \
        [text for title, text in OPTIONAL.items() if title in shown]
    return (tuple(c for i, c in enumerate(columns) if i not in empty),
            tuple(Row(tuple(cell for i, cell in enumerate(row.cells) if i not in empty), row.grade) for row in rows),
            tuple(lines))


def _share(value: Stat | None, ceiling: Stat | None) -> str:
    if value is None or ceiling is None or not ceiling.median:
        return "-"
    return f"{value.median / ceiling.median * 100:.0f}%"


def _sizes(report: Report, rows: list[Summary]) -> str:
    views = report.joined()
    sizes = [views[s.case_id].record.size_bytes for s in rows]
    source = {views[s.case_id].record.size_source for s in rows}
    how = ("sized from each case's warm-up" if source == {"auto"} else
           "fixed" if source == {"fixed"} else "the file methods' test size" if source == {"file"} else "mixed")
    span = format_bytes(min(sizes)) if min(sizes) == max(sizes) else \
        f"{format_bytes(min(sizes))} to {format_bytes(max(sizes))}"
    return f"bytes per sample: {span} ({how})"


def throughput_table(report: Report, found: Findings, kind: Kind, direction: Direction, rows: list[Summary]) -> Table:
    views = report.joined()
    link = views[rows[0].case_id].case.link if rows else ""  # a table is one group: one path
    tcp, tops = found.references.raw_tcp.get(link), found.references.ceilings
    out = []
    for summary in rows:
        record = views[summary.case_id].record
        name = record.case.subject
        name_cell, grade, flagged = _name_cells(name, kind)
        tput = summary.throughput_bytes_per_second
        crypto = _share(tput, tops.get(record.case.cipher or "")) if kind is Kind.CIPHER else "-"
        cycles = f"{pm(summary.client_cycles_per_byte, digits=1, interval=False):>4} " \
                 f"{pm(summary.server_cycles_per_byte, digits=1, interval=False):>4}"
        out.append(Row((rank_cell(summary), name_cell, grade, cell(pm(tput, 1e6)), interval_cell(summary, tput),
                        count_cell(summary), cell(pm(summary.cost_seconds_per_gib, digits=2)), _cost_rank(summary),
                        factor_cell(summary), cell(pm(summary.client_cpu_seconds_per_gib, digits=2)),
                        cell(pm(summary.server_cpu_seconds_per_gib, digits=2)),
                        cell(ms(summary.fixed_seconds.median if summary.fixed_seconds else None)),
                        cell(f"{crypto:>4} {_share(tput, tcp):>4}"), cell(pm(tput, MiB, interval=False)),
                        cell(cycles)), flagged))
    columns = _ranked_columns(kind, (("MB/s", 1), ("±", 1), ("n", 1), ("cost\nCPU s/GiB", 1), ("cost\n#", 1),
                                     ("factor", 2), ("CPU s/GiB\nclient", 2), ("CPU s/GiB\nserver", 2),
                                     ("fixed\nms", 3), ("efficiency\ncrypto TCP", 3), ("MiB/s", 3),
                                     ("cycles/B\nclnt srv", 3)))
    return Table(TITLES[(kind, direction)],
                 *_without_empty(columns, out, [*group_caption(report, kind, found.rule), _sizes(report, rows)]))


def setup_table(report: Report, found: Findings, kind: Kind, rows: list[Summary]) -> Table:
    out, views = [], report.joined()
    for summary in rows:
        name_cell, grade, flagged = _name_cells(views[summary.case_id].case.subject, kind)
        setup = summary.handshake_seconds
        out.append(Row((rank_cell(summary), name_cell, grade, cell(ms(setup.median if setup else None)),
                        interval_cell(summary, setup), count_cell(summary),
                        cell(ms(summary.cost_seconds.median if summary.cost_seconds else None)),
                        _cost_rank(summary), factor_cell(summary),
                        cell(ms(summary.kex_seconds.median if summary.kex_seconds else None)),
                        cell(ms(summary.client_cpu_seconds.median if summary.client_cpu_seconds else None)),
                        cell(ms(summary.server_cpu_seconds.median if summary.server_cpu_seconds else None)),
                        cell("-" if setup is None else f"{setup.min * 1000:.0f}-{setup.max * 1000:.0f}")), flagged))
    columns = _ranked_columns(kind, (("handshake\nms", 1), ("±", 1), ("n", 1), ("cost\nCPU ms", 1),
                                     ("cost\n#", 1), ("factor", 2), ("kex\nms", 2), ("CPU ms\nclient", 2),
                                     ("CPU ms\nserver", 2), ("min-max\nms", 3)))
    return Table(TITLES[(kind, Direction.SETUP)],
                 *_without_empty(columns, out, group_caption(report, kind, found.rule)))


def controls_table(report: Report) -> Table | None:
    """The references measured in this run: what SSH is compared against in the efficiency columns."""
    views = report.joined()
    pairs = [(views[s.case_id].case, s) for s in report.summaries]
    pairs = [(c, s) for c, s in pairs if c.kind in (CaseKind.CONTROL, CaseKind.CEILING)]
    if not pairs:
        return None
    pairs.sort(key=lambda cs: (cs[0].kind is CaseKind.CEILING, cs[0].subject))
    rows = []
    for case, summary in pairs:
        tput = summary.throughput_bytes_per_second
        where = f"across the link {case.link}" if case.link else "over loopback"
        label = f"raw TCP {where}" if case.kind is CaseKind.CONTROL else f"crypto ceiling {case.subject}"
        rows.append(Row((cell(label), cell("-" if case.kind is CaseKind.CONTROL else EVP_OF.get(case.subject, "-")),
                         cell(pm(tput, 1e6)), cell(pm(tput, MiB, interval=False)),
                         _reference_spread(summary, tput), count_cell(summary))))
    columns = (Column("reference"), Column("OpenSSL primitive", priority=3), Column("MB/s", numeric=True),
               Column("MiB/s", numeric=True, priority=3), Column("±", numeric=True), Column("n", numeric=True))
    return Table("Controls and ceilings, measured in this run", columns, tuple(rows),
                 ("raw TCP: the same splice source and sink over "
                  f"{'TCP across the same link' if any(c.link for c, _ in pairs) else 'loopback TCP'}, no SSH",
                  "crypto ceiling: openssl speed -evp, one core, 16 KiB blocks, the libcrypto ssh uses",
                  "references are not ranked: 3 samples each, 6 (an interval) when they spread beyond ±5%; "
                  "range: how far the samples lie from their median"))


def result_tables(found: Findings) -> list[Table]:
    """One ranked table per (kind, direction) that has summaries, in a fixed reading order, then the rest.

    Over emulated links: the cross-link tables (render/links.py), then these tables once per link. With
    several SSH builds: the builds side by side (render/build_tables.py), then these tables once per build.
    Each view's tables lay out the figures its cases have in the Findings, concluded once for the whole run.
    """
    report = found.report
    if report.environment.links:
        return link_tables(found, [(label, [*build_tables(found, label), *_per_build(view, found)])
                                    for label, view in per_link_views(report)])
    tables = [*build_tables(found), *_per_build(report, found)]
    if (echo := echo_table(found)) is not None:
        tables.append(echo)
    if (logins := logins_table(found)) is not None:
        tables.append(logins)
    return tables


def _per_build(view: Report, found: Findings) -> list[Table]:
    """A view's tables; with builds, each build's with the build in their titles, and the references once."""
    names = builds_of(view)
    if not names:
        return _per_variant(view, found)
    side = side_word(view)
    tables = [replace(t, title=f"{t.title} [{side} {name}]") for name in names
              for t in _per_variant(build_view(view, name), found, references=False)]
    if (controls := controls_table(view)) is not None:
        tables.append(controls)
    return tables


def variant_title(variant: Variant) -> str:
    """"4 streams, zstd -3" (plain: "1 stream, no compression"), then each declared axis's value in its own words
    (axes/: "64 KiB chunks")."""
    streams, compression, dims = variant
    words = [axis.title(value) for name, value in dims if (axis := declared(name)) is not None]
    return ", ".join([f"{streams} stream{'s' if streams != 1 else ''}", choice(compression).label, *words])


def _per_variant(view: Report, found: Findings, references: bool = True) -> list[Table]:
    """A view's tables once per --streams and --compression pair, each titled with it; the handshake tables and
    the references once."""
    variants = variants_of(view)
    if len(variants) < 2:
        return _tables(view, found, references)
    tables = variant_tables(view, found)  # what each pair did, first; then the rankings within a pair, where they rank
    tables += [replace(t, title=f"{t.title} [{variant_title(variant)}]")
               for index, variant in enumerate(variants)
               for t in _tables(variant_view(view, variant), found, references=False, handshakes=index == 0)
               if index == 0 or len(t.rows) > 1]
    if references and (controls := controls_table(view)) is not None:
        tables.append(controls)
    return tables


def _tables(report: Report, found: Findings, references: bool = True, handshakes: bool = True) -> list[Table]:
    """The ranked tables of one view (one link, build, streams and compression: results/views.py), the method
    matrix, references."""
    tables: list[Table] = []
    cases = {r.case.id: r.case for r in report.cases}
    for kind, direction in TITLES:
        if direction is Direction.SETUP and not handshakes:
            continue
        rows = [s for s in report.summaries if cases[s.case_id].base_group == f"{kind.value}:{direction.value}"]
        if not rows:
            continue
        rows.sort(key=lambda s: (s.rank is None, s.rank or 0))
        tables.append(setup_table(report, found, kind, rows) if direction is Direction.SETUP
                      else throughput_table(report, found, kind, direction, rows))
    if handshakes and (commands := command_table(report, found)) is not None:
        tables.append(commands)
    if handshakes and (phases := phase_table(report, found)) is not None:
        tables.append(phases)
    tables += matrix_tables(report)
    if references and (controls := controls_table(report)) is not None:
        tables.append(controls)
    return tables
