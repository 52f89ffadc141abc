"""The texts of a recommendation: the client Host block, the OpenSSH server drop-in, advice for other servers.

Every comment line is one line (control characters become '?'), so nothing
from a results file can end a comment and start a directive; names come
from the algorithm table and are checked once more as they are written.

Who the drop-in shuts out is judged here once per recommendation (Lockout,
checked() for `recommend` and a run's end, kept() for the page a report
writes), so the notes, the lock-out table and the JSON lay out one
verdict instead of negotiating every known client again each.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from sshbench.analysis.config.recommend import KEYWORDS, POLICIES, Line, Recommendation, build, prediction
from sshbench.analysis.config.reuse_advice import UNUSABLE_DIRS
from sshbench.analysis.security.lockout import ServerLists
from sshbench.analysis.security.policy import Policy, built_in
from sshbench.clients import shipped_names
from sshbench.implementations import implementation
from sshbench.results.environment import StoredRecommendation, TerrapinFacts
from sshbench.results.model import Report
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, lookup
from sshbench.vocabulary.untrusted import algorithm_name, destination, host_pattern

HOSTKEY_NOTE = ("HostKeyAlgorithms: not set. Setting it at all (even with ^) turns off ssh's preference for the "
                "host key type already in known_hosts, which can stop a working login with \"REMOTE HOST "
                "IDENTIFICATION HAS CHANGED\"; --host-key-algorithms writes it anyway")
PREPEND_NOTE = ("'^' puts these first and keeps this client's own defaults after them, so a server without them "
                "still connects (OpenSSH 8.2+); --exact writes these lists alone")
SPELLED_NOTE = ("this client's defaults follow ours (the client predates OpenSSH 8.2's '^'), so a server without "
                "them still connects; --exact writes these lists alone")
EXACT_NOTE = "--exact: only these lists; servers that support none of them will be refused"
DROPIN_NOTE = ("restricts what this server offers: clients that support none of these are refused; keep a session "
               "open until a new login works")
def one_line(text: str) -> str:
    """Comment text that cannot end its comment: control characters (a newline above all) become '?'."""
    return "".join("?" if ord(ch) < 0x20 or ord(ch) == 0x7F or ch in "\u2028\u2029\u0085" else ch for ch in text)


def _line_comments(line: Line) -> list[str]:
    out = [] if line.names else [f"{line.keyword}: not set"]
    if line.names:
        title = "" if line.written else " (measured, not set: see below)"
        out.append(f"{line.keyword}{title}, in order (security first; faster first only where proven):")
        width = max(len(n) for n in line.names)
        out += [f"  {n:<{width}}  {line.figures.get(n, 'not measured')}" for n in line.names]
        out += [f"  {m.name} ahead of {m.over}: proven {m.ratio:.2f}x as fast (at least {m.low:.2f}x)"
                for m in line.moves]
    reasons: dict[str, list[str]] = {}
    for name, why in line.dropped:
        reasons.setdefault(why, []).append(name)
    out += [f"  left out ({why}): {', '.join(names)}" for why, names in reasons.items()]
    return out


def comments(rec: Recommendation, server: bool = False) -> list[str]:
    out = list(rec.header)
    for line in rec.lines:
        out += _line_comments(line)
        if line.names and line.written and line.unproven and not server:
            out.append(f"{line.keyword}: not set in this block: {line.unproven}")
    if any(ln.kind.value == "hostkey" and ln.names and not ln.written for ln in rec.lines):
        out.append(HOSTKEY_NOTE)
    if rec.exposure:
        out.append(rec.exposure)
    if server:
        out.append(DROPIN_NOTE)
        out += lockout_notes(rec)
    elif rec.client_lines() or rec.compression:
        out.append(PREPEND_NOTE if rec.prepend else SPELLED_NOTE if rec.keep_defaults else EXACT_NOTE)
    out += rec.notes
    return [f"# {one_line(text)}" for text in out]


def client_directives(rec: Recommendation) -> list[str]:
    """`Keyword ^a,b` (or the spelled-out list); every name is checked once more as it is written."""
    out = []
    for line in rec.client_lines():
        names = line.names if rec.prepend or not rec.keep_defaults else rec.client_list(line)
        text = ",".join(algorithm_name(n, line.keyword) for n in names)
        out.append(f"{line.keyword} {'^' if rec.prepend else ''}{text}")
    if rec.compression:
        out.append("Compression yes")
    return out + list(rec.reuse)


def server_directives(rec: Recommendation) -> list[str]:
    """The drop-in's lists: ours, plus what keeps known clients in (a server's order does not matter; what it
    offers does)."""
    lists = rec.dropin
    written = {line.kind: line.names for line in rec.written_lines()} if lists is None else lists.lists
    return [f"{KEYWORDS[kind]} {','.join(algorithm_name(n, KEYWORDS[kind]) for n in written[kind])}"
            for kind in ALGORITHM_KINDS if written.get(kind)]


def _names(outcomes: list[str]) -> str:
    return ", ".join(outcomes) if len(outcomes) <= 6 else ", ".join(outcomes[:6]) + f" and {len(outcomes) - 6} more"


def lockout_notes(rec: Recommendation) -> list[str]:
    """What the drop-in's comments say about the clients it was checked against (analysis/security/lockout.py)."""
    lists, strict = rec.dropin, rec.strict
    if lists is None or strict is None:
        return []
    out = [f"{KEYWORDS[a.kind]}: also {a.name} ({lookup(a.name, a.kind).grade.value}), so that "
           f"{_names(list(a.clients))} can still log in" for a in lists.additions]
    out += [f"{KEYWORDS[kind]}: not set: {why}" for kind, why in lists.unset.items()]
    pairs = lists.outcomes()
    shut = [after for now, after in pairs if now.connects and not after.connects]
    cannot = [now.client.name for now, _ in pairs if not now.connects]
    verdict = ("each of them that logs in today still can (clients sshbench does not know were not checked: "
               "record yours with sshbench clients record)" if not shut else
               "SHUTS OUT " + "; ".join(f"{o.client.name} ({o.reason})" for o in shut))
    shipped = shipped_names()
    yours = sum(1 for now, _ in pairs if now.client.name not in shipped)
    plural = "" if len(pairs) == 1 else "s"
    whom = (f"{len(pairs)} known client{plural} (sshbench clients list)" if not yours else
            f"{len(pairs)} client{plural} ({len(pairs) - yours} shipped with sshbench: sshbench clients list; "
            f"{yours} of yours)")
    out.append(f"checked against {whom}: {verdict}"
               + (f"; cannot log in to this server today anyway: {_names(cannot)}" if cannot else ""))
    if not rec.allow_lockout and (strict_shut := strict.shut_out()):
        names = ", ".join(o.client.name for o in strict_shut)  # every one: this is what the user decides on
        out.append(f"policy {rec.policy.name}'s lists alone would shut out {names}; `sshbench recommend "
                   "--allow-lockout` writes them")
    return out


