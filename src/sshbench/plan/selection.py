"""From the user's selection (`--ciphers all,-3des-cbc`) to the names to measure, and those skipped with why."""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.targets.discovery import ClientInfo
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind, needs_certificate
from sshbench.vocabulary.errors import UsageError

KEYWORDS = ("all", "default", "none")


@dataclass(frozen=True)
class Selection:
    """Names chosen for one kind: what will be measured, and what is skipped with why."""

    kind: Kind
    measure: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    unoffered: frozenset[str] = frozenset()  # of the skipped, those the server does not offer (their reason says so)


def select(kind: Kind, spec: str, client: ClientInfo, server: AlgorithmLists, lenient: bool = False) -> Selection:
    """Resolve a comma list with `all`, `default`, `none` and `-name` exclusions.

    `all` is everything both sides support; `default` is the client's
    compiled-in preference list. A name the client does not know is a usage
    error (listing the valid ones), or with `lenient` (one build of several,
    whose names were checked against all their clients) a skipped case; one
    the server does not offer becomes a skipped case with its reason, so the
    run goes on.
    """
    supported = client.supported.of(kind)
    chosen: list[str] = []
    excluded: set[str] = set()
    unknown: list[str] = []
    for raw in (part.strip() for part in spec.split(",")):
        if not raw:
            continue
        word = raw.lower()
        if word == "none":
            continue
        if word == "all":
            chosen += [n for n in supported if n in server.of(kind) and _measurable(kind, n)]
        elif word == "default":
            chosen += [n for n in client.defaults.of(kind) if n in supported and _measurable(kind, n)]
        else:
            name = raw[1:] if raw.startswith("-") else raw
            if name not in supported and lenient:
                unknown.append(name)
                continue
            if name not in supported:
                raise UsageError(
                    f"unknown {_LABEL[kind]} {name!r} for this ssh client; valid: "
                    f"{', '.join((*KEYWORDS, *supported))}"
                )
            if raw.startswith("-"):
                excluded.add(name)
            else:
                chosen.append(name)
    unique = [n for n in dict.fromkeys(chosen) if n not in excluded]
    measure = tuple(n for n in unique if n in server.of(kind) and _measurable(kind, n))
    skipped = tuple((n, _skip_reason(kind, n)) for n in unique if n not in measure)
    skipped += tuple((n, "this build's client does not know it") for n in dict.fromkeys(unknown))
    return Selection(kind, measure, skipped, frozenset(n for n in unique if n not in measure and _measurable(kind, n)))


_LABEL = {Kind.CIPHER: "cipher", Kind.MAC: "MAC", Kind.KEX: "key exchange", Kind.HOSTKEY: "host key algorithm"}


def _measurable(kind: Kind, name: str) -> bool:
    return not (kind is Kind.HOSTKEY and needs_certificate(name))


def _skip_reason(kind: Kind, name: str) -> str:
    if not _measurable(kind, name):
        return "needs a certificate or a FIDO token, which the embedded server does not have"
    return "not offered by the server"


