"""From a measured run to ordered algorithm lists that are fast AND safe, and never break a working login.

Rules (docs/configs.md), in order:
1. Only algorithms this run measured, and only those the policy admits
   (analysis/security/policy.py): weak, broken and unknown names never appear.
2. Terrapin: unless both ends offer strict key exchange, chacha20-poly1305
   and CBC ciphers are left out, and the run says plainly when the server
   leaves no protected choice (`exposure`).
3. Order: security first, speed only where proven (analysis/security/ordering.py).
4. Never break a login: the client lines use OpenSSH's `^` form (ours first,
   the client's own defaults kept after them as the fallback) where the client
   has it (OpenSSH 8.2+); HostKeyAlgorithms is left out unless asked for,
   because setting it at all turns off OpenSSH's choice of the host key type
   already in known_hosts.
5. Lock nobody out: the server drop-in is checked against the offers of the
   clients people connect with (clients/, analysis/security/lockout.py); what a client
   that logs in today needs is kept (never weak or broken), unless the user
   asks for the policy's strict lists (`allow_lockout`).

Nothing here touches the system: it returns values; configtext.py makes the
texts, orchestrate/validate.py checks them with the real tools, the CLI prints them.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from sshbench.analysis.config.reuse_advice import ControlDir, reuse_advice
from sshbench.analysis.config.transfer_advice import transfer_advice
from sshbench.analysis.security.lockout import Refusal, Refused, ServerLists, check, keep_in
from sshbench.analysis.security.ordering import (
    ALPHA,
    HANDSHAKE,
    Candidate,
    Evidence,
    Move,
    comparisons,
    order,
    proven_faster,
)
from sshbench.analysis.security.policy import BUILT_IN, Policy, built_in
from sshbench.analysis.security.safety import CHACHA, terrapin_exposed
from sshbench.analysis.stats.stats import counted
from sshbench.clients import ClientOffer, known_clients
from sshbench.implementations import IMPLEMENTATIONS, implementation
from sshbench.results.environment import Environment, ServerKind
from sshbench.results.model import Report
from sshbench.results.views import builds_of
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, AlgorithmLists, Grade, Kind, lookup
from sshbench.vocabulary.buildspec import STOCK
from sshbench.vocabulary.case_terms import Direction
from sshbench.vocabulary.units import GiB

KEYWORDS = {Kind.CIPHER: "Ciphers", Kind.MAC: "MACs", Kind.KEX: "KexAlgorithms", Kind.HOSTKEY: "HostKeyAlgorithms"}
POLICIES = tuple(BUILT_IN)
PREPEND_SINCE = (8, 2)  # OpenSSH 8.2 release notes: a list starting with '^' is put in front of the defaults
# Releases that added strict key exchange (the Terrapin fix); distributions backport it, so the offer decides.
STRICT_KEX_RELEASES = ", ".join(impl.strict_kex_release for impl in IMPLEMENTATIONS.values()
                                if impl.strict_kex_release) + ", or a distribution package with the fix"


@dataclass
class Line:
    """One directive: the names in order, what each measured, and what was left out and why."""

    kind: Kind
    names: list[str]
    figures: dict[str, str]
    dropped: list[tuple[str, str]] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)  # proven speed-ups that overrode the security preference
    written: bool = True  # False: measured and shown in the comments, but not set (HostKeyAlgorithms)
    # Why the client block leaves this directive out though it passes policy: the change it would make to what
    # this client negotiates was not measured against today's choice and proven (the server drop-in, whose
    # point is what may be offered, still takes the list); None: written
    unproven: str | None = None

    @property
    def keyword(self) -> str:
        return KEYWORDS[self.kind]


@dataclass
class Recommendation:
    policy: Policy
    lines: list[Line]
    notes: list[str]
    header: list[str]
    keep_defaults: bool  # the client keeps its own defaults after ours (False: --exact, ours only)
    prepend: bool  # keep_defaults through OpenSSH's `^` (8.2+); older clients get the defaults spelled out
    fallback: AlgorithmLists  # the client's defaults
    software: str  # the server implementation: openssh, dropbear, tinysshd, unknown
    exposure: str | None = None  # one line when the configured connection stays open to Terrapin
    # OpenSSH servers: the drop-in's lists checked against known clients (kept in), and the policy's own
    # lists checked the same way (who they would shut out); `allow_lockout` writes the latter
    server: ServerLists | None = None
    strict: ServerLists | None = None
    allow_lockout: bool = False
    compression: bool = False  # `Compression yes` for this host: SSH's zlib proved faster to it (transfer_advice)
    reuse: tuple[str, ...] = ()  # ControlMaster lines: reusing the connection proved faster (reuse_advice)

    @property
    def dropin(self) -> ServerLists | None:
        """The lists the server drop-in writes."""
        return self.strict if self.allow_lockout else self.server

    @property
    def dropin_withheld(self) -> bool:
        """The drop-in would shut out a client that logs in today, and that was not asked for."""
        return self.server is not None and not self.allow_lockout and bool(self.server.shut_out())

    def written_lines(self) -> list[Line]:
        return [line for line in self.lines if line.names and line.written]

    def client_lines(self) -> list[Line]:
        """The client block's directives: written ones that change nothing without a measured gain."""
        return [line for line in self.written_lines() if line.unproven is None]

    def client_list(self, line: Line) -> list[str]:
        """The list the client ends up with: ours, then (unless --exact) its own defaults."""
        if not self.keep_defaults:
            return list(line.names)
        return line.names + [n for n in self.fallback.of(line.kind) if n not in line.names]


