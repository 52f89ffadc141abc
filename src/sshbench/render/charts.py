"""Charts of a Report (matplotlib, headless): PNG and SVG bytes, nothing drawn from anything but the file.

Each chart is sorted, labelled with units, shows the 95% interval of every
median as an error bar (and says "n<6: no interval" where there is none,
rather than drawing a zero-width bar that looks perfectly precise), marks
weak and broken algorithms (hatched bars and a
red label) and carries the machine and versions in its caption.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from sshbench.analysis.findings import Findings
from sshbench.render.answerchart import answer_chart
from sshbench.render.chartbook import ChartBook
from sshbench.render.charttools import (
    COLORS,
    Chart,
    add_caption,
    caption,
    figure,
    interval_bars,
    legend_outside,
    mark_ticks,
    name_label,
    style,
)
from sshbench.render.labels import HOSTS_NOTE, hosts_note
from sshbench.render.linkcharts import link_charts, streams_charts
from sshbench.render.matrix import method_label, method_matrices
from sshbench.render.phasecharts import phase_chart
from sshbench.results.model import Report, Stat, Summary
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.outputs import safe_name, unique_names


def _by_subject(report: Report, kind: Kind, metric: str) -> dict[str, dict[str, Stat]]:
    """subject -> {direction: stat} for one metric of one kind."""
    out: dict[str, dict[str, Stat]] = {}
    views = report.joined()
    for summary in report.summaries:
        case = views[summary.case_id].case
        stat = getattr(summary, metric)
        if case.algorithm_kind is kind and case.is_pipe and stat is not None:
            out.setdefault(case.subject, {})[case.direction.value] = stat
    return out


def _bars(report: Report, kind: Kind, metric: str, series: list[str], title: str, xlabel: str, scale: float,
          descending: bool) -> Figure | None:
    data = _by_subject(report, kind, metric)
    if not data:
        return None
    order = sorted(data, key=lambda n: max(s.median for s in data[n].values()), reverse=descending)
    height = 0.8 / max(1, len([s for s in series if any(s in d for d in data.values())]))
    fig, ax = figure(figsize=(9, 0.45 * len(order) + 1.6))
    present = [s for s in series if any(s in d for d in data.values())]
    for index, serie in enumerate(present):
        ys: list[float] = []
        stats: list[Stat] = []
        for row, name in enumerate(order):
            stat = data[name].get(serie)
            if stat is None:
                continue
            ys.append(row + index * height - 0.4 + height / 2)
            stats.append(stat)
        bars = interval_bars(ax, ys, stats, scale, height=height * 0.95, color=COLORS.get(serie), label=serie)
        for bar, row_name in zip(bars, [n for n in order if data[n].get(serie)], strict=True):
            if name_label(row_name, kind)[1]:
                bar.set_hatch("///")
                bar.set_edgecolor("#c53a32")
    ax.set_yticks(range(len(order)))
    labels = [name_label(n, kind) for n in order]
    ax.set_yticklabels([text for text, _ in labels])
    mark_ticks(ax.get_yticklabels(), order, kind)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title, loc="left")
    ax.grid(axis="x", alpha=0.3)
    if len(present) > 1 or present != ["setup"]:
        legend_outside(ax)
    add_caption(fig, caption(report))
    return fig


def _summaries(report: Report, kind: Kind) -> list[Summary]:
    views = report.joined()
    return [s for s in report.summaries  # one connection, no compression: the streams chart shows the rest
            if views[s.case_id].case.algorithm_kind is kind and views[s.case_id].case.is_pipe
            and views[s.case_id].case.plain]


def charts(found: Findings, book: ChartBook | None = None) -> list[Chart]:
    """Every chart this report has data for, in reading order (once per `book`: a command shares one)."""
    def make() -> list[Chart]:
        with style():
            return _make(found)
    made: list[Chart] = (book or ChartBook()).get(found, make)
    return made


def _make(found: Findings) -> list[Chart]:
    report = found.report
    phases = [chart] if (chart := phase_chart(found)) is not None else []
    answer = [chart] if (chart := answer_chart(found)) is not None else []  # the answer first: the page opens with it
    if report.environment.links:  # per-case bars would mix the links: throughput against RTT instead
        return answer + link_charts(found) + streams_charts(found) + phases
    made: list[Chart] = answer + streams_charts(found)
    specs = [
        ("ciphers-throughput", Kind.CIPHER, "throughput_bytes_per_second", ["upload", "download"],
         "Cipher throughput (weak/broken hatched, red)", "MB/s (10^6 bytes per second), median", 1e6, True),
        ("macs-throughput", Kind.MAC, "throughput_bytes_per_second", ["upload"],
         f"MAC throughput, all with cipher {report.options.mac_cipher}", "MB/s, median", 1e6, True),
        ("kex-handshake", Kind.KEX, "handshake_seconds", ["setup"],
         "Key exchange: connection handshake (lower is better)", "milliseconds, median", 1e-3, False),
        ("hostkeys-handshake", Kind.HOSTKEY, "handshake_seconds", ["setup"],
         "Host key algorithms: connection handshake (lower is better)", "milliseconds, median", 1e-3, False),
    ]
    for name, kind, metric, series, title, xlabel, scale, descending in specs:
        fig = _bars(report, kind, metric, series, title, xlabel, scale, descending)
        if fig is not None:
            made.append(Chart(name, fig))
    cost = _cpu_cost(report)
    if cost is not None:
        made.append(Chart("ciphers-cpu-cost", cost))
    heat = _method_heatmap(report)
    if heat is not None:
        made.append(Chart("methods-heatmap", heat))
    return made + phases


def _method_heatmap(report: Report) -> Figure | None:
    """Method x cipher, one panel per direction: colour = steady-state MB/s, text = steady and end-to-end."""
    matrices = method_matrices(report)
    if not matrices:
        return None
    width = max(len(m.ciphers) for m in matrices)
    height = max(len(m.methods) for m in matrices)
    fig, axes = figure(1, len(matrices), figsize=(2.4 + max(3.6, 2.2 * width) * len(matrices),
                                                              1.8 + 0.7 * height),
                             squeeze=False)
    peak = max((s.throughput_bytes_per_second.median for m in matrices for s in m.cells.values()
                if s.throughput_bytes_per_second), default=1.0) / 1e6
    image = None
    for ax, matrix in zip(axes[0], matrices, strict=True):
        grid = np.full((len(matrix.methods), len(matrix.ciphers)), np.nan)
        for (method, cipher), summary in matrix.cells.items():
            if summary.throughput_bytes_per_second:
                grid[matrix.methods.index(method), matrix.ciphers.index(cipher)] = \
                    summary.throughput_bytes_per_second.median / 1e6
        image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=peak, aspect="auto")
        for (method, cipher), summary in matrix.cells.items():
            row, col = matrix.methods.index(method), matrix.ciphers.index(cipher)
            steady, e2e = summary.throughput_bytes_per_second, summary.end_to_end_bytes_per_second
            if steady is None:
                continue
            text = f"{steady.median / 1e6:,.0f}" + (f"\ne2e {e2e.median / 1e6:,.0f}" if e2e else "")
            ax.text(col, row, text, ha="center", va="center", fontsize=8,
                    color="white" if steady.median / 1e6 < 0.6 * peak else "black")
        ax.set_xticks(range(len(matrix.ciphers)))
        ax.set_xticklabels([name_label(c, Kind.CIPHER)[0] for c in matrix.ciphers], rotation=20, ha="right",
                           fontsize=8)
        mark_ticks(ax.get_xticklabels(), matrix.ciphers, Kind.CIPHER)
        ax.set_yticks(range(len(matrix.methods)))
        ax.set_yticklabels([method_label(m) for m in matrix.methods])
        ax.set_title(matrix.direction, loc="left", fontsize=10)
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), label="steady-state MB/s (10^6 bytes per second), median")
    fig.suptitle("Transfer method x cipher: steady-state MB/s (e2e: end-to-end, start-up included)",
                 x=0.01, ha="left", fontsize=11)
    add_caption(fig, caption(report).replace("error bars: 95% interval of the median",
                                          "medians; intervals in the tables"), y=-0.12)
    return fig


def _cpu_cost(report: Report) -> Figure | None:
    """Client and server CPU seconds per GiB per cipher (upload), lower is better."""
    views = report.joined()
    rows = [s for s in _summaries(report, Kind.CIPHER) if views[s.case_id].case.direction.value == "upload"
            and s.client_cpu_seconds_per_gib and s.server_cpu_seconds_per_gib]
    if not rows:
        return None
    rows.sort(key=lambda s: (s.client_cpu_seconds_per_gib.median  # type: ignore[union-attr]
                             + s.server_cpu_seconds_per_gib.median))  # type: ignore[union-attr]
    fig, ax = figure(figsize=(9, 0.45 * len(rows) + 1.6))
    names = [views[s.case_id].case.subject for s in rows]
    for offset, side in ((-0.2, "client"), (0.2, "server")):
        stats = [getattr(s, f"{side}_cpu_seconds_per_gib") for s in rows]
        interval_bars(ax, [i + offset for i in range(len(rows))], stats, 1, height=0.38, color=COLORS[side],
                       label=f"{side} (ssh)" if side == "client" else f"{side} (sshd)")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([name_label(n, Kind.CIPHER)[0] for n in names])
    mark_ticks(ax.get_yticklabels(), names, Kind.CIPHER)
    ax.invert_yaxis()
    ax.set_xscale("log")
    # plain numbers at 1-2-5 steps: the default log labels ("3x10^0") collide between decades
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("CPU seconds per GiB moved, upload (log scale; lower is better)")
    ax.set_title("CPU cost per GiB, each side", loc="left")
    ax.grid(axis="x", alpha=0.3, which="both")
    legend_outside(ax)
    add_caption(fig, caption(report))
    return fig


def host_charts(runs: list[Findings], book: ChartBook | None = None) -> list[Chart]:
    """Charts across the hosts of a multi-host run: pipe cipher throughput, one bar per host (once per `book`,
    kept under the list of runs the command passes to every output)."""
    def make() -> list[Chart]:
        with style():
            fig = _hosts_ciphers([found.report for found in runs])
        return [] if fig is None else [Chart("hosts-ciphers", fig)]
    made: list[Chart] = (book or ChartBook()).get(runs, make)
    return made


def _hosts_ciphers(runs: list[Report]) -> Figure | None:
    per_direction = [(d, [_by_subject(r, Kind.CIPHER, "throughput_bytes_per_second") for r in runs])
                     for d in ("upload", "download")]
    per_direction = [(d, data) for d, data in per_direction if any(d in s for per in data for s in per.values())]
    if not per_direction:
        return None
    peak: dict[str, float] = {}
    for _, data in per_direction:
        for per in data:
            for name, stats in per.items():
                peak[name] = max(peak.get(name, 0.0), *(st.median for st in stats.values()))
    names = sorted(peak, key=lambda n: -peak[n])  # fastest on any host first
    fig, axes = figure(1, len(per_direction), figsize=(7 * len(per_direction), 0.5 * len(names) * len(runs)
                                                               / 2 + 1.8), squeeze=False, sharey=True)
    height = 0.8 / len(runs)
    palette = matplotlib.colormaps["tab10"]
    for ax, (direction, data) in zip(axes[0], per_direction, strict=True):
        for index, per in enumerate(data):
            rows = [(row, per[n][direction]) for row, n in enumerate(names) if direction in per.get(n, {})]
            if not rows:
                continue
            bars = interval_bars(ax, [row - 0.4 + height * (index + 0.5) for row, _ in rows], [st for _, st in rows],
                                  1e6, height=height * 0.95, color=palette(index % 10))
            for bar, (row, _) in zip(bars, rows, strict=True):
                if name_label(names[row], Kind.CIPHER)[1]:
                    bar.set_hatch("///")
                    bar.set_edgecolor("#c53a32")
        ax.set_title(direction, loc="left", fontsize=10)
        ax.set_xlabel("MB/s (10^6 bytes per second), median")
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlim(right=ax.get_xlim()[1] * 1.3)  # room for the "n<6" notes beside the longest bars
    axes[0][0].set_yticks(range(len(names)))
    axes[0][0].set_yticklabels([name_label(n, Kind.CIPHER)[0] for n in names])
    mark_ticks(axes[0][0].get_yticklabels(), names, Kind.CIPHER)
    axes[0][0].invert_yaxis()
    # plain swatches: a host's first bar may be hatched (a weak cipher), which must not stand for the host
    legend_outside(axes[0][-1], handles=[Patch(color=palette(i % 10), label=r.label) for i, r in enumerate(runs)])
    fig.suptitle("Cipher throughput by host (pipe, steady state; weak/broken hatched, red)", x=0.01, ha="left",
                 fontsize=11)
    add_caption(fig, caption(runs[0]) + ("; hosts measured one after another" if hosts_note(runs) == HOSTS_NOTE
                                      else "; a fleet: each machine measured itself"))
    return fig


def chart_sets(runs: list[Findings], book: ChartBook | None = None) -> Iterator[tuple[str, list[Chart]]]:
    """One host: its charts in DIR. Several: the cross-host chart in DIR, each host's charts in DIR/<host>/."""
    book = book or ChartBook()
    if len(runs) == 1:
        yield "", charts(runs[0], book)
        return
    yield "", host_charts(runs, book)
    for folder, found in zip(unique_names([safe_name(f.report.label) for f in runs]), runs, strict=True):
        yield folder, charts(found, book)


def files(runs: list[Findings], book: ChartBook | None = None) -> Iterator[tuple[str, bytes]]:
    """Every chart as PNG and SVG, by relative path (per-host charts in a directory named after the host)."""
    for subdir, made in chart_sets(runs, book):
        for chart in made:
            for fmt in ("png", "svg"):
                yield os.path.join(subdir, f"{chart.name}.{fmt}"), chart.render(fmt)
