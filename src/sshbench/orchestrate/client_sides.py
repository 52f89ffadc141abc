"""Clients as a dimension of a run (--client openssh,paramiko): each library client asked what it is, the partners
every client can use, and the cases a client cannot take skipped with why, before anything is measured.

The cases themselves come from the plan like every declared axis's
(plan/cases.py crosses each cipher case with each --client value, axes/client.py);
what only the run knows is what each library can negotiate, which its driver
says once (targets/clientprobe.py). Two things follow from it here:

- the partners held fixed (the key exchange of every case, the MAC of the
  non-AEAD ciphers) must be ones every client has, or a case and its cross
  pair would differ by more than the client: paramiko 5.1 names Curve25519
  only as curve25519-sha256@libssh.org, so "auto" picks what all share, as
  --server a,b does for its servers (build_sides.side_options);
- a case whose cipher (or pinned partner) a client lacks is skipped, saying
  which it has: the driver would refuse it in its one line, and a run should
  not spend a warm-up learning that.

A client with no option to choose a kind of algorithm (ClientPart.unchosen:
PuTTY's plink, every kind) takes its first that the server offers, so what
it can be held at is that one name (`held`), against this server's offer:
plink 0.78 against the embedded OpenSSH 9.2 server agrees aes256-ctr,
hmac-sha2-256 and sntrup761x25519-sha512@openssh.com, and nothing else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from sshbench.axes.client import CLIENT
from sshbench.clientparts import Can, client_part
from sshbench.options import RunOptions
from sshbench.plan.cases import HostPlan
from sshbench.plan.partners import AUTO, FAST_KEX, sweep_partner
from sshbench.results.environment import ClientPartFacts
from sshbench.results.model import Case, CaseStatus
from sshbench.targets.clientprobe import ClientProbe, probe
from sshbench.targets.discovery import ClientInfo
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, AlgorithmLists, Kind, lookup

_PINNED = ((Kind.CIPHER, "cipher"), (Kind.MAC, "MAC"), (Kind.KEX, "key exchange"), (Kind.HOSTKEY, "host key"))


def probed(options: RunOptions, say: Callable[[str], None]) -> list[ClientProbe]:
    """Every library client the run names, asked once what it is (MissingToolError where it cannot say)."""
    parts = [part for name in options.dim_values(CLIENT.name) if (part := client_part(name)) and not part.is_program]
    if parts:
        say(f"asking {', '.join(p.name for p in parts)} what it is and what it can negotiate")
    return [probe(part) for part in parts]


def client_options(options: RunOptions, client: ClientInfo, offered: AlgorithmLists,
                   probes: Sequence[ClientProbe]) -> RunOptions:
    """The partners left to "auto", chosen among the names the run's ssh, the server and every client share."""
    if not probes:
        return options

    holds = [held(p, offered) for p in probes]

    def common(kind: Kind) -> tuple[str, ...]:
        return tuple(n for n in client.supported.of(kind) if n in offered.of(kind)
                     and all(n in h.of(kind) for h in holds))

    chosen: dict[str, str] = {}
    # the fastest every side shares; else, for a client held at its own first (plink's NTRU Prime hybrid), that one
    kexes = common(Kind.KEX)
    if options.partner_kex == AUTO and (kex := next((n for n in FAST_KEX if n in kexes), None) or next(
            (n for n in kexes if not lookup(n, Kind.KEX).grade.flagged), None)):
        chosen["partner_kex"] = kex
    for field, kind, option in (("cipher_mac", Kind.MAC, "--cipher-mac"), ("mac_cipher", Kind.CIPHER, "--mac-cipher")):
        if getattr(options, field) == AUTO:
            shared = AlgorithmLists(**{kind.value: common(kind)})
            if (name := sweep_partner(kind, AUTO, option, client, shared).name) is not None:
                chosen[field] = name
    return dataclasses.replace(options, **chosen)  # type: ignore[arg-type]


def held(found: ClientProbe, offered: AlgorithmLists) -> AlgorithmLists:
    """The names a client can be held at against a server offering `offered`: all it has, except of a kind it has no
    option to choose (ClientPart.unchosen), where only its first that the server offers (none: it has none of them)."""

    def of(kind: Kind) -> tuple[str, ...]:
        names = found.supported.of(kind)
        if kind not in found.part.unchosen:
            return names
        return next(((name,) for name in names if name in offered.of(kind)), ())

    return AlgorithmLists(**{kind.value: of(kind) for kind in ALGORITHM_KINDS})


def with_clients(plan: HostPlan, probes: Sequence[ClientProbe], offered: AlgorithmLists) -> HostPlan:
    """The plan with each client's cases that pin a name the client lacks (or, against this server's offer, cannot be
    held at) skipped, saying what it has."""
    if not probes:
        return plan
    by_name = {p.part.name: p for p in probes}
    for record in plan.records:
        found = by_name.get(str(record.case.value_of(CLIENT.name)))
        if found is None or record.status is CaseStatus.SKIPPED:
            continue
        if (why := _lacks(found, record.case, offered)) is not None:
            record.status, record.reason = CaseStatus.SKIPPED, why
    measured = sum(r.status is not CaseStatus.SKIPPED for r in plan.records)
    said = "; ".join(f"{p.part.name} {p.version}" for p in probes)
    note = (f"--client: {said}: held fixed for every client alike: key exchange {plan.partner_kex or 'default'}, "
            f"the non-AEAD ciphers' MAC {plan.cipher_mac}")
    return dataclasses.replace(plan, records=sorted(plan.records, key=lambda r: r.status is CaseStatus.SKIPPED),
                               measured=measured, notes=(*plan.notes, note))


def _lacks(found: ClientProbe, case: Case, offered: AlgorithmLists) -> str | None:
    part = found.part
    if case.compressor.is_ssh and Can.SSH_COMPRESSION not in part.can:
        return f"{part.title}'s driver does not ask for SSH's own compression (--compression ssh) yet"
    holds = held(found, offered)
    for kind, words in _PINNED:
        name = getattr(case, kind.value)
        if not name or name in holds.of(kind):
            continue
        if name in found.supported.of(kind):  # it has it, but has no option to choose it
            first = holds.of(kind)
            return (f"{part.title} {found.version} cannot use {words} {name} here: {part.unchosen_why}, "
                    f"{first[0] if first else 'and the server offers none it has'}")
        return (f"{part.title} {found.version} cannot use {words} {name} (it has: "
                f"{', '.join(found.supported.of(kind)) or 'none'})")
    return None


def client_facts(probes: Sequence[ClientProbe]) -> list[ClientPartFacts]:
    """What the results keep of each library client: as its driver said, and its window as its source says."""
    return [ClientPartFacts(p.part.name, p.part.implementation, p.version, list(p.program),
                            p.window or p.part.window.value, p.max_packet or p.part.max_packet.value,
                            p.part.window.source, p.supported) for p in probes]
