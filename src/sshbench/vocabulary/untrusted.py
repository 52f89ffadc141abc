"""Rules for text sshbench did not write itself: results files, host names, patterns, banners.

Results files are shared between people (that is what `report`, `compare`
and `recommend` are for), so everything in them is treated as hostile, like
a host name typed on the command line or a banner sent by a server. Text
that could reach a command line, a config file, HTML or a terminal passes
one of these checks first:

- free text (versions, CPU model, messages): one line of printable
  characters; no control or invisible formatting characters, so nothing can
  move the terminal's cursor, inject an escape sequence, add a line to a
  config file, or hide one (bidi overrides);
- algorithm names: the characters real SSH implementations use;
- host names, Host patterns, user names and destinations: the characters
  ssh_config and DNS allow, with no whitespace, quotes or config syntax.

Each check raises UntrustedText naming the field and what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import stat
import unicodedata
from typing import Annotated

from sshbench.vocabulary.errors import UsageError

MAX_TEXT = 10_000  # characters in one free-text field
MAX_MULTILINE = 200_000  # characters in a generated config kept in a results file
MAX_NAME = 64  # RFC 4251: algorithm names are at most 64 characters

_ALGORITHM = re.compile(r"[A-Za-z0-9][A-Za-z0-9@._+-]*")
_HOST = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?")
_IPV6 = re.compile(r"[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?:%[A-Za-z0-9_.-]+)?")
_PATTERN = re.compile(r"[A-Za-z0-9_*?](?:[A-Za-z0-9._*?:%-]*)")
_USER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
# A part's name: never a path (no '/', no '..', no leading '.' or '-'); '>' joins a build pair's two sides
PART_NAME = re.compile(r"(?!.*\.\.)[A-Za-z0-9_][A-Za-z0-9._>-]{0,63}")
_FORBIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}  # controls, bidi/zero-width, line separators
_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ASCII_CONTROL_EXCEPT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


class UntrustedText(ValueError):
    """Text that fails a check; str() names the field and the problem."""


def _show(value: object) -> str:
    """A value for an error message: repr (escapes control characters), cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def text(value: object, field: str, multiline: bool = False) -> str:
    """Printable text: no control, format, private-use or unassigned characters (newlines only if asked)."""
    if not isinstance(value, str):
        raise UntrustedText(f"{field} must be text, not {type(value).__name__}")
    limit = MAX_MULTILINE if multiline else MAX_TEXT
    if len(value) > limit:
        raise UntrustedText(f"{field} is {len(value):,} characters long (at most {limit:,})")
    if value.isascii():  # the common case, in one regex pass
        bad = (_ASCII_CONTROL_EXCEPT_NEWLINE if multiline else _ASCII_CONTROL).search(value)
        if bad is None:
            return value
        found = bad.group()
    else:
        found = next((ch for ch in value if unicodedata.category(ch) in _FORBIDDEN_CATEGORIES
                      and not (multiline and ch == "\n")), "")
        if not found:
            return value
    raise UntrustedText(f"{field} contains the control or invisible character U+{ord(found):04X} in "
                        f"{_show(value)}")


def printable(raw: str) -> str:
    """A peer's identification string for display: anything outside printable ASCII becomes '?'."""
    return "".join(ch if " " <= ch <= "~" else "?" for ch in raw)


