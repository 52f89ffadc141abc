"""Sides: several SSH builds (--build) or embedded servers (--server a,b) in one run, their cases interleaved.

Every build's client is checked like the stock one (ssh -V, -Q, -G); one
embedded server runs per distinct server program, enabling what any of the
run's clients knows (so HPN-SSH's server offers its own ciphers to its own
client), behind the emulated links too. Each build's cases are planned
against what its two sides share, tagged with its name (Case.build), and
the schedule interleaves them like links'. A build is the embedded
server's dimension: real hosts and the other embedded servers have their
own servers.

`--server openssh,dropbear` is the same dimension with the run's one client:
each server a side with its own offer, its cases tagged with its name, cross
pairs of the same case on two servers, one report.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable

from sshbench.implementations import by_program
from sshbench.options import RunOptions
from sshbench.plan.cases import HostPlan
from sshbench.plan.partners import AUTO, sweep_partner
from sshbench.plan.selection import select
from sshbench.results.environment import BuildFacts, ClientFacts
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus
from sshbench.targets.base import NONE, EmbeddedServer
from sshbench.targets.build_programs import build_paths
from sshbench.targets.discovery import ClientInfo, client_settings, discover_client
from sshbench.targets.embedded import BuildSide
from sshbench.targets.link.emulated import EmulatedLinks
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, AlgorithmLists, Kind, is_aead
from sshbench.vocabulary.errors import UsageError

Say = Callable[[str], None]


def start_builds(stack: contextlib.ExitStack, options: RunOptions, say: Say,
                 links: EmulatedLinks | None) -> list[BuildSide]:
    """Every --build's client checked and its server started (once per server program), inside `stack`."""
    specs = options.builds
    resolved = [(spec, build_paths(spec)) for spec in specs]
    clients: dict[str, ClientInfo] = {}
    for spec, paths in resolved:
        say(f"checking the client of build {spec.name}")
        clients[spec.name] = discover_client(paths.client or options.ssh)
    known = _union([c.supported for c in clients.values()])
    servers: dict[str, EmbeddedServer] = {}
    sides = []
    for spec, paths in resolved:
        program = paths.server or options.sshd or ""
        if program not in servers:
            say(f"starting the private sshd of build {spec.name} on 127.0.0.1")
            maker = dataclasses.replace(clients[spec.name], supported=known)  # serve every client's names
            servers[program] = stack.enter_context(EmbeddedOpenSSH(
                maker, paths.server or options.sshd, env=options.crypto_env(), dropin=_server_lines(options, program)))
        sides.append((spec, servers[program]))
    ports = {id(server): links.serve(server) if links else 0 for server in servers.values()}
    return [BuildSide(spec.name, spec.text, clients[spec.name], server, ports[id(server)]) for spec, server in sides]


def server_sides(servers: list[EmbeddedServer], client: ClientInfo, ports: dict[str, int]) -> list[BuildSide]:
    """--server a,b: each embedded server a side, measured with the run's own client (ports: their listeners
    behind the emulated links, by launcher name)."""
    return [BuildSide(server.name, server.name, client, server, ports[server.name], axis="server")
            for server in servers]


def side_options(options: RunOptions, side: BuildSide, sides: tuple[BuildSide, ...]) -> RunOptions:
    """A side's options: for servers (--server a,b), the sweep partners left to "auto" chosen once from what
    every server that would use them offers, so that aes128-ctr with its MAC is one case on OpenSSH and on
    Dropbear (a cross pair) rather than two (OpenSSH's -etm MAC, which Dropbear lacks); a server that lacks the
    common choice, or a run of builds, keeps its own."""
    if side.axis != "server":
        return options
    chosen: dict[str, str] = {}
    for field, kind, option in (("cipher_mac", Kind.MAC, "--cipher-mac"), ("mac_cipher", Kind.CIPHER, "--mac-cipher")):
        if getattr(options, field) != AUTO:
            continue
        users = [s for s in sides if any(not is_aead(name) for name in offered(s).cipher)]
        common = AlgorithmLists(**{k.value: tuple(n for n in offered(users[0]).of(k) if all(
            n in offered(s).of(k) for s in users)) for k in ALGORITHM_KINDS}) if users else AlgorithmLists()
        name = sweep_partner(kind, AUTO, option, side.client, common).name
        if name is not None and name in offered(side).of(kind):
            chosen[field] = name
    return dataclasses.replace(options, **chosen)  # type: ignore[arg-type]


