"""Charts of a run over emulated links: throughput against the measured round trip, and echo latency.

The x axis is the RTT as measured on each link (TCP connect times), on a log
scale, so a veth cable (~0.03 ms), 20 ms and 80 ms sit apart and the window
limit - window / RTT, a straight line on log-log axes - can be drawn beside
the points it explains, with raw TCP through the same links.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from sshbench.analysis.findings import Bound, Findings
from sshbench.axes import declared
from sshbench.compressors import Choice
from sshbench.render.charttools import Chart, add_caption, caption, figure, legend_outside
from sshbench.render.matrix import method_label
from sshbench.results.model import Direction, Report
from sshbench.vocabulary.case_terms import PIPE

MARKERS = "osD^v<>ph*"


def _log_axes(ax: Axes) -> None:
    """Log scales with plain numbers on the ticks (text from results files never goes through mathtext); an axis
    spanning less than a decade has no major tick inside it, so its minor ticks get the figures (the echo chart
    had none on its y axis). Call once the limits are set."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis, (low, high) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        plain = FuncFormatter(lambda value, _pos: f"{value:,g}")
        axis.set_major_formatter(plain)
        narrow = low > 0 and high / low < 10
        axis.set_minor_formatter(plain if narrow else NullFormatter())


def _rtts(report: Report) -> dict[str, float]:
    return {link.label: rtt for link in report.environment.links if (rtt := link.rtt_seconds)}


def _throughput(findings: Findings, direction: str) -> Figure | None:
    report = findings.report
    rtts = _rtts(report)
    found = [b for b in findings.crossed if b.direction == direction and b.link in rtts]
    if not found:
        return None
    fig, ax = figure(figsize=(8.5, 4.8))
    # a line per build, method, cipher, streams and compression measured
    series = list(dict.fromkeys(_series(b) for b in found))
    measured: list[float] = []  # what the y axis must show; the window lines may run off it at tiny RTTs
    for index, key in enumerate(series):
        build, method, cipher, streams, compression, dims = key
        points = sorted(((rtts[b.link], b) for b in found if _series(b) == key), key=lambda point: point[0])
        xs = [x * 1000 for x, _ in points]
        ys, low, high = [], [], []
        for _, bound in points:
            stat = bound.stat
            ys.append(stat.median / 1e6)
            low.append((stat.median - (stat.ci_low or stat.median)) / 1e6)
            high.append(((stat.ci_high or stat.median) - stat.median) / 1e6)
        measured += [y + h for y, h in zip(ys, high, strict=True)] + [y - lo for y, lo in zip(ys, low, strict=True)]
        variant = (f", {streams} streams" if streams > 1 else "") + \
            (f", {compression.label}" if not compression.is_off else "") + \
            "".join(f", {axis.title(value)}" for name, value in dims if (axis := declared(name)) is not None)
        ax.errorbar(xs, ys, yerr=[low, high], marker=MARKERS[index % len(MARKERS)], capsize=3, linewidth=1.2,
                    label=f"{build + ': ' if build else ''}{method_label(method)} {cipher}{variant}")
    tcp = sorted((rtts[link] * 1000, stat.median / 1e6) for link, stat in findings.references.raw_tcp.items()
                 if link in rtts)
    if tcp:
        ax.plot(*zip(*tcp, strict=True), color="black", marker="s", linestyle=":", label="raw TCP, same link")
        measured += [y for _, y in tcp]
    shown = [y for y in measured if y > 0]
    top = max(shown) * 4 if shown else None
    windows = {(w, b.streams) for b in found if (w := b.window)}  # a line per distinct window (x streams)
    for number, (window, streams) in enumerate(sorted(windows)):
        # one link is one RTT: the limit is drawn across a span around it, never as a single invisible point
        span = np.geomspace(min(rtts.values()) * 1000 / 1.5, max(rtts.values()) * 1000 * 1.5, 50)
        limit = streams * window / (span / 1000) / 1e6
        above = top is not None and float(limit.min()) > top  # off the chart: said, not listed as if drawn
        ax.plot(span, limit, color="#c53a32", linestyle=("--", "-.", ":")[number % 3],
                label=f"SSH window limit: {f'{streams} x ' if streams > 1 else ''}{window / 2**20:,.0f} MiB / RTT"
                      + (f" (above this chart: at least {float(limit.min()):,.0f} MB/s here)" if above else ""))
    if shown:
        ax.set_ylim(min(shown) / 2, max(shown) * 4)
    _log_axes(ax)
    ax.set_xlabel("round-trip time, ms (measured; log scale)")
    ax.set_ylabel("MB/s, median (log scale)")
    ax.set_title(f"Throughput against round-trip time, {direction}")
    ax.grid(True, which="both", alpha=0.3)
    legend_outside(ax)
    add_caption(fig, caption(report))
    return fig


