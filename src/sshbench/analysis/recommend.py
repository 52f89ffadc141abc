"""From a measured run to ordered algorithm lists, a client Host block and an sshd drop-in.

Rules, in order:
1. Only algorithms this run measured successfully, graded recommended (policy
   `modern`) or recommended/acceptable (policy `compatible`). Weak, broken and
   unknown names never appear, however fast they were.
2. chacha20-poly1305 only when both ends offer strict key exchange (Terrapin).
3. Fastest first: ciphers and MACs by median throughput (mean of the
   directions measured), key exchanges and host keys by handshake time. When
   two neighbours' intervals overlap, the lower CPU cost goes first.
4. Post-quantum key exchanges first, whatever their speed.

Nothing here touches the system: it returns text; the CLI prints and writes files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sshbench.algorithms import ALGORITHM_KINDS, AlgorithmLists, Grade, Kind, lookup
from sshbench.results.environment import ServerKind, StoredRecommendation
from sshbench.results.model import Report, Stat, Summary
from sshbench.results.untrusted import algorithm_name, destination, host_pattern

POST_QUANTUM = ("mlkem768x25519-sha256", "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
                "mlkem768nistp256-sha256")
KEYWORDS = {Kind.CIPHER: "Ciphers", Kind.MAC: "MACs", Kind.KEX: "KexAlgorithms", Kind.HOSTKEY: "HostKeyAlgorithms"}
POLICIES = {"modern": (Grade.RECOMMENDED,), "compatible": (Grade.RECOMMENDED, Grade.ACCEPTABLE)}


@dataclass
class Choice:
    """One algorithm's measured standing, enough to order it and explain the order."""

    name: str
    speed: float  # bigger is better: bytes/s, or 1 / handshake seconds
    low: float  # the speed interval's ends (equal to speed when unknown)
    high: float
    cpu: float  # CPU seconds per GiB (both sides) or per connection; tie-breaker
    figure: str  # what the comment line shows, e.g. "821 MB/s up, 1,000 MB/s down"


@dataclass
class Line:
    keyword: str
    names: list[str]
    figures: dict[str, str]
    dropped: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Recommendation:
    policy: str
    lines: list[Line]
    notes: list[str]
    header: list[str]

    def directives(self) -> list[str]:
        """`Keyword name,name`; names come from the knowledge table's graded entries, checked once more."""
        return [f"{line.keyword} {','.join(algorithm_name(n, line.keyword) for n in line.names)}"
                for line in self.lines if line.names]


def _cases(report: Report, kind: Kind) -> dict[str, list[Summary]]:
    out: dict[str, list[Summary]] = {}
    for summary in report.summaries:
        case = report.case(summary.case_id).case
        # the pipe measures SSH itself; file tools add their own costs, which no ssh setting changes
        if case.algorithm_kind is kind and case.is_pipe and summary.samples_ok:
            out.setdefault(case.subject, []).append(summary)
    return out


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items)


def _interval(stat: Stat) -> tuple[float, float]:
    return (stat.ci_low if stat.ci_low is not None else stat.median,
            stat.ci_high if stat.ci_high is not None else stat.median)


def _throughput_choice(name: str, summaries: list[Summary], report: Report) -> Choice | None:
    stats = [(report.case(s.case_id).case.direction.value, s) for s in summaries if s.throughput_bytes_per_second]
    if not stats:
        return None
    tputs = [s.throughput_bytes_per_second for _, s in stats if s.throughput_bytes_per_second]
    cpu = _mean((s.client_cpu_seconds_per_gib.median if s.client_cpu_seconds_per_gib else 0.0)
                + (s.server_cpu_seconds_per_gib.median if s.server_cpu_seconds_per_gib else 0.0) for _, s in stats)
    figure = ", ".join(f"{s.throughput_bytes_per_second.median / 1e6:,.0f} MB/s {'up' if d == 'upload' else 'down'}"
                       for d, s in stats if s.throughput_bytes_per_second)
    return Choice(name, _mean(t.median for t in tputs), _mean(_interval(t)[0] for t in tputs),
                  _mean(_interval(t)[1] for t in tputs), cpu, figure)