def client_has_prepend(client_version: str) -> bool:
    """`^` lists need OpenSSH 8.2 or later; an unparsable version is treated as too old (spelled out instead)."""
    found = re.search(r"OpenSSH_(\d+)\.(\d+)", client_version)
    return found is not None and (int(found.group(1)), int(found.group(2))) >= PREPEND_SINCE


def config_build(report: Report) -> str:
    """The build a recommendation is for: the system's programs (`stock`) where the run measured them, else the
    first build given ("" for a run without builds). Another build's names may mean nothing to this ssh."""
    names = builds_of(report)
    return "" if not names else STOCK if STOCK in names else names[0]


def measured_candidates(report: Report, kind: Kind) -> dict[str, Candidate]:
    """Measured algorithms of one kind with their per-sample speeds (pipe cases: SSH itself, not a file tool)."""
    out: dict[str, Candidate] = {}
    build = config_build(report)
    # one connection without compression is what an algorithm list changes; a run of only other variants uses those
    plain = any(r.case.plain and r.case.algorithm_kind is kind for r in report.cases)
    for record in report.cases:
        case = record.case
        if case.algorithm_kind is not kind or not case.is_pipe or case.build != build or (plain and not case.plain):
            continue
        samples = counted(report.samples_of(case.id))
        if kind in (Kind.CIPHER, Kind.MAC):  # over emulated links, each link is its own evidence (ordering: all)
            key = Evidence(case.direction, case.link)
            speeds = [v for v in (s.throughput_bytes_per_second for s in samples) if v]
        else:
            key = HANDSHAKE
            speeds = [1 / v for v in (s.handshake_seconds for s in samples) if v and v > 0]
        if speeds:
            candidate = out.setdefault(case.subject, Candidate(case.subject, kind))
            candidate.speeds[key] = speeds
            cost = [c * GiB for c in (s.bottleneck_cpu_per_byte for s in samples) if c]
            if cost and key != HANDSHAKE:
                candidate.costs[key] = cost
    return out


def figure(candidate: Candidate) -> str:
    """What a comment line shows: medians as measured, with the sample counts."""
    parts = []
    for key, speeds in candidate.speeds.items():
        median = statistics.median(speeds)
        if key.direction is None:
            parts.append(f"{1000 / median:.0f} ms handshake (n={len(speeds)})")
        else:
            where = f" at {key.link}" if key.link else ""
            cost = candidate.costs.get(key)
            spent = f", {statistics.median(cost):.2f} CPU s/GiB" if cost else ""
            places = 0 if median >= 100e6 else 1 if median >= 10e6 else 2  # a slow link's 0.41 is not "0"
            way = "up" if key.direction is Direction.UPLOAD else "down"
            parts.append(f"{median / 1e6:,.{places}f} MB/s {way}{where}{spent} (n={len(speeds)})")
    return ", ".join(parts)


