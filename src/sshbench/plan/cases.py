"""The cases of a run: one per algorithm, direction and transfer method, plus the references beside them.

A case is what gets measured and ranked. The cipher sweep crosses every
cipher with the directions and transfer methods; the MAC, key exchange and
host key sweeps measure SSH itself, so they use the pipe only. Every case
but the key exchange sweep's holds one fast key exchange fixed
(plan/partners.py), so their samples are spent moving data. Controls (raw
TCP) and crypto ceilings are scheduled like cases. Names the server does not
offer, and methods this machine cannot run, become skipped cases with the
reason, so a report says what was not measured and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sshbench.algorithms import AlgorithmLists, Kind, is_aead, lookup
from sshbench.errors import MissingToolError, UsageError
from sshbench.measure.controls import EVP_OF
from sshbench.measure.methods import missing_tools, sftp_variants
from sshbench.options import RunOptions
from sshbench.plan.partners import partner_kex
from sshbench.plan.selection import Selection, select
from sshbench.results.kinds import CaseKind, Direction
from sshbench.results.model import PIPE, Case, CaseRecord, CaseStatus
from sshbench.targets.discovery import ClientInfo


@dataclass(frozen=True)
class SweepSettings:
    cipher_mac: str  # MAC used with non-AEAD ciphers in the cipher sweep
    mac_cipher: str  # non-AEAD cipher used in the MAC sweep
    directions: tuple[Direction, ...]  # cipher sweep directions
    methods: tuple[str, ...] = (PIPE,)  # cipher sweep transfer methods, sftp variants included
    kex: str | None = None  # key exchange of every case but the key exchange sweep's (None: ssh's default)


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
                cases += [Case(CaseKind.CIPHER, d, cipher=name, mac=mac, kex=settings.kex, method=method)
                          for method in settings.methods for d in settings.directions]
            elif sel.kind is Kind.MAC:
                cases.append(Case(CaseKind.MAC, Direction.UPLOAD, cipher=settings.mac_cipher, mac=name,
                                  kex=settings.kex))
            elif sel.kind is Kind.KEX:
                cases.append(Case(CaseKind.KEX, Direction.SETUP, kex=name))
            else:
                cases.append(Case(CaseKind.HOSTKEY, Direction.SETUP, hostkey=name, kex=settings.kex))
    return cases


def expand_methods(options: RunOptions, asked_all: bool) -> tuple[tuple[str, ...], dict[str, str]]:
    """The methods to measure (sftp tuning variants expanded) and those this machine cannot run, with why.

    A method named explicitly whose tool is missing is an error; with `all` it is skipped and listed.
    """
    methods = [*options.methods]
    if "sftp" in methods:
        at = methods.index("sftp")
        methods[at:at + 1] = sftp_variants(options.sftp_buffers, options.sftp_requests) or ("sftp",)
    missing = missing_tools(tuple(methods))
    if missing and not asked_all:
        name, why = next(iter(missing.items()))
        raise MissingToolError(f"--method {name}: {why}; install it or leave {name} out")
    return tuple(m for m in methods if m not in missing), missing


def _check_partner(kind: Kind, name: str, option: str, client: ClientInfo, server: AlgorithmLists) -> None:
    if name not in client.supported.of(kind):
        raise UsageError(f"{option} {name!r} is not supported by this ssh; valid: "
                         f"{', '.join(client.supported.of(kind))}")
    if name not in server.of(kind):
        raise UsageError(f"{option} {name!r} is not offered by the server; pick one of "
                         f"{', '.join(server.of(kind))}")


@dataclass(frozen=True)
class HostPlan:
    records: list[CaseRecord]  # measured ones first, then the skipped ones with why
    measured: int  # how many of them to measure
    partner_kex: str | None  # the key exchange held fixed (None: ssh's default)


def plan_cases(options: RunOptions, client: ClientInfo, offered: AlgorithmLists,
               methods: tuple[str, ...] = (PIPE,), missing: dict[str, str] | None = None,
               tcp_control: bool = True) -> HostPlan:
    """Every case of one host, and the key exchange they hold fixed."""
    specs = {Kind.CIPHER: options.ciphers, Kind.MAC: options.macs, Kind.KEX: options.kex,
             Kind.HOSTKEY: options.hostkeys}
    selections = [select(kind, spec, client, offered) for kind, spec in specs.items()]
    kex = partner_kex(options.partner_kex, client, offered)
    settings = SweepSettings(options.cipher_mac, options.mac_cipher, options.directions, methods, kex)
    if options.macs.strip().lower() != "none":
        _check_partner(Kind.CIPHER, options.mac_cipher, "--mac-cipher", client, offered)
    if any(not lookup(c, Kind.CIPHER).aead for c in selections[0].measure):
        _check_partner(Kind.MAC, options.cipher_mac, "--cipher-mac", client, offered)
    records = [CaseRecord(case) for case in build_cases(selections, settings)]
    measured = len(records)
    ciphers = selections[0].measure
    if options.controls and ciphers:
        if tcp_control:  # raw TCP over loopback: only meaningful against the embedded server
            records.append(CaseRecord(Case(CaseKind.CONTROL, Direction.UPLOAD)))
        records += [CaseRecord(Case(CaseKind.CEILING, Direction.LOCAL, cipher=c)) for c in ciphers if c in EVP_OF]
    skipped = [Selection(s.kind, tuple(n for n, _ in s.skipped)) for s in selections]
    reasons = {(s.kind.value, n): why for s in selections for n, why in s.skipped}
    for case in build_cases(skipped, settings):
        records.append(CaseRecord(case, status=CaseStatus.SKIPPED, reason=reasons[(case.kind.value, case.subject)]))
    unavailable = SweepSettings(options.cipher_mac, options.mac_cipher, options.directions, tuple(missing or {}),
                                kex)
    for case in build_cases([selections[0]], unavailable):
        records.append(CaseRecord(case, status=CaseStatus.SKIPPED, reason=(missing or {})[case.method]))
    return HostPlan(records, measured, kex)


def plan_host(options: RunOptions, client: ClientInfo, offered: AlgorithmLists, methods: tuple[str, ...],
              missing: dict[str, str], where: str, embedded: bool) -> HostPlan:
    """One host's cases; a host where nothing at all can be measured is a usage error naming it."""
    plan = plan_cases(options, client, offered, methods, missing, tcp_control=embedded)
    if not plan.measured:
        raise UsageError(f"nothing to measure on {where}: every selection is empty or not offered there "
                         "(see sshbench algos)")
    return plan
