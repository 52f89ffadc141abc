"""The comparison of two runs as a terminal table."""

from __future__ import annotations

from rich import box
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from sshbench.analysis.compare import NORMALIZED, SIGNIFICANCE, Change


def _figure(change: Change, value: float, normalized: bool) -> str:
    if normalized and change.bigger_better:
        return f"{value:.3f}"
    return f"{value / 1e6:,.0f} MB/s" if change.bigger_better else f"{value * 1000:.1f} ms"


def comparison_table(base: str, other: str, changes: list[Change], normalize: str | None,
                     threshold: float | None) -> Table:
    # labels of multi-host files hold "[host]", which is not rich markup
    title = f"{escape(other)} against {escape(base)}" + (f" (each run divided by its {normalize})" if normalize else "")
    caption = (f"change: positive = faster; 95% bootstrap interval of the ratio of medians; significant: "
               f"Mann-Whitney U p < {SIGNIFICANCE}" + (f"; REGRESSION: significant and more than "
                                                       f"{threshold:.0%} slower" if threshold is not None else ""))
    table = Table(title=title, caption=caption, title_justify="left", box=box.SIMPLE_HEAD)
    for header in ("case", "baseline", "this run", "change", "95% interval", "p", "verdict"):
        table.add_column(header, justify="left" if header in ("case", "verdict") else "right", no_wrap=True)
    for c in changes:
        if threshold is not None and c.regression_beyond(threshold):
            verdict = Text("REGRESSION", style="bold red")
        elif c.significant:
            verdict = Text("faster" if c.change > 0 else "slower", style="green" if c.change > 0 else "yellow")
        else:
            verdict = Text("no significant change", style="dim")
        scaled = bool(normalize) and c.case_id.startswith(NORMALIZED)
        table.add_row(Text(c.case_id), _figure(c, c.baseline, scaled), _figure(c, c.other, scaled),
                      f"{c.change:+.1%}", f"{c.low:+.1%} .. {c.high:+.1%}", f"{c.p_value:.3f}", verdict)
    return table
