"""What fills the link (analysis/answers/remedies.py) in words: per path and direction, the change that fills it and by
how much, then every change measured against the plain transfer, each with its limiter after the change.

Over a link (emulated or a real host) these lines open every output, before
the cipher answer: there the cipher hardly matters. On loopback they follow
the cipher answer, and say what streams and compression cost here.
"""

from __future__ import annotations

from sshbench.analysis.findings import BreakEven, Findings, PathAnswer, Remedy, Rival
from sshbench.render.labels import Headline, forecast_text, mbps
from sshbench.results.model import Report
from sshbench.results.views import variants_of
from sshbench.vocabulary.case_terms import Relation

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


def _plain(answer: PathAnswer) -> str:
    """The plain transfer as the headline names it: its cipher, and whether that is this client's default."""
    role = "this client's default" if answer.default_measured else \
        f"in place of this client's default {answer.client_default}, which was not measured" \
        if answer.client_default else \
        "the fastest safe cipher measured"
    return (f"the plain transfer ({answer.plain.subject}, {role}; one connection, no compression: "
            f"{mbps(answer.plain_rate)} MB/s, {_limit(None, answer)})")


def _rival(rival: Rival, margin: float) -> str:
    """The pick against one rival, in words with its interval and verdict (and a forecast where it is open)."""
    name = rival.change
    interval = f" [{rival.low:.2f}, {rival.high:.2f}]" if rival.low is not None and rival.high is not None else ""
    if rival.relation is Relation.DIFFERENT:
        return (f"{rival.ratio:.2f}x{interval} as much as {name}" if rival.ratio >= 1 else
                f"but {name} moved {1 / rival.ratio:.2f}x as much: significantly more")
    if rival.relation is Relation.EQUIVALENT:
        return f"as much as {name} (within ±{margin:.0%}: {rival.ratio:.2f}x{interval})"
    ahead = f"; {forecast_text(rival.forecast)}" if rival.forecast is not None else ""
    if rival.first_look is not None:  # its interval may already look clear: verdicts are read at planned looks only
        return (f"not judged yet against {name} ({rival.ratio:.2f}x{interval}: {rival.pairs} of the "
                f"{rival.first_look} samples each its first look needs{ahead})")
    return f"not yet separable from {name} ({rival.ratio:.2f}x{interval}{ahead})"


def headline(answer: PathAnswer, rivals: tuple[Rival, ...] = (), margin: float = 0.05) -> Headline:
    """The one line per path and direction: the change that moved the most payload, by how much, against its
    nearest rivals, and whether the link is now full; or that no change helped."""
    best = answer.best
    if best is None:
        plain = answer.plain_bound
        full = (f"; the plain transfer already fills the link at {plain.wire_rate / 1e6:,.1f} MB/s on the wire "
                f"({plain.wire_rate / plain.tcp:.0%} of {plain.reference})"
                if plain is not None and plain.verdict == "link" and plain.tcp else "")
        return Headline(_where(answer), f"no change measured was significantly faster than {_plain(answer)}{full}")
    line = f"{best.change} moved the most: {mbps(best.rate)} MB/s, {_interval(best)} times as fast as {_plain(answer)}"
    if rivals:
        line += "; " + "; ".join(_rival(r, margin) for r in rivals)
    bound = best.bound
    if bound is not None and bound.verdict == "link" and bound.tcp:
        line += (f"; nothing measured moves more: the link is full at {bound.wire_rate / 1e6:,.1f} MB/s on the wire "
                 f"({bound.wire_rate / bound.tcp:.0%} of {bound.reference})")
    else:
        line += f"; now {_limit(best, answer)}"
    return Headline(_where(answer), line)


def _verdict(remedy: Remedy) -> str:
    if remedy.faster:
        return "significantly faster"
    if remedy.slower:
        return "significantly slower: it costs here"
    if remedy.relation is Relation.EQUIVALENT:
        return "as fast as the plain transfer, within the tie margin: no effect here"
    return "not separable from the plain transfer"


def remedy_line(remedy: Remedy, answer: PathAnswer) -> str:
    above = "" if remedy.separable or remedy.relation is not remedy.relation.DIFFERENT else \
        "; not separable from the one above"
    cost = f"; {remedy.cost:.2f} CPU s/GiB on the busier side" if remedy.cost is not None else ""
    limit = _limit(remedy, answer)
    use = f"; to use it: {remedy.how_to}" if remedy.faster else ""
    return (f"{remedy.change}: {mbps(remedy.rate)} MB/s{_split(remedy)}, {_interval(remedy)} times as fast: "
            f"{_verdict(remedy)}{above}{f'; then {limit}' if limit else ''}{cost}{use}")


def _split(remedy: Remedy) -> str:
    """N streams' rate is an equal split's, to its last part's end (measure/steady.py); how far apart the parts
    ended is said beside it: a larger split waits longer on a part that stays slow."""
    if remedy.tail is None:
        return ""
    size = f" of {remedy.split / 2**20:,.0f} MiB" if remedy.split else ""
    return f" as an equal split{size}, to its last part's end (its parts ended {remedy.tail:.2f} s apart, median)"


def break_even_line(even: BreakEven) -> str:
    label = even.compression.label
    if not even.pays:
        return (f"{label} saves no bytes on this data ({even.ratio:.2f}:1): it pays on no link, only costs CPU "
                f"({even.line_rate / 1e6:,.0f} MB/s on one core here)")
    ratio = f", {even.ratio:.2f}:1 on this data" if even.ratio else ""
    return (f"{label} pays on links slower than {even.line_rate / 1e6:,.0f} MB/s (what its busiest process, the "
            f"{even.busiest}, moves on one core here){ratio}")


def shows_remedies(found: Findings) -> bool:
    """Whether the outputs say what the changes did: over a link, or where streams or compression were crossed
    (on loopback the cipher answer says it all otherwise), and only where a change was compared."""
    return (over_a_link(found.report) or len(variants_of(found.report)) >= 2) and bool(found.paths)


def remedy_lines(found: Findings) -> tuple[str, list[str]]:
    """(heading, lines) of what the run's changes did: the headline per path and direction, then each change
    indented; no lines when the run measured no change."""
    if not shows_remedies(found):
        return "", []
    lines = []
    for path in found.paths:
        answer = path.answer
        lines.append(headline(answer, path.rivals, found.rule.margin).line)
        lines += [f"    {remedy_line(r, answer)}" for r in answer.remedies]
        lines += [f"    {break_even_line(even)}" for even in answer.break_even]
    return (LINK_HEADING if over_a_link(found.report) else HERE_HEADING), lines


def over_a_link(report: Report) -> bool:
    """Whether the link answer comes first (a run with a link: emulated, or a real host)."""
    return bool(report.environment.links) or report.environment.server.remote is not None
