"""Short commands (--commands): what each costs from ssh's start to its exit, in milliseconds and in round trips
of its path; where the time goes is the phase table's (render/phases.py)."""

from __future__ import annotations

from sshbench.analysis.links import round_trip
from sshbench.render.cells import count_cell, factor_cell, interval_cell, rank_cell
from sshbench.render.labels import ms
from sshbench.render.phases import MIN_RTT_SHOWN
from sshbench.render.table_model import Column, Row, Table, cell
from sshbench.results.model import Report
from sshbench.vocabulary.case_terms import CaseKind
from sshbench.vocabulary.commands import COMMANDS

TITLE = "Short commands: ssh started to ssh exited"
CAPTION = (
    "each sample one fresh connection running one command, timed from ssh's start to its exit, as `time ssh HOST "
    "true` is; the client's own algorithms (its ssh config), nothing pinned",
    "RTT: the median in round trips of the path (its measured round trip), where it is a millisecond or more; "
    "CPU: each side's whole connection (the server's: its per-connection process, where it is ours)",
)


def command_table(report: Report) -> Table | None:
    """The table of a view's command cases, in --commands order; None where it has none."""
    views = report.joined()
    rows = [(views[s.case_id].case, s) for s in report.summaries
            if views[s.case_id].case.kind is CaseKind.COMMAND]
    if not rows:
        return None
    order = list(COMMANDS)
    rows.sort(key=lambda cs: (order.index(cs[0].command), cs[1].rank or 0))
    out = []
    for case, summary in rows:
        stat = summary.command_seconds
        rtt = round_trip(report, case.link)
        trips = "-" if stat is None or rtt is None or rtt < MIN_RTT_SHOWN else f"{stat.median / rtt:.1f}"
        client, server = summary.client_cpu_seconds, summary.server_cpu_seconds
        out.append(Row((rank_cell(summary), cell(case.command), cell(COMMANDS[case.command].words),
                        cell(ms(stat.median if stat else None)), interval_cell(summary, stat), count_cell(summary),
                        cell(trips), factor_cell(summary), cell(ms(client.median if client else None)),
                        cell(ms(server.median if server else None)),
                        cell("-" if stat is None else f"{stat.min * 1000:.0f}-{stat.max * 1000:.0f}"))))
    columns = (Column("#", numeric=True), Column("command", code=True), Column("what it is", priority=2),
               Column("to exit\nms", numeric=True), Column("±", numeric=True), Column("n", numeric=True),
               Column("RTTs", numeric=True), Column("factor", numeric=True, priority=2),
               Column("CPU ms\nclient", numeric=True, priority=2), Column("CPU ms\nserver", numeric=True, priority=2),
               Column("min-max\nms", numeric=True, priority=3))
    return Table(TITLE, columns, tuple(out), CAPTION)
