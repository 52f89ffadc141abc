"""The answer first: per direction, the fastest cipher with no known weakness, and how sure the run is of it.

"How sure" is the run's own verdict between that cipher and the case ranked
just below it (analysis/decide.py): significantly faster, equivalent within
the tie margin, or not yet separable. Nothing is ranked here that the tables
do not rank; a weak or Terrapin-exposed cipher is never the answer.
"""

from __future__ import annotations

from sshbench.analysis.recommend import safe_cipher
from sshbench.kinds import Direction, Relation
from sshbench.render.facts import Fact
from sshbench.render.labels import pm
from sshbench.results.model import Report, Summary


def ranked_ciphers(report: Report, direction: Direction, link: str = "") -> list[Summary]:
    """The pipe cipher cases of one direction (and emulated link) that have a rank, in rank order."""
    group = f"cipher:{direction.value}" + (f"@{link}" if link else "")
    rows = [s for s in report.summaries if s.group == group and s.rank is not None]
    return sorted(rows, key=lambda s: s.rank or 0)


def _sureness(report: Report, rows: list[Summary], best: Summary) -> str:
    index = rows.index(best)
    if index + 1 >= len(rows):
        return "the only safe cipher measured"
    below = rows[index + 1]
    name = report.case(below.case_id).case.subject
    ratio = f" ({below.ratio_to_previous:.2f}x as long)" if below.ratio_to_previous else ""
    if below.relation is Relation.DIFFERENT:
        return f"significantly faster than the next, {name}{ratio}"
    if below.relation is Relation.EQUIVALENT:
        return f"equivalent within ±{report.options.tie_margin * 100:g}% to the next, {name}"
    return f"not yet separable from the next, {name}: the order between them is not settled"


def verdict(report: Report) -> list[Fact]:
    """One fact per direction measured (and per emulated link): the answer to "which cipher, and how sure"."""
    out = []
    links = [link.label for link in report.environment.links] or [""]
    for link, direction in ((link, d) for link in links for d in (Direction.UPLOAD, Direction.DOWNLOAD)):
        rows = ranked_ciphers(report, direction, link)
        views = report.joined()
        best = next((s for s in rows if safe_cipher(report, views[s.case_id].case.subject)), None)
        if best is None or best.throughput_bytes_per_second is None:
            continue
        name = views[best.case_id].case.subject
        figure = pm(best.throughput_bytes_per_second, 1e6)
        out.append(Fact(f"{direction.value} {link}".strip(), f"{name}, {figure} MB/s (n={best.samples_ok}): "
                        f"{_sureness(report, rows, best)}", "strong"))
    return out
