"""The answer as a picture, the first thing the HTML report shows: per direction (and link, and side) the ranked
cipher cases with their 95% intervals, the pick and this client's default marked.

A person who opens a benchmark report wants the picture first; the report used to open with paragraphs and its
first chart sat about 3,800 px down (issue 63). This draws what render/verdict.py says in words, from the same
Findings (analysis/findings.py: each answer and the ranked rows it was chosen from): nothing is concluded here.
The verdict itself stays text, one line under the chart (answerrows.short_lines), so it can be read, searched and
copied.
"""

from __future__ import annotations

from matplotlib.axes import Axes

from sshbench.analysis.findings import Findings
from sshbench.render.answerrows import NAME, AnswerRows, answer_rows
from sshbench.render.charttools import (
    COLORS,
    RECOMMENDED_COLOR,
    Chart,
    add_caption,
    caption,
    figure,
    interval_bars,
    mark_ticks,
    name_label,
)
from sshbench.render.verdict import place
from sshbench.results.model import Stat
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.case_terms import Direction

ROW_INCHES = 0.27  # ten ciphers a direction and both directions fit a 1300x900 screen with the page's heading
PANEL_INCHES = 5.8  # two panels side by side at their natural size in the page's 72rem (1120 px) column
DEFAULT_EDGE = "#1d1d1f"
LABEL_POINTS = 10  # 13 px at that size: the names nearly as large as the page's own text
CHAR_WIDTH = 0.6  # DejaVu Sans: a character's average width, as a share of its size (bold a little wider)
MARGIN_INCHES = 0.5  # a panel's ticks, pads and the space between panels
GAP_POINTS = 4  # from a bar's interval to its words
NOTE_POINTS = 76  # past interval_bars' " n<6: no interval" note, where a bar has no interval


def answer_chart(concluded: Findings) -> Chart | None:
    """The answer chart; None for a run that ranked no cipher (then the report opens with its words alone)."""
    report = concluded.report
    found = answer_rows(concluded)
    if not found:
        return None
    places = list(dict.fromkeys((p.answer.link, p.answer.build) for p in found))
    directions = [d for d in (Direction.UPLOAD, Direction.DOWNLOAD) if any(p.answer.direction is d for p in found)]
    heights = [ROW_INCHES * max(len(p.names) for p in found if (p.answer.link, p.answer.build) == where) + 1.0
               for where in places]  # each panel's rows, and its title and axis beside them
    fig, axes = figure(len(places), len(directions), squeeze=False, gridspec_kw={"height_ratios": heights},
                       figsize=(max(8.0, PANEL_INCHES * len(directions)), sum(heights)), layout="constrained")
    for ax in axes.flat:
        ax.set_axis_off()  # a place measured in one direction only leaves the other cell empty
    width = fig.get_figwidth() / len(directions)
    for panel in found:
        column = directions.index(panel.answer.direction)
        labels = max(_inches(label, LABEL_POINTS) for p in found if p.answer.direction is panel.answer.direction
                     for label in _labels(p))  # constrained layout gives a column's panels its widest labels
        ax = axes[places.index((panel.answer.link, panel.answer.build))][column]
        ax.set_axis_on()
        _draw(ax, panel, width - labels - MARGIN_INCHES)
    add_caption(fig, caption(report) + "; pick: the fastest cipher with no known weakness, green; client default: "
                "the cipher this client uses when left alone, outlined; before each name its rank as its table writes "
                "it (≈ equivalent to, ? not yet separable from the row above)")
    return Chart(NAME, fig)


def _inches(text: str, points: float) -> float:
    """About how wide `text` is drawn at `points`: no renderer is at hand before the figure is saved."""
    return len(text) * points * CHAR_WIDTH / 72


def _labels(panel: AnswerRows) -> list[str]:
    """Each row's name as the axis shows it: its rank mark as the tables write it, then the name, flagged."""
    return [f"{mark}\u2002{name_label(name, Kind.CIPHER)[0]}"  # an en space: SVG collapses two plain ones
            for mark, name in zip(panel.marks, panel.names, strict=True)]


def _reach(panel: AnswerRows, plot_inches: float) -> float:
    """The x axis's end (MB/s): past every interval, with room after a marked bar for its words, which would
    otherwise run into the panel beside it."""
    out = max(_end(stat) for stat in panel.stats) / 1e6 * 1.1
    for name, stat in zip(panel.names, panel.stats, strict=True):
        words = _words(panel, name)
        if words:
            room = 0.98 * plot_inches - _inches(words, LABEL_POINTS - 1) - _gap(stat) / 72
            out = max(out, _end(stat) / 1e6 * plot_inches / max(room, 0.3 * plot_inches))
    return out


def _end(stat: Stat) -> float:
    """Where a bar's drawing ends: its interval's top, or its median where it has none."""
    return stat.median if stat.ci_high is None else stat.ci_high


def _gap(stat: Stat) -> float:
    return GAP_POINTS if stat.ci_high is not None else NOTE_POINTS


def _words(panel: AnswerRows, name: str) -> str:
    """What marks a row: "pick", "client default", both ("pick = client default"), or nothing."""
    return " = ".join(w for w, on in (("pick", name == panel.answer.best), ("client default", name == panel.default))
                      if on)


def _draw(ax: Axes, panel: AnswerRows, plot_inches: float) -> None:
    """One panel: a bar per ranked cipher, fastest first, the pick green and this client's default outlined."""
    answer = panel.answer
    ys = [float(y) for y in range(len(panel.names))]
    colors = [RECOMMENDED_COLOR if name == answer.best else COLORS[answer.direction.value] for name in panel.names]
    bars = interval_bars(ax, ys, list(panel.stats), 1e6, height=0.7, color=colors)
    for bar, name in zip(bars, panel.names, strict=True):
        if name_label(name, Kind.CIPHER)[1]:  # weak and broken: hatched with a red edge, as on every chart
            bar.set_hatch("///")
            bar.set_edgecolor("#c53a32")
        elif name == panel.default:
            bar.set_edgecolor(DEFAULT_EDGE)
            bar.set_linewidth(1.5)
    for y, name, stat in zip(ys, panel.names, panel.stats, strict=True):
        words = _words(panel, name)
        if words:  # beside the bar's interval (beyond the "n<6: no interval" note where it has none)
            ax.annotate(words, (_end(stat) / 1e6, y), xytext=(_gap(stat), 0),
                        textcoords="offset points", va="center", fontsize=LABEL_POINTS - 1, fontweight="bold",
                        color=RECOMMENDED_COLOR if name == answer.best else DEFAULT_EDGE)
    ax.set_xlim(0, _reach(panel, plot_inches))
    ax.set_yticks(ys)
    ax.set_yticklabels(_labels(panel))
    ax.tick_params(axis="y", labelsize=LABEL_POINTS)
    mark_ticks(ax.get_yticklabels(), list(panel.names), Kind.CIPHER)
    ax.invert_yaxis()
    ax.set_xlabel("MB/s (10^6 bytes per second): median and its 95% interval")
    ax.set_title(place(answer) + (" (client -> server)" if answer.direction is Direction.UPLOAD
                                  else " (server -> client)"), loc="left", fontsize=LABEL_POINTS + 1)
    ax.grid(axis="x", alpha=0.3)

