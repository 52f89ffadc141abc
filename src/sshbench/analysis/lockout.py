"""Who can still log in: a proposed server config against the offers of real clients.

A server drop-in restricts what the server offers. SSH picks, per kind, the
client's first choice that the server also offers (RFC 4253, 7.1); when a
kind has nothing in common the connection ends before any login. So for
every known client (clients/: recorded KEXINITs) this computes, against the
server's offer today and against the proposed lists, the key exchange, host
key, cipher and MAC it would get, or the kind that has nothing in common.

The rule that keeps people in (`keep_in`, docs/configs.md): start from the
policy's lists (security first); for each client that logs in today and
would not, add back the best algorithm (security order) that both it and
today's server offer, never a weak, broken or unknown one and never one the
user's policy file forbids. If only such an algorithm would do, the line
is left unset (the server keeps today's list for that kind, so nobody is
shut out, and sshbench writes nothing weak); if the user's policy forbids
what a client needs, that client is reported shut out and the drop-in is
written only when asked (`--allow-lockout`).

Pure functions over names; nothing here runs a command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from sshbench.algorithms import AlgorithmLists, Kind, is_aead, lookup
from sshbench.analysis.ordering import security_rank
from sshbench.clients import ClientOffer

# The order SSH negotiates in (RFC 4253, 7.1): a failure names the first kind with nothing in common.
NEGOTIATED = (Kind.KEX, Kind.HOSTKEY, Kind.CIPHER, Kind.MAC)
LABEL = {Kind.KEX: "key exchange", Kind.HOSTKEY: "host key algorithm", Kind.CIPHER: "cipher", Kind.MAC: "MAC"}
SHOWN = 4  # names of a list shown in a reason before "…"

# Why an algorithm may not be added for a client (None: it may). Takes the client too: Terrapin depends on it.
Refusal = Callable[[str, Kind, ClientOffer], str | None]


@dataclass(frozen=True)
class Outcome:
    """One client against one server offer: what it negotiates, or the first kind with nothing in common."""

    client: ClientOffer
    kex: str | None = None
    hostkey: str | None = None
    cipher: str | None = None  # client to server (the other direction is checked too)
    mac: str | None = None  # None with an AEAD cipher, whose MAC is implicit
    failed: Kind | None = None
    reason: str = ""

    @property
    def connects(self) -> bool:
        return self.failed is None

    def summary(self) -> str:
        """'curve25519-sha256, aes256-gcm@openssh.com' or 'no common key exchange (…)'."""
        if not self.connects:
            return self.reason
        parts = [self.kex or "?", self.cipher or "?"]
        if self.mac:
            parts.append(self.mac)
        return ", ".join(parts)


def _shown(names: Sequence[str]) -> str:
    head = ", ".join(names[:SHOWN])
    return head + (f" … ({len(names) - SHOWN} more)" if len(names) > SHOWN else "") if names else "nothing"


def _first_common(client: Sequence[str], server: Sequence[str]) -> str | None:
    offered = set(server)
    return next((name for name in client if name in offered), None)


def negotiate(client: ClientOffer, server: AlgorithmLists) -> Outcome:
    """What `client` gets from a server offering `server` (both directions; markers ignored)."""
    chosen: dict[Kind, str | None] = {}
    ciphers: tuple[str | None, ...] = ()
    for kind in NEGOTIATED:
        if kind is Kind.CIPHER:
            ciphers = tuple(_first_common(side, server.of(kind)) for side in (client.cipher_c2s, client.cipher_s2c))
            pick = ciphers[0] if all(ciphers) else None
        elif kind is Kind.MAC:
            needed = [side for side, cipher in ((client.mac_c2s, ciphers[0]), (client.mac_s2c, ciphers[1]))
                      if client.mac_with_aead or not is_aead(cipher or "")]
            picks = [_first_common(side, server.of(kind)) for side in needed]
            if not needed:  # AEAD both ways: the MAC is implicit and this client does not insist on one
                chosen[kind] = None
                continue
            pick = picks[0] if all(picks) else None
        else:
            pick = _first_common(client.of(kind), server.of(kind))
        if pick is None:
            why = (f"no common {LABEL[kind]}: the client offers {_shown(client.of(kind))}; the server "
                   f"{_shown(server.of(kind))}")
            return Outcome(client, chosen.get(Kind.KEX), chosen.get(Kind.HOSTKEY), chosen.get(Kind.CIPHER),
                           chosen.get(Kind.MAC), failed=kind, reason=why)
        chosen[kind] = pick
    aead = is_aead(chosen[Kind.CIPHER] or "")  # the MAC is shown as implicit even where the client insisted on one
    return Outcome(client, chosen[Kind.KEX], chosen[Kind.HOSTKEY], chosen[Kind.CIPHER],
                   None if aead else chosen[Kind.MAC])


@dataclass(frozen=True)
class Addition:
    """An algorithm the policy left out, put back so that these clients can still log in."""

    kind: Kind
    name: str
    clients: tuple[str, ...]


@dataclass
class ServerLists:
    """The lists a server drop-in writes, and what every known client gets with them."""

    lists: dict[Kind, list[str]]  # the kinds written, in order (policy's first, additions after)
    today: AlgorithmLists  # what the server offers now (its current config)
    clients: list[ClientOffer]
    additions: list[Addition] = field(default_factory=list)
    unset: dict[Kind, str] = field(default_factory=dict)  # kinds left at the server's own list, and why

    def offer(self) -> AlgorithmLists:
        """The server's offer once the drop-in is applied: written kinds replaced, the rest as today."""
        return AlgorithmLists(**{k.value: tuple(self.lists[k]) if k in self.lists else self.today.of(k)
                                 for k in NEGOTIATED})

    def outcomes(self) -> list[tuple[Outcome, Outcome]]:
        """Per client: (today, with the drop-in)."""
        after = self.offer()
        return [(negotiate(c, self.today), negotiate(c, after)) for c in self.clients]

    def shut_out(self) -> list[Outcome]:
        """Clients that log in today and would not with the drop-in."""
        return [after for now, after in self.outcomes() if now.connects and not after.connects]