def _handshake_choice(name: str, summaries: list[Summary]) -> Choice | None:
    stat = summaries[0].handshake_seconds
    if stat is None or stat.median <= 0:
        return None
    low, high = _interval(stat)
    cpu = sum(x.median for x in (summaries[0].client_cpu_seconds, summaries[0].server_cpu_seconds) if x)
    return Choice(name, 1 / stat.median, 1 / high if high else 0.0, 1 / low if low else 0.0, cpu,
                  f"{stat.median * 1000:.0f} ms handshake")


def order(choices: list[Choice]) -> list[Choice]:
    """Fastest first; where neighbours' intervals overlap, the cheaper in CPU goes first."""
    ordered = sorted(choices, key=lambda c: (-c.speed, c.name))
    for _ in range(len(ordered)):
        swapped = False
        for i in range(len(ordered) - 1):
            a, b = ordered[i], ordered[i + 1]
            overlap = a.low <= b.high and b.low <= a.high
            if overlap and b.cpu < a.cpu:
                ordered[i], ordered[i + 1] = b, a
                swapped = True
        if not swapped:
            break
    return ordered


def build(report: Report, policy: str = "modern", strict_both: bool | None = None) -> Recommendation:
    """The recommendation for a run; `strict_both` is the Terrapin verdict (None when unknown)."""
    allowed = POLICIES[policy]
    lines, notes = [], []
    for kind in ALGORITHM_KINDS:
        measured = _cases(report, kind)
        if not measured:
            notes.append(f"{KEYWORDS[kind]}: not measured in this run, left at OpenSSH's defaults")
            continue
        choices, dropped = [], []
        for name, summaries in measured.items():
            grade = lookup(name, kind).grade
            if grade not in allowed:
                dropped.append((name, grade.value if grade.flagged or grade is Grade.UNKNOWN
                                 else f"{grade.value}, not in policy {policy}"))
                continue
            if name == "chacha20-poly1305@openssh.com" and not strict_both:
                dropped.append((name, "Terrapin: strict key exchange not confirmed on both ends"))
                continue
            choice = (_throughput_choice(name, summaries, report) if kind in (Kind.CIPHER, Kind.MAC)
                      else _handshake_choice(name, summaries))
            if choice is not None:
                choices.append(choice)
        ordered = order(choices)
        if kind is Kind.KEX:
            ordered = sorted(ordered, key=lambda c: c.name not in POST_QUANTUM)  # stable: PQ first, each in order
        line = Line(KEYWORDS[kind], [c.name for c in ordered], {c.name: c.figure for c in ordered}, dropped)
        if not line.names:
            notes.append(f"{KEYWORDS[kind]}: no measured algorithm passes policy {policy}; left at OpenSSH's defaults")
        lines.append(line)
    if policy == "modern":
        notes.append("policy modern: peers that lack these (e.g. servers with only an RSA host key, or "
                     "OpenSSH before 8.5 without sntrup761) will be refused; --policy compatible keeps them")
    return Recommendation(policy, lines, notes, _header(report, policy))


def _header(report: Report, policy: str) -> list[str]:
    env = report.environment
    host, client, server = env.host, env.client, env.server
    flags = " ".join(host.crypto_flags)
    masked = " with AES-NI masked (--no-aesni)" if env.crypto and env.crypto.aesni_masked else ""
    return [
        f"sshbench {report.tool_version} recommendation, policy {policy}: fastest first, never weak or broken",
        f"measured {report.started_at} on {host.hostname} ({host.cpu_model} x{host.cpu_count}, "
        f"{flags or 'no AES/SHA instructions'}){masked}",
        f"client {client.version}, server {server.version} ({server.label}), {client.openssl}",
    ]


def _one_line(text: str) -> str:
    """Comment text that cannot end its comment: control characters (a newline above all) become '?'."""
    return "".join("?" if ord(ch) < 0x20 or ord(ch) == 0x7F or ch in "\u2028\u2029\u0085" else ch for ch in text)


