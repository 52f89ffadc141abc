"""`--build`: which SSH builds a run compares, parsed and validated, and written back the same way.

A build is a client and a server: `stock` (this system's ssh and sshd, or
--ssh/--sshd), the name of a build `make ssh-builds` made (`hpn-ssh-18.8.0`,
`openssh-10.2p1`: under .venv/opt/builds), or the path of any install
prefix (its bin/ holds ssh or hpnssh, its sbin/ sshd or hpnsshd). One value
names both sides; `client=X,server=Y` pairs two (HPN-SSH's larger windows
need only the receiver: `client=hpn-ssh-18.8.0,server=stock`); `label=L`
names it in tables (default: the side's name, `CLIENT>SERVER` for a pair).
Each build's canonical text (`BuildSpec.text`) is what the results record,
and parses back to the same build.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.untrusted import PART_NAME

STOCK = "stock"
MAX_BUILDS = 6  # each is a full set of cases
_SIDE = re.compile(r"[A-Za-z0-9._/+~-]{1,200}")
BUILD_NAME = PART_NAME  # a build's name, as case ids and tables carry it: the rule of every part's name
_HELP = ("use e.g. --build stock --build hpn-ssh-18.8.0 --build client=hpn-ssh-18.8.0,server=stock "
         "(a name `make ssh-builds` made, an install prefix's path, or stock)")


@dataclass(frozen=True)
class BuildSpec:
    """A client and a server side: each `stock`, a build's name, or an install prefix's path."""

    client: str = STOCK
    server: str = STOCK
    label: str = ""

    @classmethod
    def from_text(cls, text: str) -> BuildSpec:
        """The build its canonical text names: how a results file stores it (UsageError otherwise)."""
        return parse_build(text)

    @property
    def name(self) -> str:
        """How tables and case ids name this build."""
        if self.label:
            return self.label
        if self.client == self.server:
            return _short(self.client)
        return f"{_short(self.client)}>{_short(self.server)}"

    @property
    def text(self) -> str:
        """The canonical --build text: parse_build(text) gives this build back."""
        parts = [self.client] if self.client == self.server else [f"client={self.client}", f"server={self.server}"]
        if self.label:
            parts.append(f"label={self.label}")
        return ",".join(parts)


def _short(side: str) -> str:
    return os.path.basename(side.rstrip("/")) if "/" in side else side


def _side(value: str, what: str) -> str:
    if not _SIDE.fullmatch(value) or value.startswith("-"):
        raise UsageError(f"--build {what} {value!r}: {_HELP}")
    return value


def parse_build(text: str) -> BuildSpec:
    """One --build value: `stock`, NAME, PATH, or `client=X,server=Y[,label=L]`."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise UsageError(f"--build is empty: {_HELP}")
    fields: dict[str, str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq:
            key, value = "both", part
        if key not in ("both", "client", "server", "label") or key in fields:
            raise UsageError(f"--build {text!r}: {key!r} is not one of client, server, label (each once): {_HELP}")
        fields[key] = value
    both = fields.get("both")
    if both is not None and ("client" in fields or "server" in fields):
        raise UsageError(f"--build {text!r}: give one side for both, or client= and server=: {_HELP}")
    client = _side(both or fields.get("client", STOCK), "client")
    server = _side(both or fields.get("server", STOCK), "server")
    label = fields.get("label", "")
    if label and not BUILD_NAME.fullmatch(label):
        raise UsageError(f"--build label {label!r}: use letters, digits and . _ - > (no leading '.', no '..'), "
                         "e.g. label=hpn")
    spec = BuildSpec(client, server, label)
    if not BUILD_NAME.fullmatch(spec.name):
        raise UsageError(f"--build {text!r} makes the name {spec.name!r}: give it label=NAME (letters, digits, "
                         ". _ - >; no leading '.', no '..')")
    return spec


def parse_builds(values: list[str] | tuple[str, ...]) -> tuple[BuildSpec, ...]:
    """Every --build given, checked: at most MAX_BUILDS, names unique."""
    specs = tuple(parse_build(v) for v in values)
    check_builds(specs)
    return specs


def check_builds(specs: tuple[BuildSpec, ...]) -> None:
    """At most MAX_BUILDS, names unique (UsageError otherwise)."""
    if len(specs) > MAX_BUILDS:
        raise UsageError(f"--build: {len(specs)} builds; at most {MAX_BUILDS} (each is a full set of cases)")
    names = [s.name for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"--build: two builds are both called {twice[0]!r}: give one label=NAME")
