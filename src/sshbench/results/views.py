"""A report restricted to one emulated link's or one side's cases, so every table can be drawn per view.

The ranked tables of a run compare cases within one group: one kind,
direction, transfer method, side and link. A view keeps one link's (or one
side's) cases, the references that belong to them (the raw TCP control of
that link, the local crypto ceilings that cross none), their samples and
summaries, so the ordinary table builders draw that view's tables.

A side is an SSH build (--build) or an embedded server (--server a,b). A
server side's view is that server's whole report: its own server facts,
offer, defaults, Terrapin status and kept recommendation take the run's
place, so the advice, the answer and the recommendation made from it are
that server's, with no code of theirs knowing there were others.

A view concludes nothing: it is the record cut to a part of itself. So it
lives with the record rather than in analysis/, and the renderers, which
draw every table per view but import no analysis module beside the
Findings (pyproject.toml's contracts), cut their views here too.
"""

from __future__ import annotations

from dataclasses import replace

from sshbench.axes import DECLARED
from sshbench.results.model import Case, CaseKind, Report


def _view(report: Report, keep: set[str]) -> Report:
    return replace(report, cases=[r for r in report.cases if r.case.id in keep],
                   samples=[s for s in report.samples if s.case_id in keep],
                   summaries=[s for s in report.summaries if s.case_id in keep])


def link_view(report: Report, label: str) -> Report:
    """The report restricted to one link's cases (and the local crypto ceilings, which cross no link)."""
    keep = {r.case.id for r in report.cases if r.case.link == label or r.case.kind is CaseKind.CEILING}
    return replace(_view(report, keep), echoes=[e for e in report.echoes if e.link == label])


def _of_build(case: Case, name: str) -> bool:
    return case.build == name or case.kind in (CaseKind.CONTROL, CaseKind.CEILING)


def build_view(report: Report, name: str) -> Report:
    """The report restricted to one build's cases (and the references, which belong to no build)."""
    return _view(report, {r.case.id for r in report.cases if _of_build(r.case, name)})


Dims = tuple[tuple[str, str], ...]  # a case's declared-axis values (Case.dims)
Variant = tuple[int, str, Dims]  # (streams, compression, declared-axis values) of a case


def variant_of(case: Case) -> Variant:
    return case.streams, case.compression, case.dims


def variants_of(report: Report) -> list[Variant]:
    """The (streams, compression, declared-axis values) the run's measured cases crossed, in the order the options
    give them (an older file: the one plain variant)."""
    opts = report.options
    found = {variant_of(r.case) for r in report.cases if r.case.moves_data}
    order = [(n, c) for c in opts.compression for n in opts.streams]

    def place(variant: Variant) -> tuple[object, ...]:
        dims = dict(variant[2])
        given = [(opts.dim_values(axis.name), dims.get(axis.name, axis.plain)) for axis in DECLARED]
        return (order.index(variant[:2]) if variant[:2] in order else len(order),
                [values.index(value) if value in values else len(values) for values, value in given], variant)
    return sorted(found, key=place)


def variant_view(report: Report, variant: Variant) -> Report:
    """The report restricted to one variant's cases (and the references and the handshake cases, which have
    none)."""
    return _view(report, {r.case.id for r in report.cases if not r.case.moves_data
                          or r.case.kind in (CaseKind.CONTROL, CaseKind.CEILING) or variant_of(r.case) == variant})


def builds_of(report: Report) -> list[str]:
    """The sides a run compared (builds or servers), in the order given (none: an empty list)."""
    return [b.name for b in report.environment.builds]


def side_word(report: Report) -> str:
    """What the run's sides are, as titles name them: "server" (--server a,b) or "build"."""
    return next((b.axis for b in report.environment.builds), "build")


def side_view(report: Report, name: str) -> Report:
    """One side's cases; a server side's view also takes that server's own facts (see above)."""
    view = build_view(report, name)
    facts = next(b for b in report.environment.builds if b.name == name)
    own = facts.own
    if own is None:
        return view
    env = report.environment
    algorithms = replace(env.algorithms, server_enabled=own.enabled, server_defaults=own.defaults)
    return replace(view, environment=replace(env, server=own.server, algorithms=algorithms, terrapin=own.terrapin,
                                             builds=[facts]), recommendation=own.recommendation)


def compares_servers(report: Report) -> bool:
    """A run of several embedded servers as one report (--server a,b)."""
    return sum(b.own is not None for b in report.environment.builds) > 1


def per_server(report: Report) -> list[Report]:
    """A run as the servers it measured: each server side's view (--server a,b), or the run itself."""
    names = [b.name for b in report.environment.builds if b.own is not None]
    return [side_view(report, name) for name in names] or [report]