def shown(value: str) -> str:
    """Text for the terminal as one line that cannot act on it: every control or invisible character
    (an escape sequence's ESC, a newline that would forge a second line, a bidi override) becomes its
    visible escape, `\\x1b`, `\\n`, `\\u202e`. For paths, file names and messages that quote them."""
    if value.isascii() and not _ASCII_CONTROL.search(value):
        return value
    out = []
    for ch in value:
        if ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F or unicodedata.category(ch) in _FORBIDDEN_CATEGORIES:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def algorithm_name(value: object, field: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_NAME or not _ALGORITHM.fullmatch(value):
        raise UntrustedText(f"{field} is not an algorithm name: {_show(value)} (letters, digits and @._+- only, "
                            f"at most {MAX_NAME})")
    return value


def part_name(value: object, field: str) -> str:
    """The name of a part a run measured on: a build or a side (`hpn-ssh-18.8.0`, `stock>hpn-ssh-18.8.0`,
    `dropbear`), an embedded server's launcher or implementation. Case ids, tables and file names carry it."""
    if isinstance(value, str) and PART_NAME.fullmatch(value):
        return value
    raise UntrustedText(f"{field} is not a name: {_show(value)} (letters, digits and . _ - >, at most 64; never a "
                        "path: no '/', no '..', no leading '.' or '-')")


def part_name_or_empty(value: object, field: str) -> str:
    """A part's name, or "" (none: a run that compared no builds, a file from before it was recorded)."""
    return "" if value == "" else part_name(value, field)


def host_name(value: object, field: str) -> str:
    """A DNS name, an ssh_config Host alias, an IPv4 address or an IPv6 literal (without brackets)."""
    if isinstance(value, str) and len(value) <= 253 and (_HOST.fullmatch(value) or _IPV6.fullmatch(value)):
        return value
    raise UntrustedText(f"{field} is not a host name: {_show(value)} (letters, digits, '.', '-', '_', or an "
                        "IP address; no spaces, quotes or other characters)")


def host_pattern(value: object, field: str) -> str:
    """One ssh_config Host pattern: a host name with * and ? wildcards; never a list, negation or syntax."""
    if isinstance(value, str) and len(value) <= 253 and _PATTERN.fullmatch(value):
        return value
    raise UntrustedText(f"{field} is not a Host pattern: {_show(value)} (one host name, '*' and '?' allowed; "
                        "no spaces, quotes, '!' or other characters)")


def user_name(value: object, field: str) -> str:
    if isinstance(value, str) and len(value) <= 64 and _USER.fullmatch(value):
        return value
    raise UntrustedText(f"{field} is not a user name: {_show(value)} (letters, digits, '.', '-', '_')")


def destination(value: object, field: str = "destination") -> tuple[str | None, str, int | None]:
    """[user@]host[:port], host an alias, a name, an IPv4 address or [IPv6]: (user, host, port), all checked."""
    if not isinstance(value, str) or not value:
        raise UntrustedText(f"{field} is empty: use [user@]host[:port] or a Host alias of your ssh config")
    user, at, rest = value.rpartition("@")
    port: int | None = None
    if rest.startswith("["):
        host, bracket, tail = rest[1:].partition("]")
        if not bracket or (tail and not tail.startswith(":")):
            raise UntrustedText(f"{field} {_show(value)}: an IPv6 address goes in brackets, e.g. [::1]:2222")
        port_text = tail[1:] if tail else None
    elif rest.count(":") == 1:
        host, _, port_text = rest.partition(":")
    else:
        host, port_text = rest, None
    if port_text is not None:
        if not port_text.isascii() or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise UntrustedText(f"{field} {_show(value)}: bad port; use host:PORT with PORT 1-65535")
        port = int(port_text)
    return (user_name(user, f"{field}'s user") if at else None), host_name(host, f"{field}'s host"), port


def multiline_text(value: object, field: str) -> str:
    """Text that may span lines (a generated config kept in a results file), otherwise as `text`."""
    return text(value, field, multiline=True)


def destination_text(value: object, field: str) -> str:
    """A destination as the user gave it, checked; the text itself is kept."""
    destination(value, field)
    assert isinstance(value, str)
    return value


# Field types for the records read from results files (schema.py applies the check in the metadata).
AlgorithmName = Annotated[str, algorithm_name]
HostName = Annotated[str, host_name]
Destination = Annotated[str, destination_text]
MultilineText = Annotated[str, multiline_text]
PartName = Annotated[str, part_name]
PartNameOrEmpty = Annotated[str, part_name_or_empty]


def clean(value: str, keep_newlines: bool = False) -> str:
    """Text captured from a tool or a peer (stderr lines, versions), made safe to keep: every character
    `text` would refuse becomes U+FFFD, and it is cut to the length `text` allows, so what sshbench
    writes it can always read back."""
    value = value[:MAX_MULTILINE if keep_newlines else MAX_TEXT]
    if value.isascii() and not (_ASCII_CONTROL_EXCEPT_NEWLINE if keep_newlines else _ASCII_CONTROL).search(value):
        return value
    return "".join(ch if (keep_newlines and ch == "\n") or unicodedata.category(ch) not in _FORBIDDEN_CATEGORIES
                   else "\ufffd" for ch in value)


# A terminal's escape sequences, whole (ECMA-48): CSI (ESC [ or 0x9B, parameters, a final byte: colours, cursor
# moves), the strings OSC/DCS/SOS/PM/APC (ESC ] P X ^ _ or their C1 bytes, up to BEL or ST: a window title), and
# the other two-character ESC sequences
_ESCAPE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
                     r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
                     r"|\x1b[ -/]*[0-~]?")


def stripped(value: str, keep_newlines: bool = False) -> str:
    """Text a host printed for a terminal (a login script's banner, a ForceCommand's title), kept or shown as
    text: its escape sequences removed whole and its other control characters dropped (a tab is a space), where
    `clean` would leave `\\ufffd]0;title\\ufffd`; then `clean` for what is left (a bidi override)."""
    if value.isascii() and not (_ASCII_CONTROL_EXCEPT_NEWLINE if keep_newlines else _ASCII_CONTROL).search(value):
        return value[:MAX_MULTILINE if keep_newlines else MAX_TEXT]
    value = _ESCAPE.sub("", value).replace("\t", " ")
    value = "".join(ch for ch in value if (keep_newlines and ch == "\n") or unicodedata.category(ch) != "Cc")
    return clean(value, keep_newlines)


def read_bounded(path: str, limit: int, prefix: str, too_big: str) -> bytes:
    """The bytes of a file someone else wrote, refused (UsageError, one line) when unreadable, not a regular
    file, or over `limit`.

    Opened without blocking and checked with fstat before any read: a FIFO or a
    device named as a results or policy file would otherwise hang the command
    (opening a FIFO waits for a writer) or read forever (/dev/zero).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise UsageError(f"{prefix}cannot read {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen, which refuses a directory with its own error
        os.close(fd)
        raise UsageError(f"{prefix}{path} is not a regular file (a directory, FIFO, device or socket); give a file")
    with os.fdopen(fd, "rb") as fh:
        try:
            raw = fh.read(limit + 1)
        except OSError as exc:
            raise UsageError(f"{prefix}cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise UsageError(f"{prefix}{path} is larger than {too_big}")
    return raw


def json_value(raw: bytes | str) -> object:
    """JSON that someone else wrote, parsed; ValueError (with a reason to show) for anything that is not.

    Bytes must be UTF-8, only the numbers JSON allows are taken (no NaN or
    Infinity), and nesting deep enough to exhaust Python's recursion (a
    100,000-deep `[[[...]]]` is 200 kB) is a ValueError, not a crash."""
    try:
        return json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw, parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")
