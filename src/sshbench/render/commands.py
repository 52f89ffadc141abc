"""Short commands (--commands): what each costs from ssh's start to its exit, in milliseconds and in round trips
of its path, and what reusing the connection cut it to; where the time goes is the phase table's
(render/phases.py). The answer's lines come first in the run's output (render/terminal.py)."""

from __future__ import annotations

from sshbench.analysis.findings import CommandFigure, Findings
from sshbench.axes.reuse import REUSE
from sshbench.axes.userkey import USER_KEY
from sshbench.render.cells import count_cell, interval_cell
from sshbench.render.labels import RATIOS, ms
from sshbench.render.table_model import Cell, Column, Row, Table, cell
from sshbench.results.model import Report
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.commands import COMMANDS, CONTROL_LINES

TITLE = "Short commands: ssh started to ssh exited"
CAPTION = (
    "each sample one command, timed from ssh's start to its exit, as `time ssh HOST true` is; the client's own "
    "algorithms (its ssh config), nothing pinned",
    "fresh: a connection of its own (ControlMaster=no, ControlPath=none, whatever the ssh config says); through a "
    "ControlMaster: a new session over a connection sshbench opened before (ControlMaster=auto's second command)",
    "RTTs: the median in round trips of the path (its measured round trip), where that is a millisecond or more; "
    "vs plain: how many times as fast as the same command fresh without compression, with its interval "
    "(? not yet separable, ≈ equivalent)",
    RATIOS,
    "CPU: each side's whole connection (the server's: its per-connection process, where it is ours; a reused "
    "session's is inside the master's and not shown)",
)


def _variant(figure: CommandFigure) -> str:
    """How the command ran: fresh or through a ControlMaster, and SSH's compression where it was on."""
    words = [REUSE.title(str(figure.case.value_of(REUSE.name)))]
    if not figure.case.compressor.is_off:
        words.append(figure.case.compressor.label)
    if (key := str(figure.case.value_of(USER_KEY.name))) != USER_KEY.plain:
        words.append(USER_KEY.title(key))
    return ", ".join(words)


def _versus(figure: CommandFigure) -> Cell:
    verdict, speedup = figure.versus_fresh, figure.speedup
    if verdict is None or speedup is None:
        return cell("-")
    ratio, interval = speedup[0], _interval(speedup, "-")
    mark = "" if verdict.relation is Relation.DIFFERENT else " ?" if verdict.relation is Relation.UNSETTLED else " ≈"
    return cell(f"{ratio:.2f}x{interval}{mark}", "good" if ratio > 1 and not mark else "")


def _interval(speedup: tuple[float, float | None, float | None], between: str) -> str:
    _, low, high = speedup
    return "" if low is None or high is None else f" [{low:.2f}{between}{high:.2f}]"


def command_table(view: Report, found: Findings) -> Table | None:
    """The table of a view's command cases, in --commands order, fresh first; None where it has none. Their
    figures are the run's (Findings.commands: a reused case judged within the run's whole family, as the schedule
    judged it and the answer's lines state it)."""
    summaries = {s.case_id: s for s in view.summaries}
    figures = [f for f in found.commands if f.case.id in summaries]
    if not figures:
        return None
    out = []
    for figure in figures:
        summary, stat = summaries[figure.case.id], figure.seconds
        client, server = summary.client_cpu_seconds, summary.server_cpu_seconds
        out.append(Row((cell(figure.case.command), cell(_variant(figure)),
                        cell(ms(stat.median if stat else None)), interval_cell(summary, stat), count_cell(summary),
                        cell("-" if figure.trips is None else f"{figure.trips:.1f}"), _versus(figure),
                        cell(ms(client.median if client else None)), cell(ms(server.median if server else None)),
                        cell("-" if stat is None else f"{stat.min * 1000:.0f}-{stat.max * 1000:.0f}"),
                        cell(COMMANDS[figure.case.command].words))))
    columns = (Column("command", code=True), Column("connection"), Column("to exit\nms", numeric=True),
               Column("±", numeric=True), Column("n", numeric=True), Column("RTTs", numeric=True),
               Column("vs plain", numeric=True), Column("CPU ms\nclient", numeric=True, priority=2),
               Column("CPU ms\nserver", numeric=True, priority=2), Column("min-max\nms", numeric=True, priority=3),
               Column("what it is", priority=3))
    return Table(TITLE, columns, tuple(out), CAPTION)


HEADING = "What a short command costs"
# How to get the reuse that was measured: a user's own Host block, the lines the recommended config writes (the
# socket in ~/.ssh, private: whoever can reach it can run commands as the user on the host, without a login), and
# Ansible's setting (its default already)
HOWTO = (f"to reuse connections: in the Host block, {', '.join(CONTROL_LINES)} (the socket is a login for whoever "
         "can reach it: keep ~/.ssh 0700); Ansible sets these itself (ssh_args -C -o ControlMaster=auto -o "
         "ControlPersist=60s) unless ansible.cfg's ssh_args drops them")


def command_answer_lines(found: Findings) -> list[str]:
    """Per path and command: its time to exit plain (fresh, no -C), in round trips, then what each change did to
    it, said as faster or slower only where its cross pair found a difference; then how to reuse, where reuse
    cut it."""
    figures = found.commands
    lines = []
    cut = False
    for plain in (f for f in figures if not f.change and f.seconds is not None):
        where = f"over {plain.case.link}" if plain.case.link else "here"
        trips = "" if plain.trips is None else f", {plain.trips:.1f} round trips"
        parts = [f"{where}, {COMMANDS[plain.case.command].label} takes {_seconds(plain)} fresh{trips}"]
        for changed in (f for f in figures if f.change and f.seconds is not None and f.versus_fresh is not None
                        and f.case.command == plain.case.command and f.case.link == plain.case.link):
            verdict, speedup = changed.versus_fresh, changed.speedup
            assert verdict is not None and speedup is not None
            ratio, interval = speedup[0], _interval(speedup, ", ")
            if verdict.relation is not Relation.DIFFERENT:
                parts.append(f"{changed.change}: {_seconds(changed)}, not separable from it ({ratio:.2f}x{interval})")
            elif ratio > 1:
                parts.append(f"{changed.change} cuts it to {_seconds(changed)}: {ratio:.1f}x{interval}")
                cut = cut or changed.reused
            else:
                parts.append(f"{changed.change} makes it slower: {_seconds(changed)}, {ratio:.2f}x{interval}")
        lines.append("; ".join(parts))
    return [*lines, *([HOWTO] if cut else [])]


def _seconds(figure: CommandFigure) -> str:
    stat = figure.seconds
    assert stat is not None
    interval = "" if stat.ci_low is None or stat.ci_high is None else \
        f" [{ms(stat.ci_low)}-{ms(stat.ci_high)}]"
    return f"{ms(stat.median)} ms{interval}"
