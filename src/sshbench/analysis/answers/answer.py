"""The answer, first: per direction, the fastest safe cipher and how many times as fast it is, with an interval.

What a user asks of a run is "which one, and by how much". Per direction
(and emulated link) the answer names the fastest cipher with no known
weakness (analysis/security/safety.safe_cipher) and compares it, as hyperfine
does, with the runner-up (the next safe cipher in the ranking) and with the
cipher this client uses by default against this server (the first of its
defaults the server offers): "1.52 ± 0.12 times as fast", the interval of
that ratio, and a verdict: different, equivalent within the tie margin, or
not yet separable.

Where the two are ranking neighbours, the ratio, interval and verdict are
the ranking's own (analysis/stats/verdicts.py: back-to-back pairs where there are
enough, corrected for the table's pairs and the run's looks). Otherwise
the pair is stated as every "X vs Y" is (analysis/comparisons/stated.py): judged under
the run's rule, with its correction over the looks (and, for a cross pair,
over its dimension's family), the interval at the level of that test.
Nothing here is ranked that the tables do not rank.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sshbench.analysis.comparisons.pairs import PairData
from sshbench.analysis.comparisons.stated import Statements
from sshbench.analysis.security.safety import safe_cipher
from sshbench.analysis.stats.forecast import Forecast
from sshbench.results.model import Case, Report, Stat, Summary
from sshbench.results.views import builds_of, compares_servers, per_server, side_word
from sshbench.vocabulary.case_terms import CaseKind, Direction, Relation


@dataclass(frozen=True)
class Comparison:
    """How many times as fast the answer is as `other`, with the interval of that ratio and the verdict."""

    other: str
    role: str  # "the runner-up", "your client's default"
    ratio: float
    low: float | None
    high: float | None
    relation: Relation
    pairs: int = 0  # back-to-back pairs behind the verdict (0: all samples, unpaired)
    forecast: Forecast | None = None  # not yet separable: what settling it would take at this noise

    @property
    def plus_minus(self) -> float | None:
        """The interval's larger arm: "1.52 ± 0.12"."""
        if self.low is None or self.high is None:
            return None
        return max(self.ratio - self.low, self.high - self.ratio)


@dataclass(frozen=True)
class Answer:
    direction: Direction
    link: str
    build: str  # the side (build or server) of a run that compared sides; "" otherwise
    best: str
    rate: Stat
    samples: int
    comparisons: tuple[Comparison, ...]
    note: str = ""  # "the only safe cipher measured", "your client's default already"
    cheapest: Cheapest | None = None  # the cost ranking's answer, where it has one
    axis: str = "build"  # what `build` names: "build" (--build) or "server" (--server a,b)


@dataclass(frozen=True)
class Cheapest:
    """The safe cipher with the least CPU per byte on the busier side, and the next safe one in that ranking."""

    name: str
    cost: Stat  # CPU seconds per GiB
    other: str | None = None
    ratio: float | None = None  # how many times the CPU per byte `other` costs
    low: float | None = None
    high: float | None = None
    relation: Relation | None = None


def ranked_ciphers(report: Report, direction: Direction, link: str = "", build: str = "") -> list[Summary]:
    """The pipe cipher cases of one direction (build and emulated link) that have a rank, in rank order."""
    group = Case(CaseKind.CIPHER, direction, cipher="", build=build, link=link).group  # spelled by the model only
    rows = [s for s in report.summaries if s.group == group and s.rank is not None]
    return sorted(rows, key=lambda s: s.rank or 0)


def true_default(report: Report, offered: list[str]) -> str | None:
    """The cipher this client negotiates with this server when left alone: its first default the server offers
    (RFC 4253, 7.1), measured or not (None: the run does not know the client's defaults)."""
    algos = report.environment.algorithms
    server = set(algos.server_defaults.cipher or algos.server_enabled.cipher) or set(offered)
    return next((name for name in algos.client_defaults.cipher if name in server), None)


def client_default(report: Report, offered: list[str]) -> str | None:
    """That default cipher, where this run measured it (`offered`: the ciphers measured); never a later default
    in its place (the plain transfer was called "this client's default" when only its second one was measured)."""
    default = true_default(report, offered)
    return default if default in offered else None


def answers(report: Report) -> list[Answer]:
    """Per direction, link and side, the fastest safe cipher and its comparisons; a run of several servers gets
    each server's from that server's own view (its Terrapin status decides what is safe there)."""
    if compares_servers(report):
        return [answer for view in per_server(report) for answer in answers(view)]
    out = []
    links = [link.label for link in report.environment.links] or [""]
    builds = builds_of(report) or [""]
    views = report.joined()
    data = PairData(report)
    for link, build, direction in ((link, build, d) for link in links for build in builds
                                   for d in (Direction.UPLOAD, Direction.DOWNLOAD)):
        rows = ranked_ciphers(report, direction, link, build)
        names = {s.case_id: views[s.case_id].case.subject for s in rows}
        safe = [s for s in rows if safe_cipher(report, names[s.case_id])]
        rate = safe[0].throughput_bytes_per_second if safe else None
        if rate is None:
            continue
        best = safe[0]
        comparisons, note = [], ""
        default = client_default(report, list(names.values()))
        if len(safe) > 1:
            role = "the runner-up" + (" and this client's default" if names[safe[1].case_id] == default else "")
            comparisons.append(compare(report, rows, best, safe[1], names, role, data))
            if comparisons[0].relation is not Relation.DIFFERENT:  # first by its median only: say so up front
                note = ("as fast as the runner-up" if comparisons[0].relation is Relation.EQUIVALENT else
                        "listed first by its median, but its order against the runner-up is not proven"
                        if comparisons[0].ratio < 1 else "first by its median; not yet separable from the runner-up")
        else:
            note = "the only safe cipher measured"
        if default == names[best.case_id]:
            note = (note + "; " if note else "") + "it is this client's default already"
        elif default is not None and (len(safe) < 2 or default != names[safe[1].case_id]):
            other = next(s for s in rows if names[s.case_id] == default)
            comparisons.append(compare(report, rows, best, other, names, "this client's default", data))
        elif default is None and (unmeasured := true_default(report, list(names.values()))) is not None:
            note = (note + "; " if note else "") + f"this client's default, {unmeasured}, was not measured"
        out.append(Answer(direction, link, build, names[best.case_id], rate, best.samples_ok, tuple(comparisons),
                          note, cheapest(report, rows, names), side_word(report)))
    return out


