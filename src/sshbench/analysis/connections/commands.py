"""What a short command costs on each path, and what reusing the connection or SSH's compression does to it
(--commands, --reuse, --compression off,ssh).

Why its own answer: for short commands the question is not "which cipher"
but "how long does one command take here, and does a ControlMaster help, by
how much". Each command's fresh case is the base; its reused case is the
cross pair (analysis/comparisons/dimensions.py) judged like any other, so the ratio
said is the Hodges-Lehmann ratio with its interval at the level of the test
that settled it, and "faster" is said only where that test found a
difference.
"""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.analysis.comparisons.dimensions import cross_verdicts
from sshbench.analysis.physics.links import round_trip
from sshbench.analysis.stats.verdicts import PairVerdict, run_rule
from sshbench.axes.reuse import FRESH, REUSED
from sshbench.axes.userkey import USER_KEY
from sshbench.compressors import OFF
from sshbench.results.model import Case, CaseKind, Report, Stat
from sshbench.vocabulary.commands import COMMANDS


@dataclass(frozen=True)
class CommandFigure:
    """One short command case: its time to exit, its path's round trip, and (reused) how it stands to fresh."""

    case: Case
    seconds: Stat | None
    rtt: float | None  # the path's measured round trip (None: loopback without one, or unknown)
    versus_fresh: PairVerdict | None  # a changed case's verdict against the same command plain (fresh, no -C)

    @property
    def reused(self) -> bool:
        return self.case.value_of("reuse") == REUSED

    @property
    def change(self) -> str:
        """What differs from the plain fresh command, in words ("" for the plain one)."""
        words = []
        if self.reused:
            words.append("reusing the connection")
        if not self.case.compressor.is_off:
            words.append(f"{self.case.compressor.label} (-C)")
        if (key := self.case.value_of(USER_KEY.name)) != USER_KEY.plain:
            words.append(f"an {USER_KEY.title(str(key))}")
        return " + ".join(words)

    @property
    def trips(self) -> float | None:
        """The median in round trips of its path (a millisecond or more: loopback's say nothing)."""
        if self.seconds is None or self.rtt is None or self.rtt < 0.001:
            return None
        return self.seconds.median / self.rtt

    @property
    def speedup(self) -> tuple[float, float | None, float | None] | None:
        """How many times as fast as the plain command (below 1: slower), with the verdict's interval turned the
        same way; None for the plain one, or before its pair has samples."""
        verdict = self.versus_fresh
        if verdict is None:
            return None
        if verdict.faster == self.case.id:
            return verdict.ratio, verdict.ratio_low, verdict.ratio_high
        low, high = verdict.ratio_low, verdict.ratio_high
        return 1 / verdict.ratio, None if high is None else 1 / high, None if low is None else 1 / low


def command_figures(report: Report) -> list[CommandFigure]:
    """Every command case of the report with a summary, in --commands order, fresh before reused."""
    views = report.joined()
    summaries = {s.case_id: s for s in report.summaries}
    verdicts = {(v.faster, v.slower): v for v in cross_verdicts(report, run_rule(report))}
    order = list(COMMANDS)
    out = []
    for case_id, view in views.items():
        case = view.case
        if case.kind is not CaseKind.COMMAND or case_id not in summaries:
            continue
        plain = case.at("reuse", FRESH).at("compression", OFF).at(USER_KEY.name, USER_KEY.plain).id  # one axis apart
        versus = verdicts.get((case_id, plain)) or verdicts.get((plain, case_id)) if plain != case_id else None
        out.append(CommandFigure(case, summaries[case_id].command_seconds, round_trip(report, case.link), versus))
    links = ["", *(link.label for link in report.options.links)]
    out.sort(key=lambda f: (links.index(f.case.link) if f.case.link in links else len(links),
                            order.index(f.case.command), f.reused, not f.case.compressor.is_off,
                            str(f.case.value_of(USER_KEY.name)) != USER_KEY.plain))
    return out
