"""Where a connection's set-up time goes: each set-up sample split into phases at its own `ssh -v` marks.

Why: a handshake table says how long set-up took per key exchange or host
key; a user waiting on short commands (Ansible tasks, git, CI deploys) also
needs to know where the time went: ssh's own start-up, the round trips of
each protocol step, or the remote shell's start-up files (75 of 182 ms in a
recorded loopback run). The marks are the times ssh -v printed its lines
(plumbing/negotiation.PHASE_MARKERS, seconds since ssh started), and the
set-up ends when the remote command's first output arrived (the sample's
set-up time); a short command (--commands) has one phase more, to ssh's
exit (its figure). So one connection's phases sum exactly to its total.
A mark ssh did not print (`Connection established.` is absent behind a
ProxyCommand) joins its phase to the next, named for both: a Phase holds
its PhaseNames as a tuple, so the table, the chart and the stalls read the
one whose mark ended it (`last`) without taking apart a joined name.

A case is shown by its median connection (by that total) split into its
phases, not by per-phase medians, which would not sum to any connection.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from sshbench.analysis.physics.links import round_trip
from sshbench.analysis.stats.stats import counted
from sshbench.results.model import Report, Sample
from sshbench.vocabulary.case_terms import Direction


class PhaseName(StrEnum):
    """A connection's phases, in the order the protocol runs them; a StrEnum so an output writes each as its word."""

    START = "start"
    VERSION = "version"
    KEX = "kex"
    AUTH = "auth"
    SESSION = "session"
    COMMAND = "command"
    EXIT = "exit"


# (name, words, the mark that ends it): ssh -v's marks (plumbing/negotiation.PHASE_MARKERS), then the remote
# command's first output (FIRST_OUTPUT: the sample's set-up time) and, for a short command, ssh's exit (EXITED)
FIRST_OUTPUT, EXITED = "first_output", "exited"
PHASES: tuple[tuple[PhaseName, str, str], ...] = (
    (PhaseName.START, "ssh start-up and TCP connect", "banner_sent"),
    (PhaseName.VERSION, "version exchange", "banner_received"),
    (PhaseName.KEX, "key exchange and host key check", "newkeys_received"),
    (PhaseName.AUTH, "user authentication", "authenticated"),
    (PhaseName.SESSION, "session open", "session_open"),
    (PhaseName.COMMAND, "remote command start (login shell)", FIRST_OUTPUT),
    (PhaseName.EXIT, "the command's run, its output and the close, to ssh's exit", EXITED),
)
WORDS = {name: words for name, words, _ in PHASES}


def spelled(names: tuple[PhaseName, ...]) -> str:
    """Phases merged where a mark was missing, as the outputs write them ("start+version"): report --json's
    phases[].name and stalls[].phase, the stall lines. Written only, never read back."""
    return "+".join(names)


@dataclass(frozen=True)
class Phase:
    """One phase of a connection: one of PHASES, or several in protocol order where ssh printed no mark between
    them (`Connection established.` is absent behind a ProxyCommand)."""

    names: tuple[PhaseName, ...]
    seconds: float

    @property
    def last(self) -> PhaseName:
        """The phase whose mark ended this one: a merged phase's column, colour and causes."""
        return self.names[-1]

    @property
    def name(self) -> str:
        """As the outputs write it: "kex", "start+version"."""
        return spelled(self.names)

    @property
    def words(self) -> str:
        """What it is in words, a merged phase's joined by " + ": the JSON's phases[].words."""
        return " + ".join(WORDS[name] for name in self.names)


@dataclass(frozen=True)
class PhaseSplit:
    """One set-up case's median connection, phase by phase; `rtt`: the path's round trip (None: not measured)."""

    case_id: str
    total: float
    phases: tuple[Phase, ...]
    counted: int
    rtt: float | None
    marks: dict[str, float] = field(default_factory=dict)  # that connection's ssh -v marks (seconds since start)


def split(sample: Sample) -> tuple[Phase, ...] | None:
    """The sample's time in phases that sum to it exactly: to the remote command's first output (its set-up time),
    and for a short command on to ssh's exit (its figure). None without that time, or where its marks are out of
    order (a line read late: never a negative phase)."""
    if sample.setup_seconds is None:
        return None
    marks = {**sample.phases, FIRST_OUTPUT: sample.setup_seconds}
    if sample.command_seconds is not None:
        marks[EXITED] = sample.command_seconds
    last_mark = EXITED if EXITED in marks else FIRST_OUTPUT
    out: list[Phase] = []
    names: list[PhaseName] = []
    last = 0.0
    for name, _, mark in PHASES:
        names.append(name)
        end = marks.get(mark)
        if end is None:
            continue  # this phase runs on into the next
        if end < last:
            return None
        out.append(Phase(tuple(names), end - last))
        names, last = [], end
        if mark == last_mark:
            break
    return tuple(out)


def total_of(sample: Sample) -> float | None:
    """What a sample's phases sum to: a short command's time to exit, else its set-up time."""
    return sample.command_seconds if sample.command_seconds is not None else sample.setup_seconds


def phase_splits(report: Report) -> list[PhaseSplit]:
    """Each set-up case's and short command's median connection split into phases (cases without a usable sample
    left out)."""
    out = []
    for view in report.joined().values():
        case = view.case
        if case.direction is not Direction.SETUP:
            continue
        usable = sorted(((total, parts, s.phases) for s in counted(view.samples)
                         if (total := total_of(s)) is not None and (parts := split(s)) is not None),
                        key=lambda p: p[0])
        if not usable:
            continue
        total, parts, marks = usable[(len(usable) - 1) // 2]  # the lower median: a connection that happened
        out.append(PhaseSplit(case.id, total, parts, len(usable), round_trip(report, case.link), dict(marks)))
    return out