def check(clients: Sequence[ClientOffer], today: AlgorithmLists, lists: Mapping[Kind, Sequence[str]]) -> ServerLists:
    """The proposed lists as they are (no additions): who would be shut out."""
    return ServerLists({k: list(v) for k, v in lists.items()}, today, list(clients))


def keep_in(clients: Sequence[ClientOffer], today: AlgorithmLists, lists: Mapping[Kind, Sequence[str]],
            refuse: Refusal) -> ServerLists:
    """The proposed lists with what keeps every client that logs in today able to log in (module docstring).

    Bounded: each pass adds at least one name or stops, and names come from
    today's finite offer, so at most that many passes.
    """
    result = check(clients, today, lists)
    kept: list[tuple[Kind, str]] = []
    for _ in range(sum(len(today.of(k)) for k in NEGOTIATED) + 1):
        changed = False
        for client in result.clients:
            after = negotiate(client, result.offer())  # afresh: an addition for one client may serve the next
            if after.connects or after.failed not in result.lists or not negotiate(client, today).connects:
                continue
            kind = after.failed
            assert kind is not None
            usable = [n for n in today.of(kind) if n in client.of(kind)]
            allowed = _safest_first([n for n in usable if refuse(n, kind, client) is None], kind)
            if allowed:
                result.lists[kind].append(allowed[0])
                kept.append((kind, allowed[0]))
                changed = True
            elif all(_never_written(n, kind, refuse(n, kind, client)) for n in usable):
                result.unset[kind] = (f"{client.software} ({client.name}) can log in today only with "
                                      f"{_shown(usable)}, which sshbench never writes ("
                                      f"{refuse(usable[0], kind, client) if usable else 'nothing in common'}); "
                                      "left at the server's own list so that it still can")
                del result.lists[kind]
                changed = True
        if not changed:
            break
    for kind, names in result.lists.items():  # the policy's names first, then what was kept, safest first
        policy = list(lists[kind])
        result.lists[kind] = policy + _safest_first([n for n in names if n not in policy], kind)
    for kind, name in sorted(kept, key=lambda kn: security_rank(kn[1], kn[0]), reverse=True):
        if kind in result.lists and not _needing(result, kind, name):  # made redundant by a later addition
            result.lists[kind].remove(name)
    result.additions = [Addition(kind, name, _needing(result, kind, name)) for (kind, name) in kept
                        if name in result.lists.get(kind, ())]
    return result


def _needing(result: ServerLists, kind: Kind, name: str) -> tuple[str, ...]:
    """The clients that log in with the final lists and would not without `name`."""
    without = AlgorithmLists(**{k.value: tuple(n for n in result.offer().of(k) if not (k is kind and n == name))
                                for k in NEGOTIATED})
    return tuple(c.name for c in result.clients
                 if negotiate(c, result.offer()).connects and not negotiate(c, without).connects)


def _safest_first(names: list[str], kind: Kind) -> list[str]:
    return sorted(names, key=lambda name: security_rank(name, kind))


def _never_written(name: str, kind: Kind, why: str | None) -> bool:
    """A refusal that no policy choice could lift: the algorithm's grade (weak, broken, unknown) or Terrapin."""
    return why is not None and (lookup(name, kind).grade.flagged or why.startswith(("unknown", "Terrapin")))
