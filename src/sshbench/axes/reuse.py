"""Connection reuse (`--reuse fresh,reused`): a short command over a fresh connection, or as a new session over
an OpenSSH ControlMaster connection already made.

Why an axis: "does ControlPersist speed up Ansible?" is argued in trackers
without numbers, and the answer depends on the link (its round trips), the
key exchange and the server. A reused command skips TCP's and SSH's set-up
and authentication; what remains is the session's own round trips, the
remote shell's start and the close. Each reused case is the fresh case's
cross pair, judged and funded like streams or compression.

The master is sshbench's own (measure/masters.py): one per path, started
before its first reused sample and not timed (its cost is a fresh
connection's, measured beside it), its socket in a private 0700 directory,
ended with the run. Only OpenSSH's client multiplexes; the value is for
short commands only (a bulk transfer pays its connection once).
"""

from __future__ import annotations

from sshbench.axes.base import Effect
from sshbench.vocabulary.case_terms import CaseKind
from sshbench.vocabulary.errors import UsageError

FRESH, REUSED = "fresh", "reused"


class ReuseAxis:
    name = "reuse"
    sigil = "+"
    plain = FRESH
    cross = 0
    option = "--reuse"
    help = ("short commands over a fresh connection each, and/or as sessions over an OpenSSH ControlMaster that "
            "sshbench holds open (reused), each a case dimension: e.g. fresh,reused (docs/commands.md)")
    column = "connection"
    kinds = frozenset({CaseKind.COMMAND})

    def parse(self, text: str) -> tuple[str, ...]:
        values = [part.strip() for part in text.split(",") if part.strip()]
        for value in values:
            if value not in (FRESH, REUSED):
                raise UsageError(f"bad {self.option} {value!r}: use {FRESH}, {REUSED} or both, e.g. fresh,reused")
        if not values:
            raise UsageError(f"{self.option} needs {FRESH}, {REUSED} or both")
        return tuple(dict.fromkeys(values))

    def skipped(self, value: str, method: str) -> str | None:
        del value, method  # every short command can be reused (they are the pipe's)
        return None

    def effect(self, value: str) -> Effect:
        return Effect(control_master=value == REUSED)

    def title(self, value: str) -> str:
        return "through a ControlMaster" if value == REUSED else "fresh connection"


REUSE = ReuseAxis()