def _unknown_here(name: str, kind: Kind, env: Environment) -> str | None:
    """A name this machine's ssh does not know: a build's own (HPN-SSH's chacha20-poly1305-mt@hpnssh.org,
    a newer OpenSSH's key exchange) measured with --build. Every OpenSSH build reads ~/.ssh/config, and one
    unknown name makes the system's ssh refuse the whole file ("Bad SSH2 cipher spec"): every login would
    break. So the config holds only names both know; the results file keeps the measurement."""
    known = env.algorithms.client_supported.of(kind)
    if not known or name in known:
        return None
    return f"unknown to this machine's ssh ({env.client.version.split()[0]}), which reads the same ~/.ssh/config"


def _terrapin_reason(name: str, kind: Kind, strict_both: bool | None) -> str | None:
    if strict_both or kind is not Kind.CIPHER or not (name == CHACHA or name.endswith("-cbc")):
        return None
    return ("Terrapin: strict key exchange not confirmed on both ends" if strict_both is None
            else "Terrapin: no strict key exchange on both ends")


def build(report: Report, policy: Policy | str = "modern", strict_both: bool | None = None, *,
          host_keys: bool = False, exact: bool = False, clients: list[ClientOffer] | None = None,
          allow_lockout: bool = False, control: ControlDir | None = None) -> Recommendation:
    """The recommendation for a run; `strict_both` overrides the run's own Terrapin verdict (tests).

    `clients`: whom the server drop-in must keep able to log in (default: every known client). `control`: the
    machine the config is written on, found there (orchestrate/validate.control_dir); None: the results' answer."""
    policy = built_in(policy) if isinstance(policy, str) else policy
    env = report.environment
    if strict_both is None and env.terrapin is not None:
        strict_both = env.terrapin.protected if env.terrapin.server is not None else None
    lines, notes = [], []
    for kind in ALGORITHM_KINDS:
        measured = measured_candidates(report, kind)
        if not measured:
            notes.append(f"{KEYWORDS[kind]}: not measured in this run, left at the defaults")
            continue
        kept, dropped, terrapin = [], [], False
        for name, candidate in measured.items():
            unknown, exposed = _unknown_here(name, kind, env), _terrapin_reason(name, kind, strict_both)
            why = unknown or exposed or policy.refuses(name, kind)
            if why is None:
                kept.append(candidate)
            else:
                dropped.append((name, why))
                terrapin |= unknown is None and exposed is not None
        names, moves = order(kept, report.options.tie_margin)
        by_name = {c.name: c for c in kept}
        line = Line(kind, names, {n: figure(by_name[n]) for n in names}, dropped, moves,
                    written=kind is not Kind.HOSTKEY or host_keys,
                    unproven=_unproven(report, kind, names, measured, dropped))
        if not names:
            notes.append(f"{line.keyword}: no measured algorithm passes policy {policy.name}"
                         + (" and Terrapin" if terrapin else "")
                         + "; left at the defaults")
        lines.append(line)
    rec = Recommendation(policy, lines, notes, _header(report, policy), not exact,
                         not exact and client_has_prepend(env.client.version), env.algorithms.client_defaults,
                         env.server.software)
    rec.exposure = exposure(report, rec, strict_both)
    transfers = transfer_advice(report)
    rec.compression = transfers.compression
    rec.notes += transfers.notes
    reuse = reuse_advice(report, control)
    rec.reuse = reuse.lines
    rec.notes += reuse.notes
    if implementation(rec.software).reads_sshd_config:  # a drop-in is written: check who it keeps in
        chosen = known_clients() if clients is None else clients
        today = _today(report, chosen)
        lists = {line.kind: line.names for line in rec.written_lines()}
        rec.strict = check(chosen, today, lists)
        rec.server = keep_in(chosen, today, lists, _refusal(policy, report))
        rec.allow_lockout = allow_lockout
    return rec


