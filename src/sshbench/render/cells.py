"""Cells every ranked table shares: the rank or how a case stands against the row above, the factor with its
interval, the median's interval, the sample count with outliers and failures."""

from __future__ import annotations

from sshbench.render.labels import NO_INTERVAL, RELATION_MARK, RELATION_STYLE
from sshbench.render.table_model import Cell, Span, cell
from sshbench.results.model import Stat, Summary


def rank_cell(summary: Summary) -> Cell:
    """The rank, or how the case stands against the row above when that is not "slower" (labels.legend)."""
    if summary.rank is None:
        return cell("-")
    if summary.relation is not None and summary.relation in RELATION_MARK:
        return cell(RELATION_MARK[summary.relation], RELATION_STYLE[summary.relation])
    if summary.relation is None and summary.tied_with_previous:  # an older file's uncorrected tie
        return cell("=")
    return cell(str(summary.rank))


def factor_cell(summary: Summary) -> Cell:
    """How many times as long as the fastest: with its 95% interval where there is one (then the Hodges-Lehmann
    ratio the interval belongs to), else the ratio of the medians."""
    if summary.factor is None:
        return cell("-")
    if summary.factor_estimate is None or summary.factor_low is None or summary.factor_high is None:
        return cell(f"{summary.factor:.2f}")
    return cell(f"{summary.factor_estimate:.2f} [{summary.factor_low:.2f}-{summary.factor_high:.2f}]")


def interval_cell(summary: Summary, stat: Stat | None) -> Cell:
    """Half-width of the median's 95% interval in percent, green when it met the precision target."""
    width = stat.relative_half_width if stat else None
    if width is None:
        return cell(NO_INTERVAL, "dim")
    return cell(f"±{width * 100:.1f}%", "good" if summary.precise else "warn" if summary.precise is False else "")


def count_cell(summary: Summary) -> Cell:
    spans = [Span(str(summary.samples_ok))]
    if summary.outliers:
        spans.append(Span(f" ({summary.outliers} out)", "warn"))
    if summary.samples_failed:
        spans.append(Span(f" ({summary.samples_failed} failed)", "bad"))
    return tuple(spans)
