"""Which server, and by how much: the first lines of a `--server a,b` run.

A user who runs `--server openssh,dropbear,tinysshd` asks "which of these
should this box run, and what does it cost me?". Per direction (and
emulated link) two questions get an answer:

- the cipher this client uses by default, on every server that offers it:
  the same case on each, so each server is compared with the leader by the
  cross pair the schedule funded where the leader is the first server given;
- each server's own fastest safe cipher (its own view's answer, with its own
  Terrapin status: a server without strict key exchange has no safe
  ChaCha20-Poly1305 or EtM mode), compared with the leader's, a pair no
  cross pair holds (the two may be different ciphers), judged alone.

Every ratio is stated as every "X vs Y" of a report is (analysis/comparisons/stated.py:
the run's decision rule, with its correction over the looks and, for a
cross pair, Holm over its dimension's pairs), so a server's line never says
"significantly slower" where the builds table or the schedule's verdict
says not separable.

A server is named fastest only where it is significantly faster than every
other server in that comparison; otherwise the first by median is said to
be first by its median, not separable from the one it could not be told
apart from. Each figure carries the server's CPU per GiB, what a busy
server pays.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sshbench.analysis.answers.answer import answers, client_default, ranked_ciphers
from sshbench.analysis.comparisons.pairs import PairData
from sshbench.analysis.comparisons.stated import Stated, Statements
from sshbench.analysis.security.safety import safe_cipher
from sshbench.analysis.stats.forecast import Forecast
from sshbench.results.model import Report, Stat, Summary
from sshbench.results.views import compares_servers, per_server
from sshbench.vocabulary.case_terms import Direction, Relation


@dataclass(frozen=True)
class ServerFigure:
    """One server's figure for a question: the cipher, its rate and server CPU, and the ratio to the leader."""

    server: str
    cipher: str
    rate: Stat
    server_cpu: Stat | None  # the server's CPU seconds per GiB moved
    samples: int
    safe: bool  # no known weakness on that server (its own Terrapin status decides ChaCha20-Poly1305 and EtM)
    ratio: float | None = None  # times as fast as the leader (None: this is the leader)
    low: float | None = None
    high: float | None = None
    relation: Relation | None = None  # the pair's verdict under the run's rule (analysis/comparisons/stated.py)
    forecast: Forecast | None = None  # not yet separable: what settling it would take at this noise


@dataclass(frozen=True)
class ServerQuestion:
    """One question ("the client's default", "the fastest safe cipher") in one direction and link."""

    direction: Direction
    link: str
    question: str  # "default" or "fastest safe"
    figures: tuple[ServerFigure, ...]  # the leader (by median) first, each other compared with it
    unmeasured: tuple[str, ...] = ()  # servers with no figure here, and why ("dropbear: not offered")

    @property
    def proven(self) -> bool:
        """The leader is significantly faster than every other server with a figure."""
        return len(self.figures) > 1 and all(f.relation is Relation.DIFFERENT and f.ratio is not None
                                             and f.ratio < 1 for f in self.figures[1:])


def server_questions(report: Report) -> list[ServerQuestion]:
    """Both questions per direction and link, for a run that compared servers (else none)."""
    if not compares_servers(report):
        return []
    views = per_server(report)
    data = PairData(report)
    statements = Statements(report, data.rule)
    out = []
    links = [link.label for link in report.environment.links] or [""]
    for link in links:
        for direction in (Direction.UPLOAD, Direction.DOWNLOAD):
            default = _defaults(views, direction, link, data, statements)
            best = _bests(views, direction, link, data, statements)
            out += [q for q in (default, best) if q is not None]
    return out


def _name(view: Report) -> str:
    return view.environment.builds[0].name


def _figure(view: Report, summary: Summary, cipher: str) -> ServerFigure | None:
    rate = summary.throughput_bytes_per_second
    if rate is None:
        return None
    return ServerFigure(_name(view), cipher, rate, summary.server_cpu_seconds_per_gib, summary.samples_ok,
                        safe_cipher(view, cipher))


def _defaults(views: list[Report], direction: Direction, link: str, data: PairData,
              statements: Statements) -> ServerQuestion | None:
    found: list[tuple[Report, Summary, ServerFigure]] = []
    missing = []
    for view in views:
        rows = ranked_ciphers(view, direction, link, _name(view))
        names = {s.case_id: view.case(s.case_id).case.subject for s in rows}
        default = client_default(view, list(names.values()))
        row = next((s for s in rows if names[s.case_id] == default), None)
        figure = _figure(view, row, default) if row is not None and default is not None else None
        if figure is None:
            missing.append(f"{_name(view)}: this client's default was not measured there")
        else:
            found.append((view, row, figure))  # type: ignore[arg-type]
    return _question(direction, link, "default", found, missing, data, statements)


def _bests(views: list[Report], direction: Direction, link: str, data: PairData,
              statements: Statements) -> ServerQuestion | None:
    found: list[tuple[Report, Summary, ServerFigure]] = []
    missing = []
    for view in views:
        answer = next((a for a in answers(view) if a.direction is direction and a.link == link), None)
        if answer is None:
            missing.append(f"{_name(view)}: no cipher without a known weakness was measured there")
            continue
        rows = ranked_ciphers(view, direction, link, _name(view))
        row = next(s for s in rows if view.case(s.case_id).case.subject == answer.best)
        figure = _figure(view, row, answer.best)
        if figure is not None:
            found.append((view, row, figure))
    return _question(direction, link, "fastest safe", found, missing, data, statements)


def _question(direction: Direction, link: str, question: str, found: list[tuple[Report, Summary, ServerFigure]],
              missing: list[str], data: PairData, statements: Statements) -> ServerQuestion | None:
    if not found:
        return None
    found.sort(key=lambda item: -item[2].rate.median)
    _, lead, first = found[0]
    figures = [first]
    for _, summary, figure in found[1:]:
        stated = statements.of(lead.case_id, summary.case_id)
        if stated is None:
            figures.append(figure)
            continue
        compared = _compared(figure, stated)
        if stated.relation is Relation.UNSETTLED:  # at the rule's last look, Holm's share of its family
            ahead = data.forecast(lead.case_id, summary.case_id, True, stated.family)
            compared = dataclasses.replace(compared, forecast=ahead)
        figures.append(compared)
    return ServerQuestion(direction, link, question, tuple(figures), tuple(missing))


def _compared(figure: ServerFigure, stated: Stated) -> ServerFigure:
    """The figure with its ratio to the leader (below 1: slower), as the run's rule decided the pair."""
    return dataclasses.replace(figure, ratio=stated.ratio, low=stated.low, high=stated.high, relation=stated.relation)
