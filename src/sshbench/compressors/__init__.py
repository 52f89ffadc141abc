"""The compression choices, by name: one module each, one line in COMPRESSORS.

A case's `compression` is a canonical choice, `off`, `ssh` or `NAME:LEVEL`
(compressors/base.py); `choice(text)` reads one, `parse_compression` a
`--compression` list.
"""

from __future__ import annotations

import functools
import re

from sshbench.compressors.base import OFF, SSH, Compressor
from sshbench.compressors.gzip import GZIP
from sshbench.compressors.lz4 import LZ4
from sshbench.compressors.off import OFF_COMPRESSOR
from sshbench.compressors.ssh import SSH_COMPRESSOR
from sshbench.compressors.zstd import ZSTD
from sshbench.vocabulary.errors import UsageError

COMPRESSORS: dict[str, Compressor] = {
    OFF: OFF_COMPRESSOR,
    SSH: SSH_COMPRESSOR,
    "zstd": ZSTD,
    "lz4": LZ4,
    "gzip": GZIP,
}
__all__ = ["COMPRESSORS", "OFF", "OFF_CHOICE", "SSH", "Choice", "Compressor", "choice", "compression_help",
           "parse_compression"]
_SPELLING = re.compile(r"([a-z0-9]+)(?::(\d{1,3}))?")


class Choice:
    """A compression choice: the compressor and its level (None for off). Immutable: `choice` shares them."""

    __slots__ = ("compressor", "level")

    def __init__(self, compressor: Compressor, level: int | None) -> None:
        self.compressor, self.level = compressor, level

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Choice) and (other.compressor.name, other.level) == (self.compressor.name, self.level)

    def __hash__(self) -> int:
        return hash((self.compressor.name, self.level))

    def __repr__(self) -> str:
        return f"Choice({self.text!r})"

    @property
    def text(self) -> str:
        """Canonical: `off`, `ssh`, `zstd:3`."""
        if self.compressor.name in (OFF, SSH):
            return self.compressor.name
        return f"{self.compressor.name}:{self.level}"

    @property
    def label(self) -> str:
        """As tables say it: `no compression`, `SSH zlib`, `zstd -3`."""
        if self.compressor.name == OFF:
            return "no compression"
        if self.compressor.name == SSH:
            return "SSH zlib"
        return f"{self.compressor.label} -{self.level}"

    @property
    def external(self) -> bool:
        return self.compressor.external

    @property
    def is_ssh(self) -> bool:
        return self.compressor.name == SSH

    @property
    def is_off(self) -> bool:
        return self.compressor.name == OFF


@functools.lru_cache(maxsize=256)
def choice(text: str, option: str = "--compression") -> Choice:
    """One choice from its spelling (`zstd`, `zstd:1`, `off`); UsageError naming the valid ones.

    A spelling is read once per process and its value shared (a Choice never changes): cases hold their choice
    (results.model.Case.compressor), so "is it external", "is it SSH's" are questions to the value, not parses."""
    found = _SPELLING.fullmatch(text.strip().lower())
    compressor = COMPRESSORS.get(found.group(1)) if found else None
    if found is None or compressor is None:
        raise UsageError(f"bad {option} {text!r}: use {', '.join(COMPRESSORS)}, a list of them, or NAME:LEVEL "
                         "(e.g. zstd:1)")
    level = int(found.group(2)) if found.group(2) else compressor.default_level
    if found.group(2) and compressor.name in (OFF, SSH):
        raise UsageError(f"bad {option} {text!r}: {compressor.name} takes no level (SSH's zlib is level 6, fixed)")
    if level is not None and compressor.levels and not compressor.levels[0] <= level <= compressor.levels[1]:
        low, high = compressor.levels
        raise UsageError(f"bad {option} {text!r}: {compressor.name} levels are {low} to {high}")
    return Choice(compressor, level)


OFF_CHOICE = choice(OFF)  # no compression: what a case without --compression holds


def compression_help() -> str:
    """What --compression takes, from the registry (a new compressor is listed with no other edit)."""
    external = [name for name, c in COMPRESSORS.items() if c.external]
    return (f"{OFF}, {SSH} (SSH's own zlib; what --compression alone means), {', '.join(external)} (in a process of "
            "their own on each end), NAME:LEVEL (" + ", ".join(
                f"{name} {c.levels[0]}-{c.levels[1]}, default {c.default_level}" for name, c in COMPRESSORS.items()
                if c.levels and c.external) + ")")


def parse_compression(text: str) -> tuple[str, ...]:
    """A `--compression` list in canonical form, order kept, duplicates dropped (`off,zstd` -> off, zstd:3)."""
    words = [w for w in (w.strip() for w in text.split(",")) if w]
    if not words:
        raise UsageError(f"--compression needs at least one of {', '.join(COMPRESSORS)}")
    return tuple(dict.fromkeys(choice(word).text for word in words))
