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
ProxyCommand) joins its phase to the next, named for both.

A case is shown by its median connection (by that total) split into its
phases, not by per-phase medians, which would not sum to any connection.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sshbench.analysis.links import round_trip
from sshbench.analysis.stats import counted
from sshbench.results.model import Report, Sample
from sshbench.vocabulary.case_terms import Direction

# (name, words, the mark that ends it): ssh -v's marks (plumbing/negotiation.PHASE_MARKERS), then the remote
# command's first output (FIRST_OUTPUT: the sample's set-up time) and, for a short command, ssh's exit (EXITED)
FIRST_OUTPUT, EXITED = "first_output", "exited"
PHASES: tuple[tuple[str, str, str], ...] = (
    ("start", "ssh start-up and TCP connect", "banner_sent"),
    ("version", "version exchange", "banner_received"),
    ("kex", "key exchange and host key check", "newkeys_received"),
    ("auth", "user authentication", "authenticated"),
    ("session", "session open", "session_open"),
    ("command", "remote command start (login shell)", FIRST_OUTPUT),
    ("exit", "the command's run, its output and the close, to ssh's exit", EXITED),
)


@dataclass(frozen=True)
class Phase:
    name: str  # "kex", or "start+version" where a mark was missing
    words: str
    seconds: float


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
    names: list[str] = []
    words: list[str] = []
    last = 0.0
    for name, text, mark in PHASES:
        names.append(name)
        words.append(text)
        end = marks.get(mark)
        if end is None:
            continue  # this phase runs on into the next
        if end < last:
            return None
        out.append(Phase("+".join(names), " + ".join(words), end - last))
        names, words, last = [], [], end
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
