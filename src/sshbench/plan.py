"""From the user's selection to cases, and from cases to a seeded, interleaved schedule.

Rounds visit every case once in a shuffled order, so slow drift of the machine
(thermal, a neighbour's load) spreads evenly over all cases instead of
landing on whichever ran last. Round 0 is the warm-up: kept, flagged, not
counted, and it doubles as the probe that sizes each throughput case.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

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
    methods: tuple[str, ...] = ("pipe",)  # cipher sweep transfer methods, sftp variants included


def build_cases(selections: Sequence[Selection], settings: SweepSettings) -> list[Case]:
    """One case per (algorithm, direction), ciphers also per transfer method; MACs with one fixed cipher.

    The MAC, key exchange and host key sweeps measure SSH itself, so they use
    the pipe only; the method x cipher grid is where tools differ.
    """
    if is_aead(settings.mac_cipher):
        raise UsageError(f"--mac-cipher {settings.mac_cipher} is AEAD and ignores MACs: pick a non-AEAD cipher "
                         "such as aes128-ctr")
    cases: list[Case] = []
    for sel in selections:
        for name in sel.measure:
            if sel.kind is Kind.CIPHER:
                mac = None if is_aead(name) else settings.cipher_mac
                cases += [Case(Kind.CIPHER, d, cipher=name, mac=mac, method=method)
                          for method in settings.methods for d in settings.directions]
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


class Schedule(Protocol):
    """Hands the runner one round at a time, so later rounds can depend on what was measured."""

    def next_round(self, visits_done: Mapping[str, int], precise: Mapping[str, bool]) -> list[Visit]:
        """The next round (empty when finished); visits_done counts measured visits per case id."""
        ...

    def minimum_left(self, visits_done: Mapping[str, int]) -> int:
        """Visits still certain to come after the current round (for the progress estimate)."""
        ...


def _shuffled(rng: random.Random, cases: Sequence[Case], round_no: int) -> list[Visit]:
    order = list(cases)
    rng.shuffle(order)
    return [Visit(c, round_no) for c in order]


class FixedSchedule:
    """Warm-up, then `runs` measured visits per throughput case and `setup_runs` per set-up case."""

    def __init__(self, cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> None:
        self.cases, self.runs, self.setup_runs = list(cases), runs, setup_runs
        self._rng = random.Random(seed)
        self._round = -1

    def _wanted(self, case: Case) -> int:
        return self.runs if case.moves_data else self.setup_runs

    def next_round(self, visits_done: Mapping[str, int], precise: Mapping[str, bool]) -> list[Visit]:
        self._round += 1
        return _shuffled(self._rng, [c for c in self.cases if self._round <= self._wanted(c)], self._round)

    def minimum_left(self, visits_done: Mapping[str, int]) -> int:
        return sum(max(0, self._wanted(c) - max(self._round, 0)) for c in self.cases)


class PrecisionSchedule:
    """Rounds continue until each case's median interval is within the target or it hits max_runs.

    Every case gets min_runs measured visits (6 is the least that gives a 95%
    order-statistic interval); after that a round holds only the cases still
    short of the target, so the time goes where the uncertainty is.
    """

    def __init__(self, cases: Sequence[Case], min_runs: int, max_runs: int, seed: int) -> None:
        self.cases, self.min_runs, self.max_runs = list(cases), min_runs, max_runs
        self._rng = random.Random(seed)
        self._round = -1

    def next_round(self, visits_done: Mapping[str, int], precise: Mapping[str, bool]) -> list[Visit]:
        self._round += 1
        if self._round == 0:
            return _shuffled(self._rng, self.cases, 0)
        wanted = [c for c in self.cases
                  if visits_done.get(c.id, 0) < self.min_runs
                  or (visits_done.get(c.id, 0) < self.max_runs and not precise.get(c.id, False))]
        return _shuffled(self._rng, wanted, self._round)

    def minimum_left(self, visits_done: Mapping[str, int]) -> int:
        return sum(max(0, self.min_runs - max(self._round, 0)) for c in self.cases)


def schedule(cases: Sequence[Case], runs: int, setup_runs: int, seed: int) -> list[list[Visit]]:
    """All rounds of a fixed schedule at once (for tests and benchmarks)."""
    fixed = FixedSchedule(cases, runs, setup_runs, seed)
    rounds = []
    while rnd := fixed.next_round({}, {}):
        rounds.append(rnd)
    return rounds
