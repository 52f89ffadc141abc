"""What fills the link (analysis/remedies.py) in words: per path and direction, the change that fills it and by
how much, then every change measured against the plain transfer, each with its limiter after the change.

Over a link (emulated or a real host) these lines open every output, before
the cipher answer: there the cipher hardly matters. On loopback they follow
the cipher answer, and say what streams and compression cost here.
"""

from __future__ import annotations

from sshbench.analysis.remedies import BreakEven, PathAnswer, Remedy, path_answers
from sshbench.analysis.views import variants_of
from sshbench.compressors import choice
from sshbench.render.labels import mbps
from sshbench.results.model import Report

LINK_HEADING = ("What fills the link: each change measured against the plain transfer (this client's default "
                "cipher, one connection, no compression), by how much, and what limits it then")
HERE_HEADING = "What the other changes did here: each against the plain transfer, by how much"


def _interval(remedy: Remedy) -> str:
    if remedy.low is None or remedy.high is None:
        return f"{remedy.ratio:.2f} (no interval yet)"
    return f"{remedy.ratio:.2f} [{remedy.low:.2f}, {remedy.high:.2f}]"


def _limit(remedy: Remedy | None, answer: PathAnswer) -> str:
    bound = remedy.bound if remedy is not None else answer.plain_bound
    if bound is None:
        return ""
    share = f", {bound.link_share:.0%} of the link" if bound.link_share is not None and bound.verdict != "link" else ""
    return f"{bound.short}{share}"


def _where(answer: PathAnswer) -> str:
    """"upload across rtt=80ms" (an emulated link), "upload to web1" (a real host), "upload" (loopback)."""
    if not answer.path:
        return answer.direction.value
    return f"{answer.direction.value} {'across' if answer.link else 'to'} {answer.path}"


def headline(answer: PathAnswer) -> str:
    """The one line per path and direction: what fills the link, or the fastest change, or that none helped."""
    plain = f"the plain transfer ({answer.plain.subject}, {mbps(answer.plain_rate)} MB/s, {_limit(None, answer)})"
    if answer.fills is not None:
        fills = answer.fills
        return (f"{_where(answer)}: {fills.change} fills the link: {_interval(fills)} times as fast as {plain}; "
                f"now {_limit(fills, answer)}")
    best = answer.best
    if best is not None:
        tie = "" if len(answer.remedies) < 2 or answer.remedies[1].separable else \
            f" (not separable from {answer.remedies[1].change})"
        return (f"{_where(answer)}: {best.change} is the fastest change measured{tie}: {_interval(best)} times as "
                f"fast as {plain}; now {_limit(best, answer)}")
    return f"{_where(answer)}: no change measured was significantly faster than {plain}"


def _verdict(remedy: Remedy) -> str:
    if remedy.faster:
        return "significantly faster"
    if remedy.slower:
        return "significantly slower: it costs here"
    return "not separable from the plain transfer"


def remedy_line(remedy: Remedy, answer: PathAnswer) -> str:
    above = "" if remedy.separable or remedy.relation is not remedy.relation.DIFFERENT else \
        "; not separable from the one above"
    cost = f"; {remedy.cost:.2f} CPU s/GiB on the busier side" if remedy.cost is not None else ""
    limit = _limit(remedy, answer)
    return (f"{remedy.change}: {mbps(remedy.rate)} MB/s, {_interval(remedy)} times as fast: "
            f"{_verdict(remedy)}{above}{f'; then {limit}' if limit else ''}{cost}")


def break_even_line(even: BreakEven) -> str:
    ratio = f", {even.ratio:.2f}:1 on this data" if even.ratio else ""
    return (f"{choice(even.compression).label} pays on links slower than {even.line_rate / 1e6:,.0f} MB/s (what its "
            f"busiest process, the {even.busiest}, moves on one core here){ratio}")


def remedy_lines(report: Report) -> tuple[str, list[str]]:
    """(heading, lines) of what the run's changes did: the headline per path and direction, then each change
    indented; no lines when the run measured no change."""
    over_link = over_a_link(report)
    if not over_link and len(variants_of(report)) < 2:
        return "", []  # on loopback the cipher answer says it all, unless streams or compression were crossed
    answers = path_answers(report)
    if not answers:
        return "", []
    lines = []
    for answer in answers:
        lines.append(headline(answer))
        lines += [f"    {remedy_line(r, answer)}" for r in answer.remedies]
        lines += [f"    {break_even_line(even)}" for even in answer.break_even]
    return (LINK_HEADING if over_link else HERE_HEADING), lines


def over_a_link(report: Report) -> bool:
    """Whether the link answer comes first (a run with a link: emulated, or a real host)."""
    return bool(report.environment.links) or report.environment.server.remote is not None
