"""From the user's selection to cases, and from cases to a seeded, interleaved schedule.

Rounds visit every case once in a shuffled order, so slow drift of the machine
(thermal, a neighbour's load) spreads evenly over all cases instead of
landing on whichever ran last. Round 0 is the warm-up: kept, flagged, not
counted, and it doubles as the probe that sizes each throughput case.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from sshbench.algorithms import Kind, is_aead, needs_certificate
from sshbench.discovery import AlgorithmLists, ClientInfo
from sshbench.errors import UsageError
from sshbench.model import Case, Direction

KEYWORDS = ("all", "default", "none")


@dataclass(frozen=True)
class Selection:
    """Names chosen for one kind: what will be measured, and what is skipped with why."""

    kind: Kind
    measure: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()


def select(kind: Kind, spec: str, client: ClientInfo, server: AlgorithmLists) -> Selection:
    """Resolve a comma list with `all`, `default`, `none` and `-name` exclusions.

    `all` is everything both sides support; `default` is the client's
    compiled-in preference list. A name the client does not know is a usage
    error (listing the valid ones); one the server does not offer becomes a
    skipped case with its reason, so the run goes on.
    """
    supported = client.supported.of(kind)
    chosen: list[str] = []
    excluded: set[str] = set()
    for raw in (part.strip() for part in spec.split(",")):
        if not raw:
            continue
        word = raw.lower()
        if word == "none":
            continue
        if word == "all":
            chosen += [n for n in supported if n in server.of(kind) and _measurable(kind, n)]
        elif word == "default":
            chosen += [n for n in client.defaults.of(kind) if n in supported and _measurable(kind, n)]
        else:
            name = raw[1:] if raw.startswith("-") else raw
            if name not in supported:
                raise UsageError(
                    f"unknown {_LABEL[kind]} {name!r} for this ssh client; valid: "
                    f"{', '.join((*KEYWORDS, *supported))}"
                )
            if raw.startswith("-"):
                excluded.add(name)
            else:
                chosen.append(name)
    unique = [n for n in dict.fromkeys(chosen) if n not in excluded]
    measure = tuple(n for n in unique if n in server.of(kind) and _measurable(kind, n))
    skipped = tuple((n, _skip_reason(kind, n)) for n in unique if n not in measure)
    return Selection(kind, measure, skipped)


_LABEL = {Kind.CIPHER: "cipher", Kind.MAC: "MAC", Kind.KEX: "key exchange", Kind.HOSTKEY: "host key algorithm"}


def _measurable(kind: Kind, name: str) -> bool:
    return not (kind is Kind.HOSTKEY and needs_certificate(name))


def _skip_reason(kind: Kind, name: str) -> str:
    if not _measurable(kind, name):
        return "needs a certificate or a FIDO token, which the embedded server does not have"
    return "not offered by the server"


@dataclass(frozen=True)
class SweepSettings:
    cipher_mac: str  # MAC used with non-AEAD ciphers in the cipher sweep
    mac_cipher: str  # non-AEAD cipher used in the MAC sweep
    directions: tuple[Direction, ...]  # cipher sweep directions


def build_cases(selections: Sequence[Selection], settings: SweepSettings) -> list[Case]:
    """One case per (algorithm, direction); MACs only with a fixed non-AEAD cipher, never a grid."""
    if is_aead(settings.mac_cipher):
        raise UsageError(f"--mac-cipher {settings.mac_cipher} is AEAD and ignores MACs: pick a non-AEAD cipher "
                         "such as aes128-ctr")
    cases: list[Case] = []
    for sel in selections:
        for name in sel.measure:
            if sel.kind is Kind.CIPHER:
                mac = None if is_aead(name) else settings.cipher_mac
                cases += [Case(Kind.CIPHER, d, cipher=name, mac=mac) for d in settings.directions]
            elif sel.kind is Kind.MAC:
                cases.append(Case(Kind.MAC, Direction.UPLOAD, cipher=settings.mac_cipher, mac=name))
            elif sel.kind is Kind.KEX:
                cases.append(Case(Kind.KEX, Direction.SETUP, kex=name))
            else:
                cases.append(Case(Kind.HOSTKEY, Direction.SETUP, hostkey=name))
    return cases


@dataclass(frozen=True)
class Visit:
    case: Case
    round: int  # 0 = warm-up


def schedule(cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> list[list[Visit]]:
    """Warm-up round then measured rounds; each round shuffled with a generator seeded by `seed`.

    Throughput cases get `runs` measured visits, set-up cases (cheap) get
    `setup_runs`; a round holds every case that still needs a visit.
    """
    rng = random.Random(seed)
    rounds: list[list[Visit]] = []
    for round_no in range(max(runs, setup_runs) + 1):
        wanted = [c for c in cases if round_no <= (runs if c.moves_data else setup_runs)]
        order = list(wanted)
        rng.shuffle(order)
        if order:
            rounds.append([Visit(c, round_no) for c in order])
    return rounds
