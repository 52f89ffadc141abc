"""The answer first (analysis/answers/answer.py) in words: per direction the fastest safe cipher and by how much.

Every output leads with these lines (terminal, Markdown, HTML), and a run
prints them last too, so the answer is on screen when it finishes.
"""

from __future__ import annotations

from sshbench.analysis.findings import WIDER_MARGIN, Answer, Cheapest, Comparison, Findings
from sshbench.render.commands import HEADING as COMMANDS_HEADING
from sshbench.render.commands import command_answer_lines
from sshbench.render.facts import Fact
from sshbench.render.labels import Headline, forecast_text, mbps, pm
from sshbench.render.remedies import headline, over_a_link, remedy_lines, shows_remedies
from sshbench.render.servers import HEADING as SERVERS_HEADING
from sshbench.render.servers import server_lines
from sshbench.vocabulary.case_terms import Relation

HEADING = "The answer: per direction, the fastest cipher with no known weakness, and by how much"


def verdict_words(comparison: Comparison, margin: float) -> str:
    """A comparison's verdict in words, as every answer line ends."""
    if comparison.relation is Relation.DIFFERENT:
        return "significantly faster"
    if comparison.relation is Relation.EQUIVALENT:
        return f"equivalent within ±{margin * 100:g}%"
    return "not yet separable"


LOPSIDED = 2.0  # an interval whose one arm is this many times the other gets no ±: the interval alone says it


def comparison_text(comparison: Comparison, margin: float) -> str:
    arm = comparison.plus_minus
    lopsided = comparison.low is not None and comparison.high is not None and \
        max(comparison.ratio - comparison.low, comparison.high - comparison.ratio) > \
        LOPSIDED * min(comparison.ratio - comparison.low, comparison.high - comparison.ratio)
    figure = (f"{comparison.ratio:.2f}" if lopsided else f"{comparison.ratio:.2f} ± {arm:.2f}") if arm is not None \
        else f"{comparison.ratio:.2f} (no interval yet)"  # a ± on [0.42, 3.09] around 1.17 would misstate both
    interval = (f" [{comparison.low:.2f}, {comparison.high:.2f}]" if comparison.low is not None
                and comparison.high is not None else "")
    ahead = f" ({forecast_text(comparison.forecast)})" if comparison.forecast is not None else ""
    if comparison.relation is Relation.UNSETTLED and comparison.low is not None and comparison.high is not None \
            and comparison.low >= 1 / (1 + WIDER_MARGIN) and comparison.high <= 1 + WIDER_MARGIN:
        ahead = (f" (its interval lies within ±{WIDER_MARGIN * 100:g}% already: the margin --tie-margin "
                 f"{WIDER_MARGIN:g} asks)")
    return (f"{figure} times as fast as {comparison.other}, {comparison.role}{interval}: "
            f"{verdict_words(comparison, margin)}{ahead}")


def place(answer: Answer) -> str:
    """Where an answer holds, as its headline and its chart's panel name it: "upload [server dropbear] rtt=20ms"."""
    build = f" [{answer.axis} {answer.build}]" if answer.build else ""
    return f"{answer.direction.value}{build} {answer.link}".strip()


def _headline(answer: Answer) -> Headline:
    note = f"; {answer.note}" if answer.note else ""
    return Headline(place(answer), f"{answer.best}, {mbps(answer.rate)} MB/s (n={answer.samples}){note}")


def cheapest_text(cheapest: Cheapest, margin: float) -> str:
    """The cost ranking's answer in words: which is cheapest per byte, and how sure."""
    text = (f"cheapest per byte: {cheapest.name}, {pm(cheapest.cost, digits=2)} CPU s/GiB on the busier side")
    if cheapest.other is None or cheapest.ratio is None:
        return text
    interval = (f" [{cheapest.low:.2f}, {cheapest.high:.2f}]" if cheapest.low is not None
                and cheapest.high is not None else "")
    verdict = {Relation.DIFFERENT: "significantly more", Relation.EQUIVALENT: f"equivalent within ±{margin * 100:g}%",
               Relation.UNSETTLED: "not yet separable"}.get(cheapest.relation, "not compared") \
        if cheapest.relation is not None else "not neighbours in that ranking"
    return f"{text}; {cheapest.other} costs {cheapest.ratio:.2f} times as much{interval}: {verdict}"


def answer_lines(found: Findings) -> list[str]:
    """The answer as plain lines: a headline per direction, then its comparisons and the cheapest, indented."""
    margin = found.rule.margin
    out = []
    for answer in found.answers:
        out.append(_headline(answer).line)
        out += [f"    {comparison_text(c, margin)}" for c in answer.comparisons]
        if answer.cheapest is not None:
            out.append(f"    {cheapest_text(answer.cheapest, margin)}")
    return out


def answer_sections(found: Findings) -> list[tuple[str, list[str]]]:
    """The answers a run's outputs open with, as (heading, lines): over a link, what fills it first, then the
    cipher; on loopback the cipher first, then what the other changes did (render/remedies.py)."""
    report = found.report
    cipher = (HEADING, answer_lines(found))
    heading, lines = remedy_lines(found)
    sections = [(heading, lines), cipher] if over_a_link(report) else [cipher, (heading, lines)]
    sections.insert(0, (SERVERS_HEADING, server_lines(found)))  # --server a,b: which server first
    sections.insert(0, (COMMANDS_HEADING, command_answer_lines(found)))  # --commands: what one costs, first
    return [(h, found) for h, found in sections if found]


def verdict(found: Findings) -> list[Fact]:
    """One fact per direction measured (and per emulated link): the answer with its comparisons; over a link,
    what fills it first."""
    report = found.report
    ciphers = [_cipher_fact(a, found.rule.margin) for a in found.answers]
    links = [Fact(h.where, h.says, "strong")
             for h in (headline(a) for a in found.path_answers)] if shows_remedies(found) else []
    servers = [Fact("servers", line, "strong") for line in server_lines(found)]
    commands = [Fact("short commands", line, "strong") for line in command_answer_lines(found)]
    return [*commands, *servers, *([*links, *ciphers] if over_a_link(report) else [*ciphers, *links])]


def _cipher_fact(answer: Answer, margin: float) -> Fact:
    """One direction's answer as a fact: labelled where it holds, its headline's statement, then its comparisons
    and the cheapest, as the answer's lines say them."""
    head = _headline(answer)
    return Fact(head.where, "; ".join([head.says, *(comparison_text(c, margin) for c in answer.comparisons),
                                       *([cheapest_text(answer.cheapest, margin)] if answer.cheapest else [])]),
                "strong")
