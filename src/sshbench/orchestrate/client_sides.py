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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from sshbench.axes.client import CLIENT
from sshbench.clientparts import client_part
from sshbench.options import RunOptions
from sshbench.plan.cases import HostPlan
from sshbench.plan.partners import AUTO, FAST_KEX, sweep_partner
from sshbench.results.environment import ClientPartFacts
from sshbench.results.model import Case, CaseStatus
from sshbench.targets.clientprobe import ClientProbe, probe
from sshbench.targets.discovery import ClientInfo
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind

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

    def common(kind: Kind) -> tuple[str, ...]:
        return tuple(n for n in client.supported.of(kind) if n in offered.of(kind)
                     and all(n in p.supported.of(kind) for p in probes))

    chosen: dict[str, str] = {}
    if options.partner_kex == AUTO and (kex := next((n for n in FAST_KEX if n in common(Kind.KEX)), None)):
        chosen["partner_kex"] = kex
    for field, kind, option in (("cipher_mac", Kind.MAC, "--cipher-mac"), ("mac_cipher", Kind.CIPHER, "--mac-cipher")):
        if getattr(options, field) == AUTO:
            shared = AlgorithmLists(**{kind.value: common(kind)})
            if (name := sweep_partner(kind, AUTO, option, client, shared).name) is not None:
                chosen[field] = name
    return dataclasses.replace(options, **chosen)  # type: ignore[arg-type]


def with_clients(plan: HostPlan, probes: Sequence[ClientProbe]) -> HostPlan:
    """The plan with each client's cases that pin a name the client lacks skipped, saying what it has."""
    if not probes:
        return plan
    by_name = {p.part.name: p for p in probes}
    for record in plan.records:
        found = by_name.get(str(record.case.value_of(CLIENT.name)))
        if found is None or record.status is CaseStatus.SKIPPED:
            continue
        if (why := _lacks(found, record.case)) is not None:
            record.status, record.reason = CaseStatus.SKIPPED, why
    measured = sum(r.status is not CaseStatus.SKIPPED for r in plan.records)
    said = "; ".join(f"{p.part.name} {p.version}" for p in probes)
    note = (f"--client: {said}: held fixed for every client alike: key exchange {plan.partner_kex or 'default'}, "
            f"the non-AEAD ciphers' MAC {plan.cipher_mac}")
    return dataclasses.replace(plan, records=sorted(plan.records, key=lambda r: r.status is CaseStatus.SKIPPED),
                               measured=measured, notes=(*plan.notes, note))


def _lacks(found: ClientProbe, case: Case) -> str | None:
    if case.compressor.is_ssh:
        return f"{found.part.title}'s driver does not ask for SSH's own compression (--compression ssh) yet"
    for kind, words in _PINNED:
        name = getattr(case, kind.value)
        if name and name not in found.supported.of(kind):
            return (f"{found.part.title} {found.version} cannot use {words} {name} (it has: "
                    f"{', '.join(found.supported.of(kind)) or 'none'})")
    return None


def client_facts(probes: Sequence[ClientProbe]) -> list[ClientPartFacts]:
    """What the results keep of each library client: as its driver said, and its window as its source says."""
    return [ClientPartFacts(p.part.name, p.part.implementation, p.version, list(p.program),
                            p.window or p.part.window.value, p.max_packet or p.part.max_packet.value,
                            p.part.window.source, p.supported) for p in probes]
