"""The compression choices, by name: one module each, one line in COMPRESSORS.

A case's `compression` is a canonical choice, `off`, `ssh` or `NAME:LEVEL`
(compressors/base.py); `choice(text)` reads one, `parse_compression` a
`--compression` list.
"""

from __future__ import annotations

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
__all__ = ["COMPRESSORS", "OFF", "SSH", "Choice", "Compressor", "choice", "parse_compression"]
_SPELLING = re.compile(r"([a-z0-9]+)(?::(\d{1,3}))?")


class Choice:
    """A compression choice: the compressor and its level (None for off)."""

    def __init__(self, compressor: Compressor, level: int | None) -> None:
        self.compressor, self.level = compressor, level

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


def choice(text: str, option: str = "--compression") -> Choice:
    """One choice from its spelling (`zstd`, `zstd:1`, `off`); UsageError naming the valid ones."""
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


def parse_compression(text: str) -> tuple[str, ...]:
    """A `--compression` list in canonical form, order kept, duplicates dropped (`off,zstd` -> off, zstd:3)."""
    words = [w for w in (w.strip() for w in text.split(",")) if w]
    if not words:
        raise UsageError(f"--compression needs at least one of {', '.join(COMPRESSORS)}")
    return tuple(dict.fromkeys(choice(word).text for word in words))
