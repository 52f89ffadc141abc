"""Transfer methods: which tools move the bytes, how they are named, and whether this machine has them.

"pipe" is ssh carrying a stream between our source and sink: SSH itself,
nothing else. The file methods are the tools people really use, run as
they are shipped: scp (SFTP protocol since OpenSSH 9.0), scp -O (the legacy
SCP/RCP protocol), sftp in batch mode, and rsync over ssh. A tuned sftp is
written "sftp-B<buffer>-R<requests>", so it gets its own case id.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

from sshbench import procs
from sshbench.errors import UsageError

PIPE = "pipe"
FILE_METHODS = ("scp", "scp-legacy", "sftp", "rsync")
METHODS = (PIPE, *FILE_METHODS)
# OpenSSH's sftp defaults (sftp(1): -B 32768, -R 64): a tuned variant equal to these is plain sftp.
SFTP_DEFAULT_BUFFER = 32768
SFTP_DEFAULT_REQUESTS = 64
_TUNED = re.compile(r"sftp-B(\d+)-R(\d+)")
# Debian package of each tool, for the "install it" message
PACKAGE = {"scp": "openssh-client", "sftp": "openssh-client", "rsync": "rsync"}


@dataclass(frozen=True)
class Method:
    """A method name taken apart: the tool and, for sftp, its two knobs."""

    name: str
    tool: str  # scp, sftp, rsync, or pipe
    legacy_scp: bool = False
    sftp_buffer: int | None = None
    sftp_requests: int | None = None

    @property
    def label(self) -> str:
        """How tables show it: the command people would type."""
        if self.legacy_scp:
            return "scp -O"
        if self.sftp_buffer is not None:
            return f"sftp -B {self.sftp_buffer} -R {self.sftp_requests}"
        return self.name


def parse_method(name: str) -> Method:
    if name in (PIPE, "scp", "sftp", "rsync"):
        return Method(name, name)
    if name == "scp-legacy":
        return Method(name, "scp", legacy_scp=True)
    if match := _TUNED.fullmatch(name):
        return Method(name, "sftp", sftp_buffer=int(match.group(1)), sftp_requests=int(match.group(2)))
    raise UsageError(f"unknown transfer method {name!r}: use {', '.join(METHODS)} or all")


def parse_methods(text: str) -> tuple[str, ...]:
    """`--method` list: names from METHODS, or `all`; order kept, duplicates dropped."""
    names: list[str] = []
    for word in (w.strip().lower() for w in text.split(",")):
        if not word:
            continue
        if word == "all":
            names += METHODS
        elif word in METHODS:
            names.append(word)
        else:
            raise UsageError(f"unknown --method {word!r}: use {', '.join(METHODS)} or all")
    if not names:
        raise UsageError("--method needs at least one of " + ", ".join(METHODS))
    return tuple(dict.fromkeys(names))


def sftp_variants(buffers: tuple[int, ...], requests: tuple[int, ...]) -> tuple[str, ...]:
    """The tuned sftp methods of an -B x -R sweep; the combination equal to sftp's defaults is plain sftp."""
    if not buffers and not requests:
        return ()
    out = []
    for buffer in buffers or (SFTP_DEFAULT_BUFFER,):
        for count in requests or (SFTP_DEFAULT_REQUESTS,):
            out.append("sftp" if (buffer, count) == (SFTP_DEFAULT_BUFFER, SFTP_DEFAULT_REQUESTS)
                       else f"sftp-B{buffer}-R{count}")
    return tuple(dict.fromkeys(out))


def scp_has_legacy_flag(scp: str) -> bool:
    """OpenSSH 9.0+ scp takes -O for the legacy protocol; older ones only speak it (and reject -O)."""
    try:
        usage = procs.run_text([scp, "-O"], timeout=10).stderr
    except subprocess.TimeoutExpired:
        return False
    flags = re.search(r"usage: scp \[-([0-9A-Za-z]+)\]", usage)
    return bool(flags and "O" in flags.group(1))


def missing_tools(methods: tuple[str, ...]) -> dict[str, str]:
    """Method -> why it cannot run on this machine (tool not installed, scp without -O)."""
    missing: dict[str, str] = {}
    for name in methods:
        method = parse_method(name)
        if method.tool == PIPE:
            continue
        path = shutil.which(method.tool)
        if path is None:
            missing[name] = f"{method.tool} is not installed (Debian package {PACKAGE[method.tool]})"
        elif method.legacy_scp and not scp_has_legacy_flag(path):
            missing[name] = "this scp has no -O flag (OpenSSH before 9.0 speaks only the legacy protocol: use scp)"
    return missing

