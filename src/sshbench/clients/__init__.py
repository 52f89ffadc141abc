"""The SSH clients people really connect with, as data: what each offers in its first KEXINIT.

A server config can only be judged against the clients that will use it. A
drop-in that passes `sshd -t` can still shut out every paramiko, Go or
older OpenSSH client (no common key exchange), and the sysadmin learns it
from an outage. So sshbench keeps the *offer* of real clients: each file in
`offers/` was recorded by connecting that client to a listener that reads
its banner and KEXINIT and hangs up (`sshbench clients record`, the way
`ssh-audit -c` audits a client; scripts/record_clients.py re-records them
all), and says which build, where it came from and when. analysis/security/lockout.py
computes, for a proposed server config, which of them still connect and
with what.

A user's own recording (`--clients FILE`) is untrusted input like a results
file: bounded, a regular file only, every name checked (results/schema.py).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Literal

from sshbench.results.schema import SchemaError, build
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind, lookup
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.untrusted import AlgorithmName, json_value, read_bounded

FORMAT = 1
MAX_OFFER_BYTES = 256 * 1024
_NAME = re.compile(r"[a-z0-9][a-z0-9._+-]{0,47}")


def offer_name(value: object, field: str) -> str:
    """A client's short name: what `--clients` and the tables use (lower case, no spaces)."""
    if isinstance(value, str) and _NAME.fullmatch(value):
        return value
    raise SchemaError(f"{field} must be a short lower-case name (a-z, 0-9, . _ + -), got {value!r}")


@dataclass(frozen=True)
class ClientOffer:
    """One client's first KEXINIT, with where it came from.

    `mac_with_aead`: whether this client also needs a MAC in common with the
    server when an AEAD cipher (AES-GCM, chacha20-poly1305) is chosen, whose
    MAC is implicit. OpenSSH, Dropbear, PuTTY and AsyncSSH skip the MAC
    then; paramiko refuses the connection ("no acceptable macs"). Observed
    per client against a real sshd (docs/configs.md); an unrecorded client
    is assumed to need one, which can only make the check stricter.
    """

    name: Annotated[str, offer_name]
    software: str  # "paramiko 5.1.0", shown in tables
    banner: str  # the identification string it sent
    source: str  # how and when it was recorded, or which document its lists come from
    origin: Literal["recorded", "documented"]
    kex: tuple[AlgorithmName, ...]
    hostkey: tuple[AlgorithmName, ...]
    cipher_c2s: tuple[AlgorithmName, ...]
    cipher_s2c: tuple[AlgorithmName, ...]
    mac_c2s: tuple[AlgorithmName, ...]
    mac_s2c: tuple[AlgorithmName, ...]
    mac_with_aead: bool = True
    used_by: str = ""  # who ships it, for the table ("Ansible's paramiko connection, Fabric")
    format: int = FORMAT

    @property
    def kex_algorithms(self) -> tuple[str, ...]:
        """Key exchanges without capability markers (ext-info-c, kex-strict-c-v00@openssh.com)."""
        return tuple(n for n in self.kex if not lookup(n, Kind.KEX).marker)

    @property
    def strict_kex(self) -> bool:
        return "kex-strict-c-v00@openssh.com" in self.kex

    def of(self, kind: Kind) -> tuple[str, ...]:
        """Every name of one kind it offers (both directions), in its own order."""
        if kind is Kind.KEX:
            return self.kex_algorithms
        if kind is Kind.HOSTKEY:
            return self.hostkey
        pair = (self.cipher_c2s, self.cipher_s2c) if kind is Kind.CIPHER else (self.mac_c2s, self.mac_s2c)
        return tuple(dict.fromkeys((*pair[0], *pair[1])))

    @property
    def lists(self) -> AlgorithmLists:
        return AlgorithmLists(*(self.of(k) for k in (Kind.CIPHER, Kind.MAC, Kind.KEX, Kind.HOSTKEY)))

    def to_json(self) -> str:
        body = {"format": self.format, "name": self.name, "software": self.software, "banner": self.banner,
                "source": self.source, "origin": self.origin, "used_by": self.used_by,
                "mac_with_aead": self.mac_with_aead, "kex": self.kex, "hostkey": self.hostkey,
                "cipher_c2s": self.cipher_c2s, "cipher_s2c": self.cipher_s2c, "mac_c2s": self.mac_c2s,
                "mac_s2c": self.mac_s2c}
        return json.dumps(body, indent=1) + "\n"


def parse_offer(raw: bytes, where: str) -> ClientOffer:
    """A recorded offer from JSON bytes; UsageError names the file and the field when it is not one."""
    try:
        data = json_value(raw)
    except ValueError as exc:
        raise UsageError(f"{where}: not a client recording ({exc}); make one with `sshbench clients record`") \
            from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{where}: not a client recording of format {FORMAT}; make one with "
                         "`sshbench clients record`")
    try:
        return build(ClientOffer, data, "client")
    except SchemaError as exc:
        raise UsageError(f"{where}: {exc}") from None


