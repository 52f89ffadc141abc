"""Which server, and by how much (analysis/answers/servers.py), in words: the first lines of a `--server a,b` run."""

from __future__ import annotations

from sshbench.analysis.findings import Findings, ServerFigure, ServerQuestion
from sshbench.render.labels import RATIOS, forecast_text, mbps, pm
from sshbench.vocabulary.case_terms import Relation

HEADING = "Which server, and by how much: the same client against each embedded server"


def _cpu(figure: ServerFigure) -> str:
    weak = "" if figure.safe else ", has a known weakness there (Terrapin or its grade): never recommended"
    return (f", server {pm(figure.server_cpu, digits=2)} CPU s/GiB" if figure.server_cpu is not None else "") + weak


def _other(figure: ServerFigure, cipher_shown: bool) -> str:
    what = f" with {figure.cipher}" if cipher_shown else ""
    rate = f"{mbps(figure.rate)} MB/s{what}{_cpu(figure)}, n={figure.samples}"
    if figure.ratio is None:
        return f"{figure.server} {rate}"
    interval = f" [{figure.low:.2f}, {figure.high:.2f}]" if figure.low is not None and figure.high is not None \
        else " (no interval yet)"
    if figure.relation is Relation.DIFFERENT:
        verdict = "significantly slower" if figure.ratio < 1 else "significantly faster"
    elif figure.relation is Relation.EQUIVALENT:
        verdict = "as fast, within the tie margin"
    else:
        verdict = "not yet separable" + (f" ({forecast_text(figure.forecast)})" if figure.forecast is not None else "")
    return f"{figure.server} {figure.ratio:.2f}x{interval}: {verdict} ({rate})"


def question_line(question: ServerQuestion) -> str:
    """"upload, this client's default chacha20-poly1305@openssh.com: openssh is fastest, 105 ±16 MB/s ...;
    dropbear 0.23x [0.18, 0.26]: significantly slower (...)"."""
    lead = question.figures[0]
    same = question.question == "default"
    where = f"{question.direction.value}{f' {question.link}' if question.link else ''}"
    what = f"this client's default, {lead.cipher}" if same else "each server's fastest safe cipher"
    if len(question.figures) == 1:
        verb = "is the only one measured"
    elif question.proven:
        verb = "is fastest"
    else:
        verb = "is first by its median, not separable from every other"
    first = f"{lead.server} {verb}: {mbps(lead.rate)} MB/s{'' if same else f' with {lead.cipher}'}{_cpu(lead)}, " \
        f"n={lead.samples}"
    rest = [_other(f, not same) for f in question.figures[1:]]
    missing = [f"{why}" for why in question.unmeasured]
    return f"{where}, {what}: " + "; ".join([first, *rest, *missing])


def server_lines(found: Findings) -> list[str]:
    """The answer's server lines, the statistic of their ratios named last (none unless the run compared
    servers)."""
    lines = [question_line(q) for q in found.servers]
    return [*lines, RATIOS] if lines else []
