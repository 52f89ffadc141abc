"""Byte sizes in and out.

Parsing follows coreutils (`head -c 1G`), because the hand pipelines sshbench
replaces use it: a bare `K`/`M`/`G`/`T` and the `KiB`/`MiB`/... forms are
powers of 1024, while `KB`/`MB`/`GB`/`TB` are powers of 1000. Inside the tool
sizes are always plain byte counts.
"""

from __future__ import annotations

import re

from sshbench.vocabulary.errors import UsageError

_MULTIPLIERS: dict[str, int] = {"": 1, "b": 1}
for _i, _letter in enumerate("kmgt", start=1):
    _MULTIPLIERS[_letter] = 1024**_i
    _MULTIPLIERS[_letter + "ib"] = 1024**_i
    _MULTIPLIERS[_letter + "b"] = 1000**_i

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")

MiB = 1024**2
GiB = 1024**3


def parse_size(text: str) -> int:
    """Turn '512MiB', '2GB', '1G' or '1048576' into a positive byte count."""
    match = _SIZE_RE.match(text)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _MULTIPLIERS:
        raise UsageError(
            f"bad size {text!r}: use a number with an optional unit, "
            "e.g. 1048576, 512MiB, 2GB or 1G (K/M/G/T and KiB/MiB/GiB are 1024-based, KB/MB/GB are 1000-based)"
        )
    value = float(match.group(1)) * _MULTIPLIERS[unit]
    if value != int(value) or int(value) < 1:
        raise UsageError(f"bad size {text!r}: it must be a whole number of bytes, at least 1")
    return int(value)


def format_bytes(n: float) -> str:
    """Binary-prefixed size for humans: 1.0 GiB, 512 MiB, 300 B."""
    for unit, scale in (("TiB", 1024**4), ("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if abs(n) >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n:.0f} B"


_COUNT = re.compile(r"[0-9]{1,18}")


def parse_count(text: str, option: str, minimum: int = 0) -> int:
    """A whole number from the command line, strictly: ASCII digits only (not "²", "١٢", "1_000", "+3" or "0x10",
    which str.isdigit() or int() would take or choke on), at least `minimum`."""
    word = text.strip()
    if _COUNT.fullmatch(word) is None or int(word) < minimum:
        raise UsageError(f"bad {option} {text!r}: give a whole number of at least {minimum} in digits 0-9")
    return int(word)


def parse_counts(text: str, option: str, minimum: int = 0) -> tuple[int, ...]:
    """A comma list of whole numbers (parse_count each), order kept, duplicates dropped; an empty list is an
    error, as for every list option."""
    words = [w for w in (w.strip() for w in text.split(",")) if w]
    if not words:
        raise UsageError(f"bad {option} {text!r}: give at least one whole number, e.g. {option} 1,4")
    return tuple(dict.fromkeys(parse_count(w, option, minimum) for w in words))
