"""The chart toolkit both chart modules draw with: one Chart type, the style, captions, legends, interval bars.

Figures are matplotlib Figure objects of their own (no pyplot, no global
state, no display): nothing needs closing, and the style (no mathtext for
text from results files, SVG text as text) is applied only while sshbench
draws and saves, never set on import. A command that renders several
outputs shares one ChartBook (render/chartbook.py), so each chart is drawn once.
"""

from __future__ import annotations

import contextlib
import io
import math
import textwrap
from dataclasses import dataclass, field
from typing import Any, Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.text import Text

from sshbench.render.labels import NO_INTERVAL, flagged_name, grade_of
from sshbench.results.model import Report, Stat
from sshbench.vocabulary.algorithms import Grade, Kind

STYLE: dict[Any, Any] = {
    # Text from a results file (a CPU model, versions) is shown as it is: a '$' in it must not start mathtext,
    # which would garble the label or fail the whole chart.
    "text.parse_math": False,
    # SVG text as text, not glyph outlines: a third of the size, searchable, and selectable in the HTML report.
    "svg.fonttype": "none",
    # The SVG's element ids from a fixed salt, not a random one: the same results render to the same bytes, so a
    # chart can be compared, cached or committed (scripts/snapshot_outputs.py proves refactors change nothing).
    "svg.hashsalt": "sshbench",
}

RECOMMENDED_COLOR = "#1a7f37"
CAPTION_POINTS = 9  # readable when the HTML page scales a chart down to its column
CAPTION_CHARS_PER_INCH = 14  # DejaVu Sans at 9 pt averages about 5 pt per character
COLORS = {"upload": "#3b75af", "download": "#ef8636", "client": "#519e3e", "server": "#8e6bb8",
          "setup": "#3b75af", "kex": "#c53a32"}


@dataclass
class Chart:
    name: str  # file stem, e.g. "ciphers-throughput"
    figure: Figure
    _rendered: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)

    def render(self, fmt: str) -> bytes:
        """The chart as `fmt` bytes; drawn once per format (HTML and --charts share the SVG)."""
        if fmt not in self._rendered:
            buffer = io.BytesIO()
            with style():
                self.figure.savefig(buffer, format=fmt, bbox_inches="tight", dpi=110,
                                    metadata={"Date": None} if fmt == "svg" else None)
            self._rendered[fmt] = buffer.getvalue()
        return self._rendered[fmt]


def style() -> contextlib.AbstractContextManager[Any]:
    """sshbench's matplotlib settings, for the figures it draws and saves only (nothing global is changed)."""
    return matplotlib.rc_context(STYLE)


def figure(*grid: int, figsize: tuple[float, float], layout: Literal["constrained"] | None = None,
           **kwargs: Any) -> tuple[Figure, Any]:
    """A figure of its own (no pyplot state, no display, nothing to close) and its axes; `layout="constrained"`
    where panels side by side carry long tick labels that would otherwise run into the panel beside them."""
    fig = Figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(*grid, **kwargs)


def caption(report: Report) -> str:
    env = report.environment
    host, client = env.host, env.client
    masked = ", AES-NI masked" if env.crypto and env.crypto.aesni_masked else ""
    return (f"{host.cpu_model} x{host.cpu_count} ({', '.join(host.crypto_flags) or 'no AES/SHA'}{masked}), "
            f"{client.version}, {client.openssl}; sshbench {report.tool_version}, "
            f"{report.started_at}; error bars: 95% interval of the median ({NO_INTERVAL}: none); "
            "recommended grade in bold green, weak and broken in red")


def name_label(name: str, kind: Kind) -> tuple[str, bool]:
    """The name as the axis shows it (weak and broken marked as everywhere else), and whether it is flagged."""
    return flagged_name(name, kind), grade_of(name, kind).flagged


def mark_ticks(labels: list[Text], names: list[str], kind: Kind) -> None:
    """Weak and broken names in red (as everywhere), recommended ones in bold green: what the config would use."""
    for tick, name in zip(labels, names, strict=True):
        grade = grade_of(name, kind)
        if grade.flagged:
            tick.set_color("#c53a32")
        elif grade is Grade.RECOMMENDED:
            tick.set_color(RECOMMENDED_COLOR)
            tick.set_fontweight("bold")


def legend_outside(ax: Axes, **kwargs: Any) -> None:
    """The legend to the right of the plot, where it can never cover a bar."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, frameon=False, **kwargs)


def add_caption(fig: Figure, text: str, y: float = -0.01) -> None:
    """The caption under everything (va="top" at or below the figure's edge: it never overlaps the x label).

    Wrapped here by characters to the figure's width: matplotlib's own wrap=True re-measures the text at every
    draw and took a third of a report's time.
    """
    columns = int(fig.get_figwidth() * CAPTION_CHARS_PER_INCH)
    fig.text(0.01, y, textwrap.fill(text, columns), fontsize=CAPTION_POINTS, color="#444444", va="top")


def error_arms(stat: Stat, scale: float) -> tuple[float, float]:
    """The error bar's two arms; NaN (no bar, no caps) when there is no interval: never a fake zero-width one."""
    if stat.ci_low is None or stat.ci_high is None:
        return math.nan, math.nan
    return (stat.median - stat.ci_low) / scale, (stat.ci_high - stat.median) / scale


def interval_bars(ax: Axes, ys: list[float], stats: list[Stat], scale: float, **style: Any) -> BarContainer:
    """Horizontal bars at the medians with their intervals; a bar without one says so in words beside it."""
    errs = ([error_arms(st, scale)[0] for st in stats], [error_arms(st, scale)[1] for st in stats])
    bars = ax.barh(ys, [st.median / scale for st in stats], xerr=errs, capsize=2,
                   error_kw={"elinewidth": 0.8}, **style)
    for y, stat in zip(ys, stats, strict=True):
        if stat.ci_low is None:
            ax.annotate(f" {NO_INTERVAL}: no interval", (stat.median / scale, y), va="center", fontsize=8,
                        color="#8a5a00")
    return bars
