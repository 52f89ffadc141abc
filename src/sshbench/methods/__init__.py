"""The transfer methods, by name: one module each, one line in METHODS.

A case's `method` is the name; `method(name)` is the object that runs it
(methods/base.py: TransferMethod). A tuned sftp ("sftp-B65536-R128") is
made from its name, so an -B x -R sweep needs no registry entry per knob.
"""

from __future__ import annotations

from sshbench.methods.base import NULL, Endpoint, Ssh, Transfer, TransferMethod
from sshbench.methods.pipe import Pipe
from sshbench.methods.rsync import Rsync
from sshbench.methods.scp import Scp
from sshbench.methods.sftp import Sftp, variants
from sshbench.vocabulary.case_terms import PIPE
from sshbench.vocabulary.errors import UsageError

METHODS: dict[str, TransferMethod] = {
    PIPE: Pipe(),
    "scp": Scp(),
    "scp-legacy": Scp(legacy=True),
    "sftp": Sftp(),
    "rsync": Rsync(),
}
__all__ = ["METHODS", "NULL", "PIPE", "Endpoint", "Ssh", "Transfer", "TransferMethod", "method", "missing_tools",
           "parse_methods", "sftp_variants"]


def method(name: str) -> TransferMethod:
    """The method a case names; UsageError for a name sshbench does not know."""
    found = METHODS.get(name) or Sftp.parse(name)
    if found is None:
        raise UsageError(f"unknown transfer method {name!r}: use {', '.join(METHODS)} or all")
    return found


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
    return variants(buffers, requests)


def missing_tools(names: tuple[str, ...]) -> dict[str, str]:
    """Method name -> why it cannot run on this machine (tool not installed, scp without -O)."""
    return {name: why for name in names if (why := method(name).unavailable()) is not None}
