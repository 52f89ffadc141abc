"""The SSH client a transfer is made with (`--client openssh,paramiko`): OpenSSH's ssh, or a library client through
its driver (clientparts/).

Why an axis, not a side: a side (--build, --server a,b) changes the server and brings its own facts, offer and
advice; a client changes only who connects, against the same server, in the same schedule. As a declared axis,
each client's case is the same case at openssh (the plain value, so ids, files and answers of runs without
--client are as before, and the cipher answer stays ssh's own), its cross pair judged and funded like the other
axes', with its column in the streams-and-compression table (its ratio to OpenSSH's ssh, with the interval) and its own
ranked tables. The client's driver replaces ssh in the sample (Effect.client,
measure/drivers.py); what it can do is its part's (clientparts/): the pipe in both directions today, SFTP later.
"""

from __future__ import annotations

from sshbench.axes.base import Effect
from sshbench.clientparts import CLIENTS, DEFAULT, Can, client_part
from sshbench.vocabulary.case_terms import PIPE, CaseKind
from sshbench.vocabulary.errors import UsageError


class ClientAxis:
    name = "client"
    sigil = "^"
    plain = DEFAULT
    cross = 2
    option = "--client"
    help = (f"the SSH client each transfer is made with, a case dimension compared with {DEFAULT}'s ssh: "
            f"{', '.join(CLIENTS)}, e.g. {DEFAULT},paramiko (a library or another client program, through its "
            "driver, on the embedded servers' loopback; docs/clients.md)")
    column = "client"
    kinds = frozenset({CaseKind.CIPHER})

    def parse(self, text: str) -> tuple[str, ...]:
        values = [part.strip() for part in text.split(",") if part.strip()]
        for value in values:
            if value not in CLIENTS:
                raise UsageError(f"bad {self.option} {value!r}: sshbench measures {', '.join(CLIENTS)}, e.g. "
                                 f"{self.option} {DEFAULT},{next(n for n in CLIENTS if n != DEFAULT)}")
        if not values:
            raise UsageError(f"{self.option} needs one of {', '.join(CLIENTS)}")
        return tuple(dict.fromkeys(values))

    def skipped(self, value: str, method: str) -> str | None:
        part = client_part(value)
        if part is None or part.is_program or method == PIPE:
            return None
        said = "SFTP is the next slice of its driver" if Can.SFTP not in part.can else "its file tools are not run"
        return f"{self.option} {value}: measured over the pipe only ({said})"

    def effect(self, value: str) -> Effect:
        part = client_part(value)
        return Effect(client=None if part is None or part.is_program else value)

    def title(self, value: str) -> str:
        part = client_part(value)
        return f"{part.title if part else value} as the client"


CLIENT = ClientAxis()
