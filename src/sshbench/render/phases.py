"""Where a connection's set-up time goes: each set-up case's median connection, phase by phase
(analysis/connections/phases.py), in milliseconds and, on a path with a measured round trip of a millisecond or more, in
round trips of that path."""

from __future__ import annotations

from sshbench.analysis.findings import PHASES, Findings, PhaseName, PhaseSplit, Stall
from sshbench.axes import declared
from sshbench.render.labels import flagged_name, ms
from sshbench.render.table_model import Cell, Column, Row, Table, cell
from sshbench.results.model import Case, Report

TITLE = "Where set-up time goes"
EXIT = PhaseName.EXIT
MIN_RTT_SHOWN = 0.001  # below a millisecond (loopback) a phase in round trips says nothing
CAPTION = (
    "each row is one connection, the case's median by set-up time; its phases sum to its total: from ssh's start "
    "to the remote command's first output, as each ssh -v line was printed",
    "start: ssh's own start-up, its ProxyCommand's (sshbench's connection helper; over a link, its namespace) "
    "and the TCP connect; version: the server's start and its banner; kex: key exchange "
    "and host key check; auth: user authentication; session: the session channel; command: the remote login "
    "shell's start (its start-up files) until the command's first output",
    "· : ssh did not print that phase's line (an older or other client): its time is in the next column",
)
EXIT_CAPTION = ("exit (short commands, --commands): the command's run, its output and the close, to ssh's exit; a "
                "short command's row is its median connection by that time to exit, which its phases sum to (-: a "
                "set-up case, which ends at the first output)")


def _phase_cell(seconds: float | None, rtt: float | None) -> Cell:
    if seconds is None:
        return cell("·", "dim")
    if rtt is not None and rtt >= MIN_RTT_SHOWN:
        return cell(f"{ms(seconds)} ({seconds / rtt:.1f} RTT)")
    return cell(ms(seconds))


def row_name(case: Case) -> str:
    kind = case.algorithm_kind
    return ", ".join([f"{case.kind.value} {flagged_name(case.subject, kind) if kind else case.subject}",
                      *([] if case.compressor.is_off else [case.compressor.label]),
                      *(axis.title(value) for axis_name, value in case.dims if (axis := declared(axis_name)))])


def _row(found: PhaseSplit, report: Report, keys: list[PhaseName]) -> Row:
    name = row_name(report.joined()[found.case_id].case)
    ends = {phase.last: phase.seconds for phase in found.phases}  # a merged phase: in its last one's column
    cells = [cell("-", "dim") if key == EXIT and EXIT not in ends else _phase_cell(ends.get(key), found.rtt)
             for key in keys]
    rtt = "-" if found.rtt is None or found.rtt < MIN_RTT_SHOWN else ms(found.rtt)
    return Row((cell(name), *cells, cell(ms(found.total)), cell(rtt), cell(str(found.counted))))


def _stall_line(stall: Stall, report: Report) -> str:
    """A phase far beyond its round trips, named with where it waited and the likely causes."""
    name = row_name(report.joined()[stall.case_id].case)
    trips = "" if stall.trips is None else f" ({stall.trips:.1f} round trips, the protocol's {stall.expected})"
    return f"stalled: {name}: {stall.phase} took {ms(stall.seconds)} ms{trips}: {stall.causes}"


def phase_table(report: Report, findings: Findings) -> Table | None:
    """The table for a view's set-up cases (their splits and stalls in the run's Findings); None where it has none
    with phase marks."""
    ids = {r.case.id for r in report.cases}
    found = [f for f in findings.phases if f.case_id in ids]
    if not found:
        return None
    exits = any(phase.last is EXIT for f in found for phase in f.phases)
    keys = [key for key, _, _ in PHASES if key != EXIT or exits]  # the exit: short commands only
    columns = (Column("case", code=True), *(Column(f"{key}\nms", numeric=True) for key in keys),
               Column("total\nms", numeric=True), Column("RTT\nms", numeric=True, priority=2),
               Column("n", numeric=True, priority=2))
    waits = [stall for stall in findings.stalls if stall.case_id in ids]
    return Table(TITLE if not exits else "Where the time goes", columns, tuple(_row(f, report, keys) for f in found),
                 CAPTION + ((EXIT_CAPTION,) if exits else ()) + tuple(_stall_line(s, report) for s in waits),
                 note=True)
