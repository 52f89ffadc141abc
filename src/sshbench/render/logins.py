"""Logins per second against a listening sshd (--logins; analysis/connections/logins.py): one row per key exchange
and client count, with the knee under the table."""

from __future__ import annotations

from sshbench.analysis.findings import Findings, Knee, KneeCause
from sshbench.render.labels import ms
from sshbench.render.table_model import Column, Row, Table, cell

TITLE = "Logins per second: parallel clients against a listening sshd"
CAPTION = (
    "each client runs ssh HOST true again as soon as its last one exited; the sshd is the embedded server's "
    "config and keys as an ordinary listening daemon (MaxStartups at its default) in sshbench's own namespace",
    "refused: turned away before the server's banner (MaxStartups), counted; latency: ssh started -> exited, "
    "completed logins; CPU per login: each side's whole CPU over the stage / completed logins; busy: the share of "
    "that side's CPUs used",
)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _per_login(cpu: float | None, completed: int) -> str:
    return "-" if cpu is None or not completed else ms(cpu / completed)


def knee_words(found: tuple[Knee, ...]) -> str | None:
    """The knees in one sentence under the table, per key exchange: the count, why the next added nothing, and the
    side whose CPUs were full; None where there is none."""
    said = []
    for k in found:
        why = (f"{k.next_refused} of {k.next_attempted} refused before the banner (MaxStartups)"
               if k.cause is KneeCause.REFUSED else "no more logins per second")
        whose = {"clients": "clients'", "server": "server's"}.get(k.limiter or "")
        side = f"; the {whose} CPUs were full" if whose else ""
        said.append(f"{k.kex or 'the default key exchange'}: the knee is at {k.clients} clients, "
                    f"{k.logins_per_second:.1f} logins/s: {k.next_clients} clients gave {k.next_logins_per_second:.1f} "
                    f"({why}){side}")
    return "; ".join(said) or None


def logins_table(found: Findings) -> Table | None:
    points = found.logins
    if not points:
        return None
    rows = []
    for p in points:
        load = p.load
        rows.append(Row((cell(load.negotiated or load.kex or "default"), cell(str(load.clients)),
                         cell(f"{p.rate:.1f}"), cell(ms(p.p50)), cell(ms(p.p95)),
                         cell(str(load.refused), "warn" if load.refused else ""),
                         cell(str(load.failed), "bad" if load.failed else ""),
                         cell(_per_login(load.server_cpu_seconds, load.completed)),
                         cell(_per_login(load.client_cpu_seconds, load.completed)),
                         cell(_share(p.server_busy)), cell(_share(p.client_busy)))))
    columns = (Column("key exchange", code=True), Column("clients", numeric=True), Column("logins/s", numeric=True),
               Column("p50\nms", numeric=True), Column("p95\nms", numeric=True), Column("refused", numeric=True),
               Column("failed", numeric=True), Column("server CPU\nms/login", numeric=True),
               Column("client CPU\nms/login", numeric=True), Column("server\nbusy", numeric=True, priority=2),
               Column("clients\nbusy", numeric=True, priority=2))
    said = knee_words(found.knees)
    return Table(TITLE, columns, tuple(rows), CAPTION + ((said,) if said else ()))
