"""Findings: what one report concludes, as values, made once and laid out by every output (issue 63).

A run is measured, concluded, then rendered. The answers used to be drawn
again wherever they were shown: the cipher answer twice in the terminal's
answer block alone, the link answer and its rivals once for the lines and
again for the JSON, the decision rule rebuilt in six places. Here is the
record they are drawn into once (analysis/conclude.py): the rule the
run's verdicts were made with, the cipher answers with the ranked cases
each was chosen from, the link answers with their rivals, the servers'
questions, the short commands' figures, the logins' stages and knees, the
set-up phase splits and their stalls, the sides side by side and what
limited each transfer. Outputs (render/) take a Findings and lay it out;
they cannot conclude again (pyproject.toml's import contracts keep render
from analysis/conclude.py and from the modules that compute these
answers). A table drawn per view (one link's, side's or variant's cases)
picks its cases' figures from here: computed once for the whole run, each
cross pair within its dimension's whole family, as the schedule judged it.

The record holds the report it was concluded from: the tables still lay
out its summaries, and later slices move what they still conclude into
fields here. The types of its fields (and the phase names, PHASES) are
named here too, so a renderer reaches them without importing the code
that computes them. So are the other values the outputs lay out (a
checked recommendation and its lock-out rows, `compare`'s changes, a
forecast) and the thresholds their legends state (what counts as CPU-,
window- or link-bound, the wider margin a forecast offers, how many
samples an interval needs, the significance of a change): this is the one
analysis module render imports (pyproject.toml), and it names each of
them here on purpose, never a function that computes one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from sshbench.analysis.answers.answer import Answer, Cheapest, Comparison
from sshbench.analysis.answers.build_ratios import BuildCell, BuildRow
from sshbench.analysis.answers.contest import Rival
from sshbench.analysis.answers.remedies import BreakEven, PathAnswer, Remedy
from sshbench.analysis.answers.servers import ServerFigure, ServerQuestion
from sshbench.analysis.comparisons.stated import Stated
from sshbench.analysis.config.configtext import CheckedRecommendation, KeptRecommendation, Lockout, OutcomeRow
from sshbench.analysis.connections.commands import CommandFigure
from sshbench.analysis.connections.logins import Knee, KneeCause, LoadPoint
from sshbench.analysis.connections.phases import PHASES, PhaseName, PhaseSplit
from sshbench.analysis.connections.stalls import Stall
from sshbench.analysis.physics.advice import CPU_BOUND_SHARE, LINK_FULL_SHARE, WINDOW_BOUND_SHARE
from sshbench.analysis.physics.limits import LimitFinding, LinkWindow
from sshbench.analysis.physics.links import Bound
from sshbench.analysis.physics.references import RELIABLE, References
from sshbench.analysis.runs.compare import NORMALIZED, SIGNIFICANCE, Change, RunComparison
from sshbench.analysis.runs.fleet import DIRECTIONS, MIN_HOSTS_FOR_OUTLIERS, NORMALISATIONS, Fleet, HostFigures
from sshbench.analysis.stats.forecast import WIDER_MARGIN, Forecast
from sshbench.analysis.stats.stats import MIN_FOR_INTERVAL
from sshbench.analysis.stats.verdicts import MIN_PAIRED, DecisionRule
from sshbench.results.model import EchoResult, Report, Stat, Summary

__all__ = ["CPU_BOUND_SHARE", "DIRECTIONS", "LINK_FULL_SHARE", "MIN_FOR_INTERVAL", "MIN_HOSTS_FOR_OUTLIERS",
           "MIN_PAIRED", "NORMALISATIONS", "NORMALIZED", "PHASES", "RELIABLE", "SIGNIFICANCE", "WIDER_MARGIN",
           "WINDOW_BOUND_SHARE", "Answer", "Bound", "BreakEven", "BuildCell", "BuildRow", "Change", "Cheapest",
           "CheckedRecommendation", "CipherFinding", "CommandFigure", "Comparison", "DecisionRule", "EchoFigure",
           "Findings", "Fleet", "Forecast", "HostFigures", "KeptRecommendation", "Knee", "KneeCause", "LimitFinding",
           "LinkWindow", "LoadPoint", "Lockout", "OutcomeRow", "PathAnswer", "PathFinding", "PhaseName", "PhaseSplit",
           "References", "Remedy", "Rival", "RunComparison", "ServerFigure", "ServerQuestion", "Stall", "Stated"]


@dataclass(frozen=True)
class CipherFinding:
    """One cipher answer (per direction, link and side) with the table it was chosen from: what the answer chart
    draws, so the picture shows the very rows the answer read."""

    answer: Answer
    ranked: tuple[tuple[str, Summary], ...]  # (cipher, its summary) of its table's ranked cases with a throughput
    default: str | None  # this client's default cipher against this server (its own, --server a,b), where measured
    # those of the ranked ciphers with no known weakness here (Terrapin included), fastest first: the answer's pick,
    # its runner-up, ... (a run's next steps suggest comparing the first two, and hosts by one they share)
    safe: tuple[str, ...] = ()


@dataclass(frozen=True)
class PathFinding:
    """One path and direction of the link answer, with its pick's rivals (none where no change was picked)."""

    answer: PathAnswer
    rivals: tuple[Rival, ...]


