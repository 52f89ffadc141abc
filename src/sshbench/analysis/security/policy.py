"""Which algorithms a recommendation may contain: the built-in policies and the user's own policy file.

A policy only ever narrows what sshbench's grades allow: `modern` keeps
recommended algorithms, `compatible` also acceptable ones, and a policy file
(`--policy FILE`, TOML, in the spirit of ssh-audit's policies) starts from one
of those and may forbid names or allow only listed ones. Weak, broken and
unknown names can never be allowed: a file that tries is refused, so a typo
cannot quietly put hmac-sha1 into someone's config.

Format (docs/configs.md):

    name = "site"                 # shown in the config's header
    base = "compatible"           # modern (default) or compatible
    [allow]                       # optional, per kind: only these
    ciphers = ["aes256-gcm@openssh.com", "aes128-gcm@openssh.com"]
    [forbid]                      # optional, per kind: never these
    kex = ["ecdh-sha2-nistp256"]
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sshbench.vocabulary.algorithms import Grade, Kind, lookup
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.untrusted import read_bounded

BUILT_IN = {"modern": (Grade.RECOMMENDED,), "compatible": (Grade.RECOMMENDED, Grade.ACCEPTABLE)}
FILE_KINDS = {"ciphers": Kind.CIPHER, "macs": Kind.MAC, "kex": Kind.KEX, "hostkeys": Kind.HOSTKEY}
MAX_POLICY_BYTES = 64 * 1024
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,40}")  # it goes into a config comment: one short plain word


@dataclass(frozen=True)
class Policy:
    name: str
    grades: tuple[Grade, ...]
    allow: Mapping[Kind, frozenset[str]] = field(default_factory=dict)  # a kind listed here: only these
    forbid: Mapping[Kind, frozenset[str]] = field(default_factory=dict)
    source: str = "built-in"

    def refuses(self, name: str, kind: Kind) -> str | None:
        """Why this policy leaves `name` out, or None when it may appear."""
        grade = lookup(name, kind).grade
        if grade not in self.grades:
            if grade.flagged or grade is Grade.UNKNOWN:
                return grade.value
            return f"{grade.value}, not in policy {self.name}"
        if name in self.forbid.get(kind, frozenset()):
            return f"forbidden by policy {self.name}"
        allowed = self.allow.get(kind)
        if allowed is not None and name not in allowed:
            return f"not allowed by policy {self.name}"
        return None

    @property
    def is_built_in(self) -> bool:
        return self.source == "built-in"


def built_in(name: str) -> Policy:
    return Policy(name, BUILT_IN[name])


def policy_from(value: str) -> Policy:
    """`--policy`: a built-in name, or a path to a TOML policy file (validated; UsageError names the problem)."""
    if value in BUILT_IN:
        return built_in(value)
    if not os.path.isfile(value):
        raise UsageError(f"--policy {value}: not {' or '.join(BUILT_IN)}, and no such policy file; "
                         "give a built-in name or the path of a TOML policy file (docs/configs.md)")
    raw = read_bounded(value, MAX_POLICY_BYTES, "--policy: ", f"{MAX_POLICY_BYTES // 1024} KiB (a policy is short)")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"--policy {value}: not valid TOML ({exc}); see docs/configs.md for the format") from None
    except RecursionError:
        raise UsageError(f"--policy {value}: nested too deeply to be a policy; see docs/configs.md for the "
                         "format") from None
    return _parse(data, value)


def _parse(data: Mapping[str, Any], path: str) -> Policy:
    where = f"--policy {path}"
    unknown = sorted(set(data) - {"name", "base", "allow", "forbid"})
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r}; the keys are name, base, [allow] and [forbid]")
    name = data.get("name", os.path.splitext(os.path.basename(path))[0])
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise UsageError(f"{where}: name must be a short word (letters, digits, - _ .), got {name!r}")
    base = data.get("base", "modern")
    if not isinstance(base, str) or base not in BUILT_IN:
        raise UsageError(f"{where}: base must be {' or '.join(BUILT_IN)}, got {base!r}")
    grades = BUILT_IN[base]
    allow = _lists(data.get("allow", {}), "allow", where, grades)
    forbid = _lists(data.get("forbid", {}), "forbid", where, None)
    return Policy(name, grades, allow, forbid, source=path)


def _lists(table: Any, section: str, where: str, grades: tuple[Grade, ...] | None) -> dict[Kind, frozenset[str]]:
    if not isinstance(table, dict):
        raise UsageError(f"{where}: [{section}] must be a table of lists, e.g. ciphers = [\"aes256-gcm@openssh.com\"]")
    out: dict[Kind, frozenset[str]] = {}
    for key, names in table.items():
        kind = FILE_KINDS.get(key)
        if kind is None:
            raise UsageError(f"{where}: [{section}] {key!r} is not one of {', '.join(FILE_KINDS)}")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise UsageError(f"{where}: [{section}] {key} must be a list of algorithm names")
        for name in names:
            grade = lookup(name, kind).grade
            if grade is Grade.UNKNOWN:
                raise UsageError(f"{where}: [{section}] {key}: {name!r} is not a {kind.value} name sshbench "
                                 "knows; check the spelling (sshbench algos lists them)")
            if grades is not None and grade not in grades:
                raise UsageError(f"{where}: [{section}] {key}: {name} is graded {grade.value}, which base "
                                 f"policy {'compatible' if grades == BUILT_IN['compatible'] else 'modern'} "
                                 "does not admit; sshbench never recommends weak or broken algorithms")
        out[kind] = frozenset(names)
    return out
