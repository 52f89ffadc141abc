"""Where the time goes, drawn: one horizontal bar per case (its median connection, analysis/connections/phases.py), each
phase a segment in milliseconds, so a stall (analysis/connections/stalls.py) is the long segment a reader sees first."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from sshbench.analysis.findings import PHASES, Findings, PhaseName
from sshbench.render.charttools import Chart, add_caption, figure, legend_outside
from sshbench.render.phases import row_name
from sshbench.results.model import Report

# one colour per phase, in protocol order: the network's round trips in blues, the server's work in warm tones
PHASE_COLORS = {PhaseName.START: "#9ecae1", PhaseName.VERSION: "#6baed6", PhaseName.KEX: "#c53a32",
                PhaseName.AUTH: "#ef8636", PhaseName.SESSION: "#8e6bb8", PhaseName.COMMAND: "#519e3e",
                PhaseName.EXIT: "#7f7f7f"}


def phase_chart(findings: Findings) -> Chart | None:
    """The waterfall of every set-up case and short command that has one; None where none has."""
    found, report = findings.phases, findings.report
    if not found:
        return None
    views = report.joined()
    fig, ax = figure(figsize=(9.0, 0.9 + 0.45 * len(found)))
    names = [row_name(views[f.case_id].case) for f in found]
    for y, split in enumerate(found):
        left = 0.0
        for phase in split.phases:
            width = phase.seconds * 1000
            color = PHASE_COLORS[phase.last]  # a merged phase: its last one's colour
            ax.barh(y, width, left=left, color=color, edgecolor="white", linewidth=0.5)
            left += width
        ax.annotate(f" {left:.0f} ms", (left, y), va="center", fontsize=8)
    ax.set_yticks(range(len(found)), names)
    ax.invert_yaxis()
    ax.set_xlabel("milliseconds from ssh's start (the case's median connection)")
    ax.set_title("Where the time goes: each connection's phases, from its own ssh -v lines")
    used = {p.last for f in found for p in f.phases}
    handles = [Patch(color=PHASE_COLORS[name], label=name) for name, _, _ in PHASES if name in used]
    legend_outside(ax, handles=handles)
    _caption(fig, report)
    return Chart("phases", fig)


def _caption(fig: Figure, report: Report) -> None:
    env = report.environment
    add_caption(fig, "each bar is one connection, the case's median by its total (not per-phase medians, which "
                "would not sum); its segments sum to its total; a phase whose "
                "line ssh did not print is drawn in the next one's colour. "
                f"{env.host.cpu_model} x{env.host.cpu_count}, {env.client.version}; sshbench {report.tool_version}, "
                f"{report.started_at}", y=-0.35 / fig.get_figheight())