def _series(bound: Bound) -> tuple[str, str, str, int, Choice, tuple[tuple[str, str], ...]]:
    return bound.build, bound.method, bound.cipher, bound.streams, bound.compression, bound.dims


def _streams(findings: Findings, direction: str) -> Figure | None:
    """MB/s against the number of parallel connections, a line per path (plain cipher, no compression): where
    more streams stop helping, beside what the path's raw TCP moved."""
    report = findings.report
    found = [b for b in findings.bounds if b.direction == direction and b.compression.is_off
             and b.method == PIPE]
    paths = {(b.link, b.build, b.cipher) for b in found}
    lines = {key: sorted((b for b in found if (b.link, b.build, b.cipher) == key), key=lambda b: b.streams)
             for key in paths}
    lines = {key: points for key, points in lines.items() if len({b.streams for b in points}) > 1}
    if not lines:
        return None
    fig, ax = figure(figsize=(8.5, 4.8))
    for index, ((link, build, cipher), points) in enumerate(sorted(lines.items())):
        ax.errorbar([b.streams for b in points], [b.stat.median / 1e6 for b in points],
                    yerr=[[(b.stat.median - (b.stat.ci_low or b.stat.median)) / 1e6 for b in points],
                          [((b.stat.ci_high or b.stat.median) - b.stat.median) / 1e6 for b in points]],
                    marker=MARKERS[index % len(MARKERS)], capsize=3, linewidth=1.2,
                    label=f"{link or 'this path'}{': ' + build if build else ''}, {cipher}")
        if points[0].tcp:
            ax.axhline(points[0].tcp / 1e6, color=f"C{index}", linestyle=":", linewidth=1,
                       label=f"raw TCP, {link or 'this path'}")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("parallel SSH connections (log scale)")
    ax.set_ylabel("MB/s, median and 95% interval")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Throughput against parallel streams, {direction}")
    ax.grid(True, which="both", alpha=0.3)
    legend_outside(ax)
    add_caption(fig, caption(report))
    return fig


def _echo(found: Findings) -> Figure | None:
    report = found.report
    rtts = _rtts(report)
    echoes = [f for f in found.echoes if f.echo.ok and f.echo.link in rtts]
    if not echoes:
        return None
    fig, ax = figure(figsize=(8.5, 4.2))
    builds = len({f.echo.build for f in echoes}) > 1
    for index, (cipher, build) in enumerate(dict.fromkeys((f.echo.cipher, f.echo.build) for f in echoes)):
        points = []
        for echo in (f for f in echoes if (f.echo.cipher, f.echo.build) == (cipher, build)):
            if echo.stat is not None:
                points.append((rtts[echo.echo.link] * 1000, echo.stat))
        points.sort(key=lambda p: p[0])
        ax.errorbar([x for x, _ in points], [s.median * 1000 for _, s in points],
                    yerr=[[(s.median - (s.ci_low or s.median)) * 1000 for _, s in points],
                          [((s.ci_high or s.median) - s.median) * 1000 for _, s in points]],
                    marker=MARKERS[index % len(MARKERS)], capsize=3,
                    label=f"{build}: {cipher}" if builds else cipher)
    span = sorted(rtts.values())
    ax.plot([x * 1000 for x in span], [x * 1000 for x in span], color="black", linestyle=":",
            label="the round trip itself")
    ax.autoscale_view()
    _log_axes(ax)
    ax.set_xlabel("round-trip time, ms (measured; log scale)")
    ax.set_ylabel("keystroke echo, ms, median")
    ax.set_title("Interactive latency: keystroke echo against round-trip time")
    ax.grid(True, which="both", alpha=0.3)
    legend_outside(ax)
    add_caption(fig, caption(report))
    return fig


def link_charts(found: Findings) -> list[Chart]:
    made = []
    for direction in (Direction.UPLOAD.value, Direction.DOWNLOAD.value):
        if (fig := _throughput(found, direction)) is not None:
            made.append(Chart(f"links-throughput-{direction}", fig))
    if (fig := _echo(found)) is not None:
        made.append(Chart("links-echo", fig))
    return made


def streams_charts(found: Findings) -> list[Chart]:
    """MB/s against streams per direction, where a run measured more than one stream count."""
    return [Chart(f"streams-{d.value}", fig) for d in (Direction.UPLOAD, Direction.DOWNLOAD)
            if (fig := _streams(found, d.value)) is not None]