class OutcomeRow(NamedTuple):
    """One client in the tables: today and with the drop-in, in words, and what they say as values."""

    name: str
    software: str
    today: str
    with_dropin: str
    logs_in_today: bool
    shut_out: bool  # logs in today, and not with the drop-in


def outcome_rows(lists: ServerLists) -> list[OutcomeRow]:
    """Per client: name, software, today, with the drop-in, for the tables."""
    rows = []
    for now, after in lists.outcomes():
        today = "logs in" if now.connects else f"cannot today: {now.reason}"
        if not now.connects:
            with_dropin = "(cannot log in today)" if not after.connects else f"logs in: {after.summary()}"
        else:
            with_dropin = f"logs in: {after.summary()}" if after.connects else f"SHUT OUT: {after.reason}"
        rows.append(OutcomeRow(now.client.name, now.client.software, today, with_dropin, now.connects,
                               now.connects and not after.connects))
    return rows


@dataclass(frozen=True)
class Lockout:
    """Who can log in to an OpenSSH server with a recommendation's drop-in, client by client."""

    rows: tuple[OutcomeRow, ...]
    strict: bool  # the rows are for the policy's own lists (--allow-lockout), not the drop-in's kept-in ones

    @property
    def shut_out(self) -> tuple[str, ...]:
        """The clients that log in today and would not with the drop-in, in the rows' order."""
        return tuple(row.name for row in self.rows if row.shut_out)


def lockout(rec: Recommendation) -> Lockout | None:
    """The drop-in's lists against every client checked (None: no drop-in, a server that reads no sshd_config)."""
    lists = rec.dropin
    return None if lists is None else Lockout(tuple(outcome_rows(lists)), rec.allow_lockout)


def client_block(rec: Recommendation, host: str = "*") -> str:
    """An ssh_config Host block; put it at the end of ~/.ssh/config (first match wins in ssh_config).

    `host` must be one plain Host pattern (untrusted.host_pattern): a newline or
    quote in it would let whoever chose it add config lines (`Match exec ...`).
    """
    host_pattern(host, "the Host pattern")
    directives = client_directives(rec)
    if not directives:  # nothing measured changes the client's defaults (e.g. a tinysshd run): no empty block
        return "\n".join(comments(rec)) + f"\n# nothing to add for Host {host}: this client's defaults stay\n"
    body = "".join(f"    {d}\n" for d in directives)
    return "\n".join(comments(rec)) + f"\nHost {host}\n{body}"


