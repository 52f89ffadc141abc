"""The cases of a run: one per algorithm, direction and transfer method, plus the references beside them.

A case is what gets measured and ranked. The cipher sweep crosses every
cipher with the directions and transfer methods; the MAC, key exchange and
host key sweeps measure SSH itself, so they use the pipe only. Over
emulated links (--link) every measured case, and the raw TCP control, is
made once per link: each link a set of cases, interleaved with the others
by the schedule. The cases that move data through SSH (the cipher and MAC
sweeps) are also made once per --streams count and --compression choice;
parallel streams are the pipe's (a file tool moves its file in one run),
and an external compressor wraps the pipe (scp, sftp and rsync get SSH's
own compression only). Every case
but the key exchange sweep's holds one fast key exchange fixed
(plan/partners.py), so their samples are spent moving data. Controls (raw
TCP) and crypto ceilings are scheduled like cases. Names the server does not
offer, and methods this machine cannot run, become skipped cases with the
reason, so a report says what was not measured and why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sshbench.axes import DECLARED
from sshbench.compressors import Choice, choice
from sshbench.methods import missing_tools, tuned
from sshbench.options import RunOptions
from sshbench.plan.partners import Partner, partner_kex, sweep_partner
from sshbench.plan.selection import Selection, select
from sshbench.results.kinds import ReasonKind
from sshbench.results.model import PIPE, Case, CaseRecord, CaseStatus
from sshbench.targets.discovery import ClientInfo
from sshbench.vocabulary.algorithms import EVP_OF, AlgorithmLists, Kind, is_aead, lookup
from sshbench.vocabulary.case_terms import CaseKind, Direction
from sshbench.vocabulary.errors import MissingToolError, UsageError


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
    """The methods to measure (each tuned method's variants, methods/) and those this machine cannot run, with why.

    A method named explicitly whose tool is missing is an error; with `all` it is skipped and listed.
    """
    methods = tuned(options.methods, options.knobs)
    missing = missing_tools(tuple(methods))
    if missing and not asked_all:
        name, why = next(iter(missing.items()))
        raise MissingToolError(f"--method {name}: {why}; install it or leave {name} out")
    return tuple(m for m in methods if m not in missing), missing


@dataclass(frozen=True)
class HostPlan:
    records: list[CaseRecord]  # measured ones first, then the skipped ones with why
    measured: int  # how many of them to measure
    partner_kex: str | None  # the key exchange held fixed (None: ssh's default)
    cipher_mac: str  # the MAC of non-AEAD ciphers, as resolved for this host ("auto" resolved)
    mac_cipher: str  # the MAC sweep's cipher, as resolved
    notes: tuple[str, ...] = ()  # partner choices "auto" had to make, to be said


def _without(selection: Selection, names: Sequence[str], why: str) -> Selection:
    """The selection with `names` moved from measured to skipped, with `why`."""
    return Selection(selection.kind, tuple(n for n in selection.measure if n not in names),
                     (*selection.skipped, *((n, why) for n in selection.measure if n in names)), selection.unoffered)


def plan_cases(options: RunOptions, client: ClientInfo, offered: AlgorithmLists,
               methods: tuple[str, ...] = (PIPE,), missing: dict[str, str] | None = None,
               tcp_control: bool = True, hostkey_skip: Callable[[str], str | None] | None = None,
               compression: tuple[str, ...] | None = None, lenient: bool = False,
               add_default: bool = False) -> HostPlan:
    """Every case of one host, and the partners they hold fixed.

    `hostkey_skip` says why a host key algorithm must not be tried on this host (a real host whose key of
    that type the user's known_hosts does not hold), or None. `compression` is what the server offers (None:
    not known); with --compression and no zlib there, every case is skipped with that reason. `add_default`:
    the run answers what fills its link, so the client's default cipher is measured as its plain transfer.
    """
    specs = {Kind.CIPHER: options.ciphers, Kind.MAC: options.macs, Kind.KEX: options.kex,
             Kind.HOSTKEY: options.hostkeys}
    selections = [select(kind, spec, client, offered, lenient) for kind, spec in specs.items()]
    if hostkey_skip is not None:
        for name in selections[3].measure:
            if (why := hostkey_skip(name)) is not None:
                selections[3] = _without(selections[3], [name], why)
    kex = partner_kex(options.partner_kex, client, offered)
    mac_partner = cipher_partner = Partner(None)
    if selections[1].measure:
        cipher_partner = sweep_partner(Kind.CIPHER, options.mac_cipher, "--mac-cipher", client, offered)
        if cipher_partner.name is None:  # tinysshd: AEAD ciphers only, so MACs are never used with it
            selections[1] = _without(selections[1], selections[1].measure, f"{cipher_partner.why}: MACs are used "
                                     "only with non-AEAD ciphers, and the MAC sweep has none to pair them with")
    non_aead = [c for c in selections[0].measure if not lookup(c, Kind.CIPHER).aead]
    if non_aead:
        mac_partner = sweep_partner(Kind.MAC, options.cipher_mac, "--cipher-mac", client, offered)
        if mac_partner.name is None:
            selections[0] = _without(selections[0], non_aead, f"{mac_partner.why} to pair this non-AEAD cipher with")
    cipher_mac = mac_partner.name or options.cipher_mac
    mac_cipher = cipher_partner.name or options.mac_cipher
    settings = SweepSettings(cipher_mac, mac_cipher, options.directions, methods, kex)
    links = [link.label for link in options.links] or [""]
    crossed = [(c, why) for link in links for case in build_cases(selections, settings)
               for c, why in variants(replace(case, link=link), options, compression)]
    plain, added = _plain_default(options, client, offered, selections[0], settings, links, add_default)
    crossed += [(c, None) for c in plain]
    crossed += [found for link in links for found in command_cases(options, link)]
    records = [CaseRecord(c, added=c in plain) for c, why in crossed if why is None]
    measured = len(records)
    records += [CaseRecord(c, status=CaseStatus.SKIPPED, reason=why) for c, why in crossed if why is not None]
    ciphers = selections[0].measure
    if options.controls and ciphers:
        if tcp_control:  # raw TCP along the same path: only meaningful against the embedded server
            records += [CaseRecord(Case(CaseKind.CONTROL, Direction.UPLOAD, link=link)) for link in links]
        records += [CaseRecord(Case(CaseKind.CEILING, Direction.LOCAL, cipher=c)) for c in ciphers if c in EVP_OF]
    skipped = [Selection(s.kind, tuple(n for n, _ in s.skipped)) for s in selections]
    reasons = {(s.kind.value, n): why for s in selections for n, why in s.skipped}
    unoffered = {(s.kind.value, n) for s in selections for n in s.unoffered}
    for case in build_cases(skipped, settings):
        key = (case.kind.value, case.subject)
        records.append(CaseRecord(case, status=CaseStatus.SKIPPED, reason=reasons[key],
                                  reason_kind=ReasonKind.NOT_OFFERED if key in unoffered else None))
    unavailable = SweepSettings(cipher_mac, mac_cipher, options.directions, tuple(missing or {}), kex)
    for case in build_cases([selections[0]], unavailable):
        records.append(CaseRecord(case, status=CaseStatus.SKIPPED, reason=(missing or {})[case.method]))
    notes = tuple(p.note for p in (mac_partner, cipher_partner) if p.note) + added
    return HostPlan(records, measured, kex, cipher_mac, mac_cipher, notes)


def command_cases(options: RunOptions, link: str) -> list[tuple[Case, str | None]]:
    """The short commands of --commands over one path, each once per --compression choice SSH itself makes (off,
    ssh: Ansible's -C) and per declared axis for them (--reuse), with why one is skipped: each with the client's
    own algorithms (a short command's key exchange and host key are part of what it costs: no partner is held
    fixed)."""
    out = []
    for name in options.commands:
        for text in options.compression:
            external = choice(text).external
            why = (f"--compression {choice(text).compressor.name}: an external compressor wraps a transfer; a short "
                   "command takes SSH's own only (--compression ssh)") if external else None
            case = Case(CaseKind.COMMAND, Direction.SETUP, command=name, link=link, compression=text)
            out += _declared(case, options, why)
    return out


def _plain_default(options: RunOptions, client: ClientInfo, offered: AlgorithmLists, ciphers: Selection,
                   settings: SweepSettings, links: list[str], add: bool) -> tuple[list[Case], tuple[str, ...]]:
    """The plain transfer of the link answer (analysis/answers/remedies.py) is this client's default cipher, one
    connection, no compression, over the pipe: where a run answers "what fills the link" (`add`) and its
    cipher selection left that cipher out without excluding it, its plain cases are added, so every change
    is compared with what the user gets today. Returns them and the note that says so."""
    server = set(offered.cipher)
    default = next((n for n in client.defaults.cipher if n in server), None)
    excluded = any(name == default for name, _ in ciphers.skipped)
    if not add or PIPE not in settings.methods or not ciphers.measure or default is None or \
            default in ciphers.measure or excluded:
        return [], ()
    mac = None if is_aead(default) else settings.cipher_mac
    cases = [Case(CaseKind.CIPHER, d, cipher=default, mac=mac, kex=settings.kex, link=link)
             for link in links for d in settings.directions]
    return cases, (f"{default} (this client's default cipher) added with one connection and no compression: the "
                   "plain transfer every change is compared with",)


def variants(case: Case, options: RunOptions,
             server_compression: tuple[str, ...] | None = None) -> list[tuple[Case, str | None]]:
    """A case once per --compression choice and --streams count it can cross, each with why it is skipped (None:
    measured). Cases that move no data through SSH (handshakes) have neither: they come back as they are.

    `server_compression` is what the server offers (None: not known): SSH's own zlib needs it there."""
    if not case.moves_data or case.kind not in (CaseKind.CIPHER, CaseKind.MAC):
        return [(case, None)]
    out = []
    for text in options.compression:
        for streams in options.streams:
            out += _declared(replace(case, compression=text, streams=streams), options,
                             _variant_skipped(case, choice(text), streams, server_compression))
    return out


def _declared(case: Case, options: RunOptions, skipped: str | None) -> list[tuple[Case, str | None]]:
    """`case` once per combination of the declared axes' values the run gives (axes/), each with why it is
    skipped: the first reason of the streams and compression, then of each axis at its value."""
    out = [(case, skipped)]
    for axis in DECLARED:
        values = options.dim_values(axis.name)
        if values and case.kind in axis.kinds:
            out = [(c.at(axis.name, value), why or axis.skipped(value, case.method)) for c, why in out
                   for value in values]
    return out


def _variant_skipped(case: Case, compression: Choice, streams: int,
                     server_compression: tuple[str, ...] | None) -> str | None:
    if streams > 1 and not case.is_pipe:
        return (f"--streams {streams}: parallel connections are measured with the pipe; a file tool moves its file "
                "in one run (docs/streams.md)")
    if compression.external and not case.is_pipe:
        return (f"--compression {compression.compressor.name}: an external compressor wraps the pipe; for "
                f"{case.method} compress the files first, or use SSH's own (--compression ssh)")
    if compression.is_ssh and server_compression is not None and \
            not any(c.startswith("zlib") for c in server_compression):
        return f"--compression ssh: the server offers no compression (only {', '.join(server_compression) or 'none'})"
    return None


def check_compressors(options: RunOptions) -> None:
    """A compressor asked for whose tool this machine lacks: one line naming its package (exit 3)."""
    for text in options.compression:
        compressor = choice(text).compressor
        if (why := compressor.unavailable()) is not None:
            raise MissingToolError(f"--compression {compressor.name}: {why}; install it or leave "
                                   f"{compressor.name} out")


def plan_host(options: RunOptions, client: ClientInfo, offered: AlgorithmLists, methods: tuple[str, ...],
              missing: dict[str, str], where: str, embedded: bool,
              hostkey_skip: Callable[[str], str | None] | None = None,
              compression: tuple[str, ...] | None = None, lenient: bool = False) -> HostPlan:
    """One host's cases; a host where nothing at all can be measured is a usage error naming it (and why).
    `lenient`: one build of several (select)."""
    answers_link = bool(options.links) or not embedded or len(options.streams) > 1 or len(options.compression) > 1
    plan = plan_cases(options, client, offered, methods, missing, tcp_control=embedded, hostkey_skip=hostkey_skip,
                      compression=compression, lenient=lenient, add_default=answers_link)
    if not plan.measured:
        reasons = list(dict.fromkeys(r.reason for r in plan.records if r.reason))
        why = f" ({reasons[0]})" if len(reasons) == 1 else ""
        raise UsageError(f"nothing to measure on {where}: every selection is empty or not offered there{why} "
                         "(see sshbench algos)")
    return plan
