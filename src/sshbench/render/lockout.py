"""The lock-out check as a table: who can log in to an OpenSSH server with the recommended drop-in.

One table model (render/table_model.py) for the terminal (`recommend`) and
the HTML report, beside the drop-in it describes.
"""

from __future__ import annotations

from collections.abc import Sequence

from sshbench.analysis.findings import Lockout, OutcomeRow
from sshbench.render.table_model import Column, Row, Style, Table, cell


def lockout_table(lockout: Lockout | None) -> Table | None:
    """Who can log in to an OpenSSH server with the drop-in applied, client by client, as the recommendation judged
    it (analysis/config/configtext.Lockout); None without a drop-in."""
    if lockout is None:
        return None
    which = "the policy's own lists (--allow-lockout)" if lockout.strict else "the drop-in's lists"
    return outcome_table(lockout.rows, "Who can log in with this server drop-in", "the server's offer today", which)


def outcome_table(rows: Sequence[OutcomeRow], title: str, before: str, after: str) -> Table:
    """Per client: today (or a stock server) and with the lists checked (`sshbench clients check` too)."""
    out = []
    for row in rows:
        style: Style = "bad strong" if row.shut_out else "good" if row.logs_in_today else "dim"
        out.append(Row((cell(row.name), cell(row.software), cell(row.today, "" if row.logs_in_today else "dim"),
                        cell(row.with_dropin, style))))
    caption = (f"each client's recorded first KEXINIT (sshbench clients list) against {before} and {after}: SSH "
               "takes the client's first choice the server offers (RFC 4253, 7.1); shown: key exchange, cipher, MAC "
               "(none with AES-GCM/chacha20, whose MAC is implicit)",)
    return Table(title, (Column("client", code=True), Column("software", priority=2), Column("today", wrap=True),
                         Column("with the drop-in" if "drop-in" in after else "with this config", wrap=True)),
                 tuple(out), caption)