def block_host(rec: Recommendation, host: str = "*") -> str | None:
    """The Host pattern client_block(rec, host) writes a block for; None where it writes none (nothing to add)."""
    return host if client_directives(rec) else None


def server_dropin(rec: Recommendation) -> str | None:
    """An sshd_config.d drop-in for a server that reads sshd_config (OpenSSH, HPN-SSH); None for the others."""
    if not implementation(rec.software).reads_sshd_config:
        return None
    return "\n".join(comments(rec, server=True)) + "\n" + "".join(f"{d}\n" for d in server_directives(rec))


def server_advice(rec: Recommendation) -> str | None:
    """For a server that is not OpenSSH: how it chooses its algorithms, instead of a drop-in."""
    return implementation(rec.software).config_advice


def stored_if_consistent(report: Report) -> StoredRecommendation | None:
    """The recommendation a run kept, but only if this file's own measurements produce exactly that text.

    A results file may come from anyone. Its data can only ever produce
    directives built from graded algorithm names and one-line comments; a
    stored config text that differs from what the data produces (edited, or
    written by another sshbench version) is never shown. The prediction is
    recomputed from the data too. The run's machine decided whether the
    ControlMaster lines could be written there (a fact the file does not
    hold), so each of its possible answers is tried.
    """
    stored = report.recommendation
    if stored is None or stored.policy not in POLICIES:
        return None
    destination_text = report.environment.server.destination
    pattern = destination(destination_text)[1] if destination_text else "*"
    for rec in _answers(report, built_in(stored.policy)):
        client, server = client_block(rec, pattern), server_dropin(rec) or ""
        if client == stored.client_block and server == stored.server_dropin:
            return StoredRecommendation(rec.policy.name, client, server, prediction(report, rec))
    return None


def _answers(report: Report, policy: Policy) -> Iterator[Recommendation]:
    """The recommendations a run's machine could have written from its data: with the ControlMaster lines, or
    without them for each reason a machine gives."""
    rec = build(report, policy)
    yield rec
    if rec.reuse:
        yield from (build(report, policy, control=control) for control in UNUSABLE_DIRS)


@dataclass
class CheckedRecommendation:
    """A recommendation with its texts and what validation found; show the texts only without problems."""

    rec: Recommendation
    client_text: str
    server_text: str | None  # the OpenSSH drop-in; None for servers that read no sshd_config
    server_advice: str | None  # for those servers: how they choose their algorithms
    problems: list[str]
    prediction: list[str]
    terrapin: TerrapinFacts | None
    host: str | None  # the Host pattern the client block is for (block_host); None: it writes no block
    lockout: Lockout | None  # who logs in with the drop-in's lists (None: no drop-in)
    lockout_notes: tuple[str, ...]  # what the drop-in's comments say of the clients it was checked against
    dropin_withheld: bool  # the drop-in would shut out a client that logs in today, and that was not asked for
    # the drop-in's directives alone (server_directives): the terminal shows them under its notes, without the
    # comment header, and never has to pick them out of server_text again
    server_directives: tuple[str, ...] = ()


def checked(rec: Recommendation, client_text: str, server_text: str | None, problems: list[str],
            predicted: list[str], terrapin: TerrapinFacts | None, host: str | None) -> CheckedRecommendation:
    """A recommendation with its validated texts, and who its drop-in shuts out, judged once for every output."""
    return CheckedRecommendation(rec, client_text, server_text, server_advice(rec), problems, predicted, terrapin,
                                 host, lockout(rec), tuple(lockout_notes(rec)), rec.dropin_withheld,
                                 tuple(server_directives(rec)) if server_text is not None else ())


@dataclass(frozen=True)
class KeptRecommendation:
    """The recommendation a run (or one server of it) kept, as a report's page shows it: only where the file's own
    measurements produce it (stored_if_consistent), with who its drop-in lets in."""

    server: str  # --server a,b: the server it is for ("": the run's one server)
    software: str  # that server's implementation: where its drop-in goes
    stored: StoredRecommendation | None  # None: none kept, or one the data do not produce
    withheld: bool  # one was kept, and the data do not produce it: said so instead
    lockout: Lockout | None


def kept(report: Report, server: str = "") -> KeptRecommendation:
    """What `report` (a run, or one server's view of it) kept, checked against its data once."""
    stored = stored_if_consistent(report)
    return KeptRecommendation(server, report.environment.server.software, stored,
                              report.recommendation is not None and stored is None,
                              lockout(build(report, built_in(stored.policy))) if stored else None)
