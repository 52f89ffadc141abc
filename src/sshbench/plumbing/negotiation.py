"""What a connection really negotiated, read from the client's `ssh -v` lines.

A benchmark that trusts the command line measures whatever the peers agreed
on, which is not always what was asked. Every sample parses these lines and
compares them with the request; phase marks (timestamps of key lines as they
arrived) split the connection set-up into TCP, banner, key exchange and
authentication.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Annotated

from sshbench.plumbing.kexinit import software_version
from sshbench.vocabulary.untrusted import UntrustedText

_KEX_RE = re.compile(r"kex: algorithm: (\S+)")
_HOSTKEY_RE = re.compile(r"kex: host key algorithm: (\S+)")
_USERKEY_RE = re.compile(r"Server accepts key: .* (ED25519|ECDSA|RSA|DSA|ECDSA-SK|ED25519-SK) SHA256:")
_DIR_RE = re.compile(r"kex: (client->server|server->client) cipher: (\S+) MAC: (\S+) compression: (\S+)")
_BANNER_RE = re.compile(r"remote software version (.+)$")
_TRANSFERRED_RE = re.compile(r"Transferred: sent (\d+), received (\d+) bytes")
# sshd's debug1 line for a client's session channel (serverloop.c): the window and packet size it advertised
_CHANNEL_OPEN_RE = re.compile(r"server_input_channel_open: ctype session rchan \d+ win (\d+) max (\d+)")
_REFUSED_RE = re.compile(r"Unable to negotiate with .*?: (no matching [^.]+ found)")
# The server turned the connection away before its banner: OpenSSH 8.x+ says why in a banner line (sshd.c,
# "Exceeded MaxStartups"); older ones, Dropbear's MAX_UNAUTH_CLIENTS or a firewall just close or reset it
_MAXSTARTUPS_RE = re.compile(r"kex_exchange_identification: banner line \d+: (Exceeded MaxStartups)")
_CLOSED_EARLY_RE = re.compile(r"(?:kex|ssh)_exchange_identification: (?:read: )?(Connection (?:closed by remote host"
                              r"|reset by peer))")
TURNED_AWAY = "the server turned this connection away before its banner"

# Phase mark -> a substring that identifies the line, in connection order.
PHASE_MARKERS: tuple[tuple[str, str], ...] = (
    ("tcp_connected", "Connection established."),  # absent when a ProxyCommand passes the socket
    ("banner_sent", "Local version string"),
    ("banner_received", "Remote protocol version"),
    ("kexinit_sent", "SSH2_MSG_KEXINIT sent"),
    ("newkeys_received", "SSH2_MSG_NEWKEYS received"),
    # within authentication: where a stall sits says which side waited (analysis/connections/stalls.py)
    ("service_accepted", "SSH2_MSG_SERVICE_ACCEPT received"),
    ("methods_listed", "Authentications that can continue"),  # the server's answer to the first request
    ("key_accepted", "Server accepts key"),
    ("authenticated", "Authenticated to "),
    ("session_open", "Entering interactive session."),
)
PHASE_NAMES = tuple(name for name, _ in PHASE_MARKERS)


def phase_name(value: object, field: str) -> str:
    """A phase mark's name, as PHASE_MARKERS spells it (a results file's marks are untrusted)."""
    if isinstance(value, str) and value in PHASE_NAMES:
        return value
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    raise UntrustedText(f"{field} is not a phase mark sshbench records: {shown} (it records "
                        f"{', '.join(PHASE_NAMES)})")


PhaseName = Annotated[str, phase_name]  # a results file's phase marks are checked against the list (schema.py)


@dataclass(frozen=True)
class Negotiated:
    """Algorithms both directions settled on; MAC is '<implicit>' for AEAD ciphers."""

    kex: str | None = None
    hostkey: str | None = None
    cipher_c2s: str | None = None
    mac_c2s: str | None = None
    cipher_s2c: str | None = None
    mac_s2c: str | None = None
    compression_c2s: str | None = None
    compression_s2c: str | None = None
    server_version: str | None = None
    userkey: str | None = None  # the client key type the server accepted ("ED25519", "RSA"): what logged in

    @property
    def complete(self) -> bool:
        return None not in (self.kex, self.hostkey, self.cipher_c2s, self.cipher_s2c)


@dataclass(frozen=True)
class Transcript:
    negotiated: Negotiated
    phases: dict[str, float] = field(default_factory=dict)
    refused: str | None = None  # "no matching cipher found" when the server refused the request
    # ssh's own count at exit (packets and padding included): bytes sent and received on the wire
    transferred: tuple[int, int] | None = None
    turned_away: str | None = None  # the server closed it before its banner, and why where it said


def turned_away(lines: Iterable[str]) -> str | None:
    """Why the server turned a connection away before its banner, with the setting that explains it; None
    where it did not. A refusal of its own kind: not a failing cipher, not a broken link."""
    closed = None
    for line in lines:
        if _MAXSTARTUPS_RE.search(line):
            return (f"{TURNED_AWAY}: Exceeded MaxStartups (sshd admits at most the first number of its "
                    "MaxStartups, default 10:30:100, unauthenticated connections at once; raise it on the server "
                    "or use fewer --streams)")
        if (m := _CLOSED_EARLY_RE.search(line)) is not None:
            closed = m.group(1)
    if closed is None:
        return None
    return (f"{TURNED_AWAY} ({closed}): most likely a limit of unauthenticated connections at once (sshd's "
            "MaxStartups, Dropbear's MAX_UNAUTH_CLIENTS) or a firewall's rate limit; use fewer --streams")


def client_channel(lines: Iterable[str]) -> tuple[int | None, int | None]:
    """The window and largest packet a client's session channel advertised, as sshd's debug1 log says (the
    server's word of what a client library did); (None, None) where it does not say."""
    found = next((m for line in lines if (m := _CHANNEL_OPEN_RE.search(line))), None)
    return (int(found.group(1)), int(found.group(2))) if found else (None, None)


def parse_verbose(lines: Iterable[tuple[float, str]]) -> Transcript:
    """Parse (arrival time, line) pairs of `ssh -v` stderr; time is seconds since the ssh process started."""
    found: dict[str, str] = {}
    phases: dict[str, float] = {}
    refused: str | None = None
    transferred: tuple[int, int] | None = None
    early: list[str] = []  # the lines that say how the banner exchange ended
    for when, line in lines:
        if "exchange_identification" in line:
            early.append(line)
        for name, marker in PHASE_MARKERS:
            if name not in phases and marker in line:
                phases[name] = when
        if (m := _KEX_RE.search(line)) and "kex" not in found:
            found["kex"] = m.group(1)
        elif (m := _HOSTKEY_RE.search(line)) and "hostkey" not in found:
            found["hostkey"] = m.group(1)
        elif m := _DIR_RE.search(line):  # the last key exchange's: what carried the data (HPN-SSH's NoneSwitch
            suffix = "c2s" if m.group(1) == "client->server" else "s2c"  # rekeys to the none cipher after login)
            found[f"cipher_{suffix}"] = m.group(2)
            found[f"mac_{suffix}"] = m.group(3)
            found[f"compression_{suffix}"] = m.group(4)
        elif (m := _USERKEY_RE.search(line)) and "userkey" not in found:
            found["userkey"] = m.group(1)
        elif (m := _BANNER_RE.search(line)) and "server_version" not in found:
            found["server_version"] = software_version(m.group(1))  # one server, not one "version" per sample
        elif m := _REFUSED_RE.search(line):
            refused = m.group(1)
        elif m := _TRANSFERRED_RE.search(line):
            transferred = (int(m.group(1)), int(m.group(2)))
    return Transcript(negotiated=Negotiated(**found), phases=phases, refused=refused, transferred=transferred,
                      turned_away=turned_away(early))


def parse_text(text: str) -> Transcript:
    """Convenience for recorded transcripts without timestamps."""
    return parse_verbose((0.0, line) for line in text.splitlines())
