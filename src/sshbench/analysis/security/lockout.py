"""Who can still log in: a proposed server config against the offers of real clients.

A server drop-in restricts what the server offers. SSH picks, per kind, the
client's first choice that the server also offers (RFC 4253, 7.1); when a
kind has nothing in common the connection ends before any login. So for
every known client (clients/: recorded KEXINITs) this computes, against the
server's offer today and against the proposed lists, the key exchange, host
key, cipher and MAC it would get, or the kind that has nothing in common.

The rule that keeps people in (`keep_in`, docs/configs.md): start from the
policy's lists (security first); for each client that logs in today and
would not with those lists, add back, kind by kind, the safest algorithm
both it and today's server offer (grade, then the stated preference:
curve25519 before a NIST curve, EtM before a plain MAC), and of equals the
one the most known clients offer; never a weak, broken or unknown one and
never one the user's policy file forbids. Each client's additions are chosen against the
policy's lists alone, never against what another client's needs added,
and none is taken out again: so the drop-in for a set of clients offers a
superset of what it offers for any part of that set, and adding a
recording can only add names. That is what keeps in the clients nobody
recorded: a name some recorded client needs (curve25519, say) stays,
whatever a later recording brings (a NIST curve for JSch), and a client
that connected with it still does. If only a weak or broken algorithm
would do, the line is left unset (the server keeps today's list for that
kind, so nobody is shut out, and sshbench writes nothing weak); if the
user's policy forbids what a client needs, that client is reported shut
out and the drop-in is written only when asked (`--allow-lockout`).

Pure functions over names; nothing here runs a command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from sshbench.analysis.security.ordering import security_rank
from sshbench.clients import ClientOffer, known_clients
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind, is_aead, lookup

# The order SSH negotiates in (RFC 4253, 7.1): a failure names the first kind with nothing in common.
NEGOTIATED = (Kind.KEX, Kind.HOSTKEY, Kind.CIPHER, Kind.MAC)
LABEL = {Kind.KEX: "key exchange", Kind.HOSTKEY: "host key algorithm", Kind.CIPHER: "cipher", Kind.MAC: "MAC"}
SHOWN = 4  # names of a list shown in a reason before "…"



class Refused(NamedTuple):
    """Why an algorithm may not be added back for a client: the words, and whether no policy could lift it (its
    grade: weak, broken or unknown; Terrapin), so that sshbench never writes it for anyone."""

    why: str
    lasting: bool = False


# Why an algorithm may not be added for a client (None: it may). Takes the client too: Terrapin depends on it.
Refusal = Callable[[str, Kind, ClientOffer], Refused | None]


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
            refuse: Refusal, popular: Callable[[str, Kind], tuple[int, int]] | None = None) -> ServerLists:
    """The proposed lists with what keeps every client that logs in today able to log in (module docstring).

    `popular`: how many known clients offer a name, the tie-break among equally safe ones (default: sshbench's
    own recordings, a fixed set, so the choice for one client never depends on which others are checked).
    Bounded: a client fails on at most one kind per pass, and each kind is added to at most once per client.
    """
    result = check(clients, today, lists)
    rank = popular or shipped_popularity
    chosen: dict[tuple[Kind, str], list[str]] = {}
    for client in clients:
        if not negotiate(client, today).connects:
            continue
        mine = {kind: list(names) for kind, names in lists.items()}  # the policy's, and this client's additions
        for _ in range(len(NEGOTIATED) + 2):
            after = negotiate(client, _offer(mine, today))
            if after.connects:
                after = negotiate(client, _offer(_with_others(mine, client, today, refuse), today))
            if after.connects or after.failed not in mine:
                break
            kind = after.failed
            assert kind is not None
            usable = [n for n in today.of(kind) if n in client.of(kind)]
            allowed = sorted((n for n in usable if refuse(n, kind, client) is None),
                             key=lambda n: (security_rank(n, kind)[:2], tuple(-count for count in rank(n, kind)), n))
            if allowed:
                mine[kind].append(allowed[0])
                chosen.setdefault((kind, allowed[0]), []).append(client.name)
                continue
            if all(_never_written(n, kind, refuse(n, kind, client)) for n in usable):
                result.unset[kind] = (f"{client.software} ({client.name}) can log in today only with "
                                      f"{_shown(usable)}, which sshbench never writes ("
                                      f"{_why(refuse(usable[0], kind, client)) if usable else 'nothing in common'}); "
                                      "left at the server's own list so that it still can")
            break  # otherwise the user's policy forbids what it needs: reported as shut out
    for kind in result.unset:
        result.lists.pop(kind, None)
    for kind in list(result.lists):  # the policy's names first, then what was kept, safest first
        policy = list(lists[kind])
        added = _safest_first(list(dict.fromkeys(n for (k, n) in chosen if k is kind and n not in policy)), kind)
        result.lists[kind] = policy + added
    result.additions = [Addition(kind, name, tuple(dict.fromkeys(names))) for (kind, name), names in chosen.items()
                        if kind in result.lists and name not in lists[kind]]
    return result


def _with_others(mine: Mapping[Kind, Sequence[str]], client: ClientOffer, today: AlgorithmLists,
                 refuse: Refusal) -> dict[Kind, list[str]]:
    """This client's lists with every cipher another client's addition could bring in: each one the client
    offers, the server offers today and sshbench may write. A client prefers its own order, so a cipher added
    for someone else can become the one it negotiates; PuTTY 0.74, kept in by chacha20-poly1305 (no MAC needed),
    was shut out once aes256-ctr, its first choice, came in for libssh2 1.10 and none of its MACs was there.
    Judged against this worst case, a client gets the MAC it would need then, whoever else is kept in, so the
    choice for one client still never depends on which others are checked."""
    out = {kind: list(names) for kind, names in mine.items()}
    if Kind.CIPHER in out:
        out[Kind.CIPHER] += [n for n in client.of(Kind.CIPHER) if n in today.of(Kind.CIPHER)
                             and n not in out[Kind.CIPHER] and refuse(n, Kind.CIPHER, client) is None]
    return out


def _offer(lists: Mapping[Kind, Sequence[str]], today: AlgorithmLists) -> AlgorithmLists:
    return AlgorithmLists(**{k.value: tuple(lists[k]) if k in lists else today.of(k) for k in NEGOTIATED})


@cache
def _shipped() -> tuple[ClientOffer, ...]:
    return tuple(known_clients())


# One algorithm under two names (the RFC's and its draft's): a client offering either offers the algorithm
ALIASES = ({"curve25519-sha256", "curve25519-sha256@libssh.org"},
           {"sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com"})


def shipped_popularity(name: str, kind: Kind) -> tuple[int, int]:
    """How many of the clients sshbench ships recordings of offer the algorithm (under any of its names), then
    this name of it: fixed counts per sshbench version, so that of two equally safe algorithms the common one is
    added, and of an algorithm's two names the one more clients know."""
    names = next((group for group in ALIASES if name in group), {name})
    return (sum(1 for client in _shipped() if names & set(client.of(kind))),
            sum(1 for client in _shipped() if name in client.of(kind)))


def _safest_first(names: list[str], kind: Kind) -> list[str]:
    return sorted(names, key=lambda name: security_rank(name, kind))


def _never_written(name: str, kind: Kind, refused: Refused | None) -> bool:
    """A refusal that no policy choice could lift: the algorithm's grade (weak, broken, unknown) or Terrapin."""
    return refused is not None and (lookup(name, kind).grade.flagged or refused.lasting)


def _why(refused: Refused | None) -> str | None:
    return None if refused is None else refused.why