@dataclass(frozen=True)
class EchoFigure:
    """One keystroke echo session with its statistic: the median round trip and its interval (None: it failed)."""

    echo: EchoResult
    stat: Stat | None


@dataclass(frozen=True)
class Findings:
    """What a report concludes: made by analysis/conclude.conclude once per run and once per `report FILE`."""

    report: Report = field(repr=False)  # the evidence: what the tables lay out (a repr of every sample helps no one)
    rule: DecisionRule  # the rule its verdicts were made with (analysis/stats/verdicts.run_rule)
    ciphers: tuple[CipherFinding, ...]  # the cipher answers, in the order every output shows them
    paths: tuple[PathFinding, ...]  # the link answer: per path and direction (none: no change was compared)
    servers: tuple[ServerQuestion, ...]  # --server a,b: which server, and by how much (none: one server)
    commands: tuple[CommandFigure, ...]  # --commands: each command case, each reused one judged in the run's family
    logins: tuple[LoadPoint, ...]  # --logins: each stage (key exchange and client count), as measured
    knees: tuple[Knee, ...]  # per key exchange, where more clients stopped adding logins (none: every count did)
    phases: tuple[PhaseSplit, ...]  # each set-up case's and short command's median connection, phase by phase
    stalls: tuple[Stall, ...]  # the phases of those connections far beyond their round trips, in the same order
    builds: tuple[BuildRow, ...]  # --build, --server a,b: each case on every side, each against the first side
    bounds: tuple[Bound, ...]  # what limited each transfer case, loopback's too, in the summaries' order
    crossed: tuple[Bound, ...]  # those of the cases that crossed a link (an emulated one, or to a real host)
    references: References  # raw TCP per link and the crypto ceilings, each judged reliable or not, once
    limits: tuple[LimitFinding, ...]  # what limited each direction's fastest pipe cipher, per --client, per server
    windows: tuple[LinkWindow, ...]  # each emulated link's SSH window per direction, in the links' order
    echoes: tuple[EchoFigure, ...]  # each keystroke echo session with its median and interval, as measured
    variants: Mapping[str, Stated]  # each pipe cipher case against its plain variant (one stream, no compression)
    # the recommendation each server kept, checked against the data, with who its drop-in lets in; None where the
    # command's outputs do not show it (conclude(report, recommendation=True): only the HTML page does)
    recommendations: tuple[KeptRecommendation, ...] | None

    @property
    def answers(self) -> tuple[Answer, ...]:
        """The cipher answers alone."""
        return tuple(c.answer for c in self.ciphers)

    @property
    def path_answers(self) -> tuple[PathAnswer, ...]:
        """The link answer's paths alone."""
        return tuple(p.answer for p in self.paths)

    @cached_property
    def _bound_by_case(self) -> dict[str, Bound]:
        return {b.case_id: b for b in self.bounds}

    def bound(self, case_id: str) -> Bound | None:
        """What limited this transfer case (None: not a cipher or MAC case that moved data)."""
        return self._bound_by_case.get(case_id)