def _unproven(report: Report, kind: Kind, names: list[str], measured: dict[str, Candidate],
              dropped: list[tuple[str, str]]) -> str | None:
    """Why the client block must not set this list (None: it may). A list whose first name is not what this
    client negotiates today changes the negotiation: it may, where today's choice is one the policy refuses
    (a security fix), or where today's was measured in this run and the order proves the change (ordering.py
    moves a name ahead only on proof); not where today's was never measured (a run of one selected cipher wrote
    `Ciphers ^aes128-gcm@openssh.com`, "now chacha20-poly1305 (not measured)"), nor where it changes nothing."""
    if not names:
        return None
    now = negotiated(list(report.environment.algorithms.client_defaults.of(kind)), list(server_offer(report).of(kind)))
    if now is None or any(name == now for name, _ in dropped):
        return None  # unknown today, or today's is refused: the change is the policy's, not a speed claim
    if names[0] == now:
        return f"this client already negotiates {now} first: nothing to change"
    if now not in measured:
        return (f"this client negotiates {now} today, which this run did not measure, so no change from it is "
                f"proven faster (measure both: --{kind.value}s {now},{names[0]})" if kind is not Kind.KEX else
                f"this client negotiates {now} today, which this run did not measure against {names[0]}")
    if kind is Kind.CIPHER:  # the cipher is a speed choice between safe ones: only a proven gain changes it
        level = 1 - ALPHA / comparisons(list(measured.values()))
        if proven_faster(measured[names[0]], measured[now], report.options.tie_margin, level) is None:
            return (f"{names[0]} is not proven faster than {now}, which this client negotiates today: both are "
                    "safe, so nothing is gained by changing")
    return None


def _today(report: Report, clients: list[ClientOffer]) -> AlgorithmLists:
    """The server's offer now; a kind it did not tell (a proxy hid its KEXINIT) counts as offering what every
    client offers, so every client is assumed to log in today and none may be shut out."""
    offer = server_offer(report)
    return AlgorithmLists(**{k.value: offer.of(k) or tuple(dict.fromkeys(n for c in clients for n in c.of(k)))
                             for k in ALGORITHM_KINDS})


def _refusal(policy: Policy, report: Report) -> Refusal:
    """What may be added back to keep a client in: acceptable grades too (that is the point), never weak,
    broken or unknown, never what the user's policy file forbids, and a Terrapin-affected cipher only where
    the server and that client both have strict key exchange."""
    terrapin = report.environment.terrapin
    server_strict = terrapin is not None and terrapin.server is not None and terrapin.server.strict_kex

    def refuse(name: str, kind: Kind, client: ClientOffer) -> Refused | None:
        grade = lookup(name, kind).grade
        if grade.flagged or grade is Grade.UNKNOWN:
            return Refused(grade.value, lasting=True)
        if name in policy.forbid.get(kind, frozenset()):
            return Refused(f"forbidden by policy {policy.name}")
        allowed = policy.allow.get(kind)
        if allowed is not None and name not in allowed:
            return Refused(f"not allowed by policy {policy.name}")
        if kind is Kind.CIPHER and terrapin_exposed(name, None) and not (server_strict and client.strict_kex):
            return Refused("Terrapin: this client and the server are not both strict", lasting=True)
        return None
    return refuse


def server_offer(report: Report) -> AlgorithmLists:
    """What the measured server offers: a real host's KEXINIT, or what the embedded server would offer with its
    default lists: those of its names it has enabled (for host keys: the keys it holds, so no certificate type;
    its default list names ssh-ed25519-cert-v01 first, which no connection to it negotiates)."""
    algos = report.environment.algorithms
    if report.environment.server.kind is ServerKind.EMBEDDED and any(algos.server_defaults.of(k)
                                                                       for k in ALGORITHM_KINDS):
        return AlgorithmLists(**{k.value: tuple(n for n in algos.server_defaults.of(k)
                                                if not algos.server_enabled.of(k) or n in algos.server_enabled.of(k))
                                 for k in ALGORITHM_KINDS})
    return algos.server_enabled