def answer_pairs(report: Report) -> set[tuple[str, str]]:
    """The neighbour pairs (faster, slower) the answer's first comparison rests on: in each cipher table, from the
    fastest safe cipher down to the runner-up (the safe one next below it). The schedule spends on them first
    (plan/funding.py). The comparison with this client's default is a stated one from the two cases' own
    samples, not a chain of neighbours; taking every pair down to the default (as before) made the answer's
    pairs most of a table whenever the default ranked low, and a close runner-up waited behind them."""
    if compares_servers(report):
        return {pair for view in per_server(report) for pair in answer_pairs(view)}
    out: set[tuple[str, str]] = set()
    links = [link.label for link in report.environment.links] or [""]
    builds = builds_of(report) or [""]
    views = report.joined()
    for link, build, direction in ((link, build, d) for link in links for build in builds
                                   for d in (Direction.UPLOAD, Direction.DOWNLOAD)):
        rows = ranked_ciphers(report, direction, link, build)
        names = [views[s.case_id].case.subject for s in rows]
        safe = [i for i, s in enumerate(rows) if safe_cipher(report, names[i])]
        if len(safe) < 2:
            continue
        out |= {(rows[i].case_id, rows[i + 1].case_id) for i in range(safe[0], safe[1])}
    return out


def cheapest(report: Report, rows: list[Summary], names: dict[str, str]) -> Cheapest | None:
    """The cost ranking's answer: its first safe cipher, and the next safe one with the ranking's own verdict
    where they are neighbours there (an unsafe cipher between them: the ratio only)."""
    ranked = sorted((s for s in rows if s.cost_rank is not None and s.cost_seconds_per_gib is not None),
                    key=lambda s: s.cost_rank or 0)
    safe = [(s, s.cost_seconds_per_gib) for s in ranked if safe_cipher(report, names[s.case_id])
            and s.cost_seconds_per_gib is not None]
    if not safe:
        return None
    (best, cost), rest = safe[0], safe[1:]
    if not rest:
        return Cheapest(names[best.case_id], cost)
    other, other_cost = rest[0]
    if ranked.index(other) == ranked.index(best) + 1 and other.cost_ratio is not None:
        return Cheapest(names[best.case_id], cost, names[other.case_id], other.cost_ratio,
                        other.cost_ratio_low, other.cost_ratio_high, other.cost_relation)
    return Cheapest(names[best.case_id], cost, names[other.case_id], other_cost.median / cost.median)


def compare(report: Report, rows: list[Summary], best: Summary, other: Summary, names: dict[str, str],
            role: str, data: PairData | None = None) -> Comparison:
    """`best` against `other`: the ranking's own verdict where they are neighbours, else the pair as the run's
    rule judges it (analysis/comparisons/stated.py); with the forecast of what would settle it where it is open
    (given the report's PairData)."""
    neighbours = rows.index(other) == rows.index(best) + 1 and other.ratio_to_previous is not None and \
        other.relation is not None
    if neighbours:
        found = Comparison(names[other.case_id], role, other.ratio_to_previous, other.ratio_low,  # type: ignore[arg-type]
                           other.ratio_high, other.relation)  # type: ignore[arg-type]
        competing = sum(1 for s in rows if s.relation is Relation.UNSETTLED)
    else:
        found, competing = _stated(report, best, other, names, role, data)
    if found.relation is not Relation.UNSETTLED or data is None:
        return found
    ahead = data.forecast(best.case_id, other.case_id, True, competing)
    return Comparison(found.other, found.role, found.ratio, found.low, found.high, found.relation, found.pairs,
                      ahead)


def _stated(report: Report, best: Summary, other: Summary, names: dict[str, str], role: str,
            data: PairData | None) -> tuple[Comparison, int]:
    """Two cases that are not neighbours in the ranking, and the pairs corrected with them."""
    found = Statements(report, data.rule if data else None).of(other.case_id, best.case_id)
    if found is None:
        ratio = (best.throughput_bytes_per_second.median / other.throughput_bytes_per_second.median  # type: ignore[union-attr]
                 if other.throughput_bytes_per_second else math.nan)
        return Comparison(names[other.case_id], role, ratio, None, None, Relation.UNSETTLED), 1
    return Comparison(names[other.case_id], role, found.ratio, found.low, found.high, found.relation,
                      found.pairs), found.family
