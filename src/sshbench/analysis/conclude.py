"""The one concluding step: a Report in, its Findings (analysis/findings.py) out.

Pure: it reads the report and runs nothing. The commands call it once per
report (cli/report.py for `report FILE`, cli/run.py at a run's end) and
hand the result to every output; what several runs conclude together is
drawn here too (conclude_fleet: hosts side by side; conclude_comparisons:
`compare`'s runs against their baseline). It is the one call of analysis
the commands make for what they show, which is why it lives apart from the
Findings types: render may import those, and an import contract keeps it
from importing this module, so no output can draw a conclusion again.
"""

from __future__ import annotations

from collections.abc import Sequence

from sshbench.analysis.answers.answer import answers, client_default, ranked_ciphers
from sshbench.analysis.answers.build_ratios import build_rows
from sshbench.analysis.answers.contest import rivals
from sshbench.analysis.answers.remedies import path_answers
from sshbench.analysis.answers.servers import server_questions
from sshbench.analysis.comparisons.dimensions import still_reports
from sshbench.analysis.comparisons.stated import against_plain
from sshbench.analysis.config.configtext import kept
from sshbench.analysis.connections.commands import command_figures
from sshbench.analysis.connections.logins import knees, load_points
from sshbench.analysis.connections.phases import phase_splits
from sshbench.analysis.connections.stalls import stalls
from sshbench.analysis.findings import CipherFinding, EchoFigure, Findings, KeptRecommendation, PathFinding
from sshbench.analysis.physics.limits import limit_findings, link_windows
from sshbench.analysis.physics.links import crossed, every_bound
from sshbench.analysis.physics.references import judged
from sshbench.analysis.runs.compare import RunComparison, comparisons
from sshbench.analysis.runs.fleet import Fleet, fleet
from sshbench.analysis.security.safety import safe_cipher
from sshbench.analysis.stats.stats import describe
from sshbench.analysis.stats.verdicts import run_rule
from sshbench.results.model import Report
from sshbench.results.views import compares_servers, per_server


def conclude(report: Report, recommendation: bool = False) -> Findings:
    """Everything the findings hold, each computed once: the run's rule, the cipher answers with their tables,
    the link answer with its rivals, the servers' questions, the short commands' figures, the logins' stages
    and knees, the set-up phase splits with their stalls, the sides side by side, what limited each transfer,
    the references judged, the echoes' statistics; with `recommendation`, the recommendation each server kept,
    checked against the data. Only the HTML page shows that one, and checking it costs more than all the rest
    (0.02-0.12 s a recorded report, against 0.001-0.1 s): the commands ask for it where they write the page."""
    with still_reports():  # the report is finished: each sample is read once for all the verdicts drawn here
        return _concluded(report, recommendation)


def conclude_fleet(runs: Sequence[Report]) -> Fleet:
    """What several runs shown side by side conclude together (a multi-host run, or `report` over many files):
    each host's limits and figures, the fleet's recommendation, outliers and version note; once per command, for
    every output's hosts tables."""
    with still_reports():
        return fleet(runs)


def conclude_comparisons(files: list[tuple[str, list[Report]]], normalize: str | None) -> list[RunComparison]:
    """What `compare` concludes of runs against their baseline: each pair's differences in what was measured and
    every case's change (analysis/runs/compare.py), once, for its table, its JSON and its exit status."""
    return comparisons(files, normalize)


def _kept(report: Report) -> tuple[KeptRecommendation, ...]:
    """Each server's kept recommendation from its own view (--server a,b), or the run's."""
    servers = compares_servers(report)
    return tuple(kept(view, view.environment.builds[0].name if servers else "") for view in per_server(report))


def _concluded(report: Report, recommendation: bool) -> Findings:
    found = path_answers(report)
    against = rivals(report, found)
    paths = tuple(PathFinding(a, against.get(a.best.case.id, ()) if a.best else ()) for a in found)
    logins = tuple(load_points(report))
    splits = tuple(phase_splits(report))
    limits = every_bound(report)
    return Findings(report, run_rule(report), _ciphers(report), paths, servers=tuple(server_questions(report)),
                    commands=tuple(command_figures(report)), logins=logins, knees=knees(list(logins)),
                    phases=splits, stalls=tuple(stall for split in splits for stall in stalls(split)),
                    builds=tuple(build_rows(report)), bounds=tuple(limits), crossed=tuple(crossed(report, limits)),
                    references=judged(report), limits=limit_findings(report), windows=link_windows(report),
                    echoes=tuple(EchoFigure(e, describe(e.echo_seconds) if e.ok else None) for e in report.echoes),
                    variants=against_plain(report), recommendations=_kept(report) if recommendation else None)


def _ciphers(report: Report) -> tuple[CipherFinding, ...]:
    """The cipher answers in answers()'s order; a run of several servers takes each server's answers, table and
    default from that server's own view (its Terrapin status and its defaults are its own)."""
    out = []
    for source in per_server(report) if compares_servers(report) else [report]:
        views = source.joined()
        for answer in answers(source):
            rows = tuple((views[s.case_id].case.subject, s)
                         for s in ranked_ciphers(source, answer.direction, answer.link, answer.build)
                         if s.throughput_bytes_per_second is not None)
            names = [name for name, _ in rows]
            out.append(CipherFinding(answer, rows, client_default(source, names),
                                     tuple(name for name in names if safe_cipher(source, name))))
    return tuple(out)