def _server_lines(options: RunOptions, program: str) -> str | None:
    """What the server of a build must allow for the run's cases: the none cipher (and MAC) only when asked, in
    the words of the implementation the program is (implementations/)."""
    impl = by_program(program)
    if not (options.none_cipher and impl.has_none_cipher):
        return None
    lines = [*impl.none_cipher_lines, *(impl.none_mac_lines if options.none_mac else ())]
    return "".join(f"{line}\n" for line in lines)


def with_none(plan: HostPlan, side: BuildSide, options: RunOptions) -> HostPlan:
    """--none-cipher: a none-cipher case per direction and link on a build whose two sides are HPN-SSH's (the
    switch needs both); on the others the same cases, skipped with why."""
    if not options.none_cipher:
        return plan
    mac = NONE if options.none_mac else None
    cases = [Case(CaseKind.CIPHER, direction, cipher=NONE, mac=mac, kex=plan.partner_kex, link=link)
             for link in [link.label for link in options.links] or [""] for direction in options.directions]
    client, server = by_program(side.client.path), by_program(side.server.info.path)
    if client.has_none_cipher and client is server:
        return dataclasses.replace(plan, records=[*(CaseRecord(c) for c in cases), *plan.records],
                                   measured=plan.measured + len(cases))
    why = "the none cipher is HPN-SSH's (NoneSwitch): this build's client and server are not both HPN-SSH"
    return dataclasses.replace(plan, records=[*plan.records, *(CaseRecord(c, status=CaseStatus.SKIPPED, reason=why)
                                                               for c in cases)])


def _union(lists: list[AlgorithmLists]) -> AlgorithmLists:
    return AlgorithmLists(**{kind.value: tuple(dict.fromkeys(n for one in lists for n in one.of(kind)))
                             for kind in ALGORITHM_KINDS})


def check_names(options: RunOptions, sides: tuple[BuildSide, ...]) -> None:
    """A name no build's client knows is a usage error (each build then skips the names its client lacks)."""
    every = dataclasses.replace(sides[0].client, supported=_union([s.client.supported for s in sides]))
    for kind, spec in ((Kind.CIPHER, options.ciphers), (Kind.MAC, options.macs), (Kind.KEX, options.kex),
                       (Kind.HOSTKEY, options.hostkeys)):
        select(kind, spec, every, every.supported)


def offered(side: BuildSide) -> AlgorithmLists:
    """What a build's client may ask of its server: what the server enabled (the client's own check is the
    selection's, plan/selection.py, against that client)."""
    return side.server.info.enabled


def merged(plans: list[tuple[str, HostPlan]]) -> HostPlan:
    """One host's plan from each build's: every algorithm case tagged with its build; the references (raw TCP,
    crypto ceilings) once, from the first."""
    if not plans:
        raise UsageError("--build: no build to measure")
    records: list[CaseRecord] = []
    for index, (name, plan) in enumerate(plans):
        for record in plan.records:
            reference = record.case.kind in (CaseKind.CONTROL, CaseKind.CEILING)
            if reference and index:
                continue
            case = record.case if reference else dataclasses.replace(record.case, build=name)
            records.append(dataclasses.replace(record, case=case))
    first = plans[0][1]
    return dataclasses.replace(first, records=sorted(records, key=lambda r: r.status is CaseStatus.SKIPPED),
                               measured=sum(plan.measured for _, plan in plans),
                               notes=tuple(dict.fromkeys(note for _, plan in plans for note in plan.notes)))


def build_facts(sides: list[BuildSide]) -> list[BuildFacts]:
    """What the results say of each build: its two programs as run, and their switches."""
    out = []
    for side in sides:
        info = side.server.info
        out.append(BuildFacts(side.name, side.spec,
                              ClientFacts(side.client.path, side.client.version, side.client.openssl),
                              ClientFacts(info.path, info.version, info.openssl),
                              dict(client_settings(side.client.path)), dict(info.settings)))
    return out