def known_clients() -> list[ClientOffer]:
    """The recorded and documented clients shipped with sshbench, by name."""
    found = []
    for entry in resources.files(__package__).joinpath("offers").iterdir():
        if entry.name.endswith(".json"):
            found.append(parse_offer(entry.read_bytes(), f"sshbench's {entry.name}"))
    return sorted(found, key=lambda c: c.name)


def load_offer_file(path: str) -> ClientOffer:
    """A user's recording: a regular file, at most MAX_OFFER_BYTES, checked field by field."""
    raw = read_bounded(path, MAX_OFFER_BYTES, "--clients: ", f"{MAX_OFFER_BYTES // 1024} KiB")
    return parse_offer(raw, f"--clients {path}")


def _directory(path: str, warn: Callable[[str], None]) -> list[ClientOffer]:
    """The recordings in a directory (*.json, regular files, the first 200 by name): a file that is not one is
    named in a warning and skipped, never the end of the check; a directory that yields none is an error."""
    found = []
    try:
        names = sorted(os.listdir(path))[:200]
    except OSError as exc:
        raise UsageError(f"--clients {path}: cannot read that directory ({exc.strerror or exc})") from None
    for name in names:
        file = os.path.join(path, name)
        if not name.endswith(".json"):
            continue
        try:
            if not os.path.isfile(file):
                raise UsageError(f"--clients {file}: not a regular file (a link loop, or a directory)")
            found.append(load_offer_file(file))
        except UsageError as exc:
            warn(f"sshbench: warning: skipped {exc}")
    if not found:
        raise UsageError(f"--clients {path}: no client recording in that directory (*.json made by `sshbench clients "
                         "record`)")
    return found


def _add_yours(yours: dict[str, ClientOffer], offer: ClientOffer, known: list[ClientOffer], where: str) -> None:
    """A recording of the user's own, refused where its name is a shipped client's (it would silently replace
    it: "checked against 28 clients" with one of them not what sshbench recorded)."""
    if any(c.name == offer.name for c in known):
        raise UsageError(f"--clients {where}: its name {offer.name!r} is a client sshbench ships; record yours under "
                         "another name (sshbench clients record NAME), e.g. " + f"{offer.name}-mine")
    yours[offer.name] = offer


def select_clients(specs: str | list[str] | None, known: list[ClientOffer] | None = None,
                   warn: Callable[[str], None] | None = None) -> list[ClientOffer]:
    """`--clients`, given once or more (the values combine): comma lists of `all` (every known client),
    `none`, a known name or the start of one (`openssh` = every OpenSSH), `-NAME` to leave one out, or a
    path to a recording or a directory of them (*.json).

    Recordings of your own add to the known clients unless a selector of known clients is given (`all`,
    `none`, a name): `--clients mine.json` checks every known client and yours; `--clients none,mine.json`
    yours alone. An empty value is an error, never "nobody"."""
    known = known_clients() if known is None else known
    if specs is None:
        return known
    shipped: dict[str, ClientOffer] | None = None  # None: no selector of known clients given (so: all of them)
    yours: dict[str, ClientOffer] = {}
    excluded: set[str] = set()
    for spec in [specs] if isinstance(specs, str) else specs:
        words = [part.strip() for part in spec.split(",")]
        if not any(words):
            raise UsageError(f"--clients {spec!r}: give all, none, known client names (sshbench clients list), "
                             "-NAME to leave one out, or a recording's path")
        for raw in (w for w in words if w):
            lower = raw.lower()
            if lower in ("none", "all"):
                shipped = {**(shipped or {}), **({c.name: c for c in known} if lower == "all" else {})}
            elif os.path.isdir(raw):
                for offer in _directory(raw, warn or (lambda line: None)):
                    _add_yours(yours, offer, known, raw)
            elif raw.endswith(".json") or os.sep in raw:
                _add_yours(yours, load_offer_file(raw), known, raw)
            else:
                word = raw[1:] if raw.startswith("-") else raw
                matches = [c for c in known if c.name == word or c.name.startswith(word.lower())]
                if not matches:
                    raise UsageError(f"--clients: no known client {word!r}; known: "
                                     f"{', '.join(c.name for c in known)}, all, none, or a recording's path "
                                     "(sshbench clients list)")
                if raw.startswith("-"):
                    excluded.update(c.name for c in matches)
                else:
                    shipped = {**(shipped or {}), **{c.name: c for c in matches}}
    chosen = {**({c.name: c for c in known} if shipped is None else shipped), **yours}
    return [c for name, c in sorted(chosen.items()) if name not in excluded]


def shipped_names() -> frozenset[str]:
    """The names of the clients sshbench ships recordings of (a user's own are the others)."""
    return frozenset(c.name for c in known_clients())
