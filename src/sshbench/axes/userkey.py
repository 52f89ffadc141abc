"""The client key a short command logs in with (`--user-keys ed25519,ecdsa,rsa3072,rsa4096`).

Why an axis: every login signs with the user's key and the server verifies it; an RSA-4096 signature costs
far more CPU than an ed25519 one, on both ends, and a bastion pays it for every login. Each other key type is
the ed25519 case's cross pair, judged like reuse. The keys are the embedded server's own, made in its private
directory on first use (targets/servers/identities.py), of the types it accepts (its launcher's `user_keys`); a
real host is logged in with the user's own keys, which sshbench never chooses among, so there (and for a type
the server does not accept, or over a reused connection, which keeps its master's key) the option is refused
before anything runs (cli/refusals.py).
"""

from __future__ import annotations

from sshbench.axes.base import Effect
from sshbench.vocabulary.case_terms import CaseKind
from sshbench.vocabulary.commands import USER_KEYS
from sshbench.vocabulary.errors import UsageError

KINDS = tuple(USER_KEYS)


class UserKeyAxis:
    name = "userkey"
    sigil = "="
    plain = "ed25519"
    cross = 1
    option = "--user-keys"
    help = ("the client key short commands log in with, each a case dimension: ed25519 (the embedded server's), "
            "ecdsa, rsa3072, rsa4096, e.g. ed25519,rsa4096 (made in the server's private dir; docs/commands.md)")
    column = "user key"
    kinds = frozenset({CaseKind.COMMAND})

    def parse(self, text: str) -> tuple[str, ...]:
        values = [part.strip() for part in text.split(",") if part.strip()]
        for value in values:
            if value not in KINDS:
                raise UsageError(f"bad {self.option} {value!r}: use {', '.join(KINDS)}, e.g. ed25519,rsa4096")
        if not values:
            raise UsageError(f"{self.option} needs one of {', '.join(KINDS)}")
        return tuple(dict.fromkeys(values))

    def skipped(self, value: str, method: str) -> str | None:
        del value, method
        return None

    def effect(self, value: str) -> Effect:
        return Effect(user_key=None if value == self.plain else value)

    def title(self, value: str) -> str:
        return USER_KEYS[value].words if value in USER_KEYS else value


USER_KEY = UserKeyAxis()