def negotiated(client: Sequence[str], server: Sequence[str]) -> str | None:
    """SSH picks the first algorithm in the client's list that the server also offers (RFC 4253, 7.1)."""
    offered = set(server)
    return next((name for name in client if name in offered), None)


def _after(rec: Recommendation, kind: Kind) -> list[str]:
    """The client's list for `kind` once the block is applied."""
    line = next((ln for ln in rec.client_lines() if ln.kind is kind), None)
    return rec.client_list(line) if line is not None else list(rec.fallback.of(kind))


def exposure(report: Report, rec: Recommendation, strict_both: bool | None) -> str | None:
    """One line when, with the block applied, the connection would still negotiate a Terrapin-exploitable mode."""
    if strict_both is not False:
        return None  # protected, or unknown (a proxy hid the server's offer): nothing to claim either way
    offer = server_offer(report)
    cipher = negotiated(_after(rec, Kind.CIPHER), offer.cipher)
    mac = negotiated(_after(rec, Kind.MAC), offer.mac)
    if not terrapin_exposed(cipher, mac):
        return None
    server = report.environment.server.version
    safe = [c for c in offer.cipher if c != CHACHA and not c.endswith("-cbc") and lookup(c, Kind.CIPHER).grade
            in BUILT_IN["compatible"]]
    if safe:
        return (f"Terrapin: with policy {rec.policy.name} this connection still negotiates {cipher}, which is "
                f"exploitable without strict key exchange; the server ({server}) also offers {', '.join(safe)}: "
                f"measure and allow {'it' if len(safe) == 1 else 'them'} (--policy compatible), or upgrade the "
                f"server to {STRICT_KEX_RELEASES}")
    return (f"Terrapin: NOT protected, and no client setting can fix it: the server ({server}) offers only "
            f"{', '.join(offer.cipher) or 'unknown ciphers'} and no strict key exchange; on the server, upgrade to "
            f"{STRICT_KEX_RELEASES}")


def prediction(report: Report, rec: Recommendation) -> list[str]:
    """Which cipher and key exchange this client negotiates with this server now and after; only changes."""
    offer = server_offer(report)
    lines = []
    for kind in (Kind.CIPHER, Kind.KEX):
        if not any(ln.kind is kind for ln in rec.client_lines()):
            continue
        now = negotiated(list(rec.fallback.of(kind)), offer.of(kind))
        after = negotiated(_after(rec, kind), offer.of(kind))
        if now == after or after is None:
            continue
        figures = {name: _figure(report, kind, name) for name in (now, after) if name}
        lines.append(f"{KEYWORDS[kind]}: now {now or 'unknown'} ({figures.get(now or '', 'not measured')}); "
                     f"after {after} ({figures[after]})")
    return lines


def _figure(report: Report, kind: Kind, name: str) -> str:
    candidate = measured_candidates(report, kind).get(name)
    return figure(candidate) if candidate else "not measured"


def _header(report: Report, policy: Policy) -> list[str]:
    env = report.environment
    host, client, server = env.host, env.client, env.server
    flags = " ".join(host.crypto_flags)
    masked = " with AES-NI masked (--no-aesni)" if env.crypto and env.crypto.aesni_masked else ""
    source = "" if policy.is_built_in else " (a policy file)"
    return [
        f"sshbench {report.tool_version} recommendation, policy {policy.name}{source}: security first, "
        "a faster algorithm first only where proven, never weak or broken",
        f"measured {report.started_at} on {host.hostname} ({host.cpu_model} x{host.cpu_count}, "
        f"{flags or 'no AES/SHA instructions'}){masked}",
        f"client {client.version}, server {server.version} ({server.label}), {client.openssl}",
    ]