def _comments(rec: Recommendation) -> list[str]:
    out = [f"# {_one_line(line)}" for line in rec.header]
    for line in rec.lines:
        if line.names:
            out.append(f"# {line.keyword}, fastest first (ties broken by CPU cost):")
            width = max(len(n) for n in line.names)
            out += [f"#   {n:<{width}}  {line.figures.get(n, 'not measured')}" for n in line.names]
        reasons: dict[str, list[str]] = {}
        for name, why in line.dropped:
            reasons.setdefault(why, []).append(name)
        out += [f"#   left out ({why}): {', '.join(names)}" for why, names in reasons.items()]
    out += [f"# {note}" for note in rec.notes]
    return [_one_line(line) for line in out]


def client_block(rec: Recommendation, host: str = "*") -> str:
    """An ssh_config Host block; put it at the end of ~/.ssh/config (first match wins in ssh_config).

    `host` must be one plain Host pattern (untrusted.host_pattern): a newline or
    quote in it would let whoever chose it add config lines (`Match exec ...`).
    """
    host_pattern(host, "the Host pattern")
    body = "\n".join(f"    {d}" for d in rec.directives())
    return "\n".join(_comments(rec)) + f"\nHost {host}\n{body}\n"


def server_dropin(rec: Recommendation) -> str:
    """An sshd_config.d drop-in (e.g. /etc/ssh/sshd_config.d/50-sshbench.conf)."""
    return "\n".join(_comments(rec)) + "\n" + "\n".join(rec.directives()) + "\n"


def negotiated(client: Iterable[str], server: Iterable[str]) -> str | None:
    """SSH picks the first algorithm in the client's list that the server also offers."""
    offered = set(server)
    return next((name for name in client if name in offered), None)


def prediction(report: Report, rec: Recommendation, server_defaults: AlgorithmLists | None) -> list[str]:
    """Which cipher and key exchange the defaults negotiate now, and which after the change, with speeds."""
    algos = report.environment.algorithms
    client_defaults = algos.client_defaults
    server_defaults = server_defaults or algos.server_defaults or client_defaults
    lines = []
    for kind in (Kind.CIPHER, Kind.KEX):
        rec_line = next((line for line in rec.lines if line.keyword == KEYWORDS[kind] and line.names), None)
        if rec_line is None:
            continue
        now = negotiated(client_defaults.of(kind), server_defaults.of(kind))
        after = negotiated(rec_line.names, rec_line.names)
        measured = {name: _figure(report, kind, name) for name in (now, after) if name}
        lines.append(f"{KEYWORDS[kind]}: now {now or 'unknown'} ({measured.get(now or '', 'not measured')}); "
                     f"after {after} ({measured.get(after or '', 'not measured')})")
    return lines


def _figure(report: Report, kind: Kind, name: str) -> str:
    summaries = _cases(report, kind).get(name)
    if not summaries:
        return "not measured"
    choice = (_throughput_choice(name, summaries, report) if kind in (Kind.CIPHER, Kind.MAC)
              else _handshake_choice(name, summaries))
    return choice.figure if choice else "not measured"


def stored_if_consistent(report: Report) -> StoredRecommendation | None:
    """The recommendation a run kept, but only if this file's own measurements produce exactly that text.

    A results file may come from anyone. Its data can only ever produce
    directives built from graded algorithm names and one-line comments; a
    stored config text that differs from what the data produces (edited, or
    written by another sshbench version) is never shown. The prediction is
    recomputed from the data too.
    """
    stored = report.recommendation
    if stored is None or stored.policy not in POLICIES:
        return None
    env = report.environment
    destination_text = env.server.destination
    pattern = destination(destination_text)[1] if destination_text else "*"
    rec = build(report, stored.policy, strict_both=env.terrapin.protected if env.terrapin else None)
    client, server = client_block(rec, pattern), server_dropin(rec)
    if client != stored.client_block or server != stored.server_dropin:
        return None
    algos = env.algorithms
    defaults = algos.server_enabled if env.server.kind is ServerKind.REMOTE else algos.server_defaults
    return StoredRecommendation(rec.policy, client, server, prediction(report, rec, defaults))
