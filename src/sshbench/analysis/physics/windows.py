"""Receive windows: which side receives, the window it gave one channel, and what a larger one measured.

One SSH channel carries at most its receiver's window per round trip. The
receiver is the server for uploads and the client for downloads: OpenSSH's
ssh, or a --client's (clientparts/) for a download of its case. Each
implementation declares its window (implementations/), each client its own
(clientparts/, kept in the results' `environment.clients`, and each of its
samples has the window its server logged it advertising, which is the one
taken where there is one), each transfer method what it keeps in flight
within it (methods/). A window
variant of an embedded server (`--server dropbear:window=4MiB`, the side
`dropbear-w4194304`) ran with the window its command line set, which its
facts record (EmbeddedFacts.receive_window): every reader of a receiver's
window takes that one, never the implementation's default.

Where a run measured such a variant beside the server at its own window,
what limited the default one is said with what the variant moved instead:
the same case on both sides, a cross pair of the build dimension, stated as
every "X vs Y" is (analysis/comparisons/stated.py: the Hodges-Lehmann ratio, its
interval at the level of the test that decided the run's verdict).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from sshbench.analysis.comparisons.stated import Statements
from sshbench.clientparts import client_part
from sshbench.implementations import Window, by_banner, implementation
from sshbench.methods import method as transfer_method
from sshbench.results.environment import BuildFacts, ServerFacts
from sshbench.results.model import Report
from sshbench.vocabulary.case_terms import Relation


def _set_window(server: ServerFacts | None) -> int | None:
    """The receive window an embedded server's command line set (a window variant), or None (also for a 0 read
    from a results file: no server runs with no window, and it is not a variant)."""
    size = server.embedded.receive_window if server is not None and server.embedded is not None else None
    return size or None


@dataclass(frozen=True)
class Receiver:
    """The receiving side of one direction: who it is as sentences name it, the window it ran with, how a larger
    one is set (empty: it has no such setting), and the sending side's version (its banner's softwareversion)."""

    title: str  # "Dropbear", "OpenSSH"; a client: its name, "dbclient"
    window: Window
    option: str  # "dropbear -W BYTES (up to 10 MB; e.g. -W 4194304)"; a client: its knob's, "dbclient -W BYTES ..."
    sender: str  # the sender's banner softwareversion (HPN-SSH's window caps some); a --client's: its name
    client: str = ""  # a --client that receives (a download of its case): its name; "" for the run's ssh or a server
    knob: str = ""  # ... and its knob that sets the window, as its part names it: "-W", "window_size"


def client_window(report: Report, name: str) -> int | None:
    """The channel window client `name` advertised: as the server logged it in that client's samples (the most
    common value), else as the run declared it (`environment.clients`); None where neither says."""
    ids = {r.case.id for r in report.cases if dict(r.case.dims).get("client") == name}
    logged = Counter(s.client_window_bytes for s in report.samples if s.case_id in ids and s.client_window_bytes)
    if logged:
        return logged.most_common(1)[0][0]
    return next((c.window for c in report.environment.clients if c.name == name and c.window), None)


def _client_receiver(report: Report, name: str, sender: str) -> Receiver:
    part = client_part(name)  # None: a client this sshbench does not know, which a results file may name
    knob = next((k for k in part.knobs if k.window), None) if part is not None else None
    if knob is None:
        return Receiver(name, Window(client_window(report, name)), "", sender, name)
    most = "" if knob.high is None else f" (up to {knob.high >> 20} MiB)" if knob.high % (1 << 20) == 0 \
        else f" (up to {knob.high} bytes)"
    return Receiver(name, Window(client_window(report, name)), knob.how + most, sender, name, knob.name)


def receiver(report: Report, direction: str, build: str = "", client: str = "") -> Receiver:
    """The receiving side, the window it ran with, and the sending side's version. `build`: a side of the run (a
    build, or a server of --server a,b); `client`: the case's --client (Case.dims; "" for the run's ssh)."""
    env = report.environment
    facts = next((b for b in env.builds if b.name == build), None) if build else None
    client_version = facts.client.version if facts else env.client.version
    server = facts.server.version if facts else env.server.version
    if direction != "upload":
        if client:
            return _client_receiver(report, client, server)
        found = by_banner(client_version)
        return Receiver(found.title, found.window, found.window_option, server)
    # the server the run's facts say it ran (a server side's own, as its launcher declared it), or a build's sshd
    own = env.server if facts is None else facts.own.server if facts.own else None
    found = implementation(own.software) if own is not None else by_banner(server)
    size = _set_window(own)
    sender = client or client_version  # a --client's upload: that client sends, not the run's ssh
    return Receiver(found.title, found.window if size is None else Window(size), found.window_option, sender)


def receive_window(report: Report, direction: str, method: str = "pipe", build: str = "",
                   link: str = "", client: str = "") -> int | None:
    """Bytes one transfer may have in flight: the receiver's channel window (the server for uploads, the client for
    downloads: our ssh, or the case's --client as `client` names it), as its implementation grows it (HPN-SSH: to
    the receiving end's TCP buffer over an emulated link, whose limits the run recorded; towards some senders less)
    or as a window variant set it, and for sftp also its requests x buffer; None where the window is not known."""
    found = receiver(report, direction, build, client)
    facts = next((f for f in report.environment.links if f.label == link), None) if link else None
    bytes_for = found.window.bytes_for(facts.tcp_receive_buffer(direction) if facts else None, found.sender)
    window: int | None = transfer_method(method).in_flight(bytes_for)
    return window


def _variants(whole: Report, side: BuildFacts) -> list[BuildFacts]:
    """The window variants of `side`'s server that the run measured beside it (none unless `side` ran at its
    implementation's own window, and that implementation has a window option)."""
    own = side.own
    if own is None or _set_window(own.server) is not None:
        return []
    software = own.server.software
    if implementation(software).window_setting is None:
        return []
    return [b for b in whole.environment.builds if b.own is not None and b.name != side.name
            and b.own.server.software == software and _set_window(b.own.server) is not None]


def variant_ratios(whole: Report, side: str, case_id: str) -> list[str]:
    """What each window variant of server side `side` moved in the same case as `case_id` (a case of `side`), as
    a ratio to it: "dropbear -W 4194304 moved 1.93x [1.71, 2.12] as much here"; none without variants or their
    samples. `whole`: the run with every side (a side's view holds its own cases only)."""
    facts = next((b for b in whole.environment.builds if b.name == side), None)
    joined = whole.joined()
    if facts is None or case_id not in joined:
        return []
    case, base = joined[case_id].case, joined[case_id].summary
    out = []
    statements: Statements | None = None
    for other in _variants(whole, facts):
        assert other.own is not None
        found = joined.get(replace(case, build=other.name).id)
        if base is None or found is None or found.summary is None:
            continue
        statements = statements or Statements(whole)
        stated = statements.of(base.case_id, found.summary.case_id)
        if stated is None:
            continue
        ratio, low, high, relation = stated.ratio, stated.low, stated.high, stated.relation
        setting = implementation(other.own.server.software).window_setting
        assert setting is not None  # _variants: an implementation with a window option
        shown = " ".join([implementation(other.own.server.software).process,
                          *setting.argv(_set_window(other.own.server) or 0)])
        interval = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else " (no interval yet)"
        settled = "" if relation is Relation.DIFFERENT else ", equivalent within the tie margin" \
            if relation is Relation.EQUIVALENT else ", not yet separable"
        out.append(f"{shown} moved {ratio:.2f}x{interval} as much here{settled}")
    return out
