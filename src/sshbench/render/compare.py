"""The comparison of two runs as a terminal table."""

from __future__ import annotations

from rich import box
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from sshbench.analysis.findings import NORMALIZED, SIGNIFICANCE, Change


def _figure(change: Change, value: float, normalized: bool) -> str:
    if normalized and change.bigger_better:
        return f"{value:.3f}"
    return f"{value / 1e6:,.0f} MB/s" if change.bigger_better else f"{value * 1000:.1f} ms"


def comparison_table(base: str, other: str, changes: list[Change], normalize: str | None,
                     threshold: float | None) -> Table:
    # labels of multi-host files hold "[host]", which is not rich markup
    title = f"{escape(other)} against {escape(base)}" + (f" (each run divided by its {normalize})" if normalize else "")
    compared = changes[0].compared if changes else 0
    caption = (f"change: positive = faster (Hodges-Lehmann estimate of the speed ratio); interval and p: "
               f"Mann-Whitney U, Bonferroni over the {compared} cases compared (significant: p < {SIGNIFICANCE}, "
               "the interval then excludes 0)" + (f"; REGRESSION: significant and more than {threshold:.0%} slower"
                                                   if threshold is not None else ""))
    table = Table(title=title, caption=caption, title_justify="left", box=box.SIMPLE_HEAD)
    for header in ("case", "baseline", "this run", "change", "interval", "p", "n", "verdict"):
        table.add_column(header, justify="left" if header in ("case", "verdict") else "right", no_wrap=True)
    for c in changes:
        scaled = bool(normalize) and c.case_id.startswith(NORMALIZED)
        interval = "-" if c.low is None or c.high is None else f"{c.low:+.1%} .. {c.high:+.1%}"
        table.add_row(Text(c.case_id), _figure(c, c.baseline, scaled), _figure(c, c.other, scaled),
                      f"{c.change:+.1%}", interval, f"{c.p_adjusted:.3f}", f"{c.samples[0]} vs {c.samples[1]}",
                      _verdict(c, threshold))
    return table


def _verdict(change: Change, threshold: float | None) -> Text:
    if threshold is not None and change.regression_beyond(threshold):
        return Text("REGRESSION", style="bold red")
    if change.significant:
        return Text("faster" if change.change > 0 else "slower", style="green" if change.change > 0 else "yellow")
    if not change.detectable:
        return Text("too few samples to detect any change", style="yellow")
    return Text("no significant change", style="dim")
