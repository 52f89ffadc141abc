"""The transfer methods, by name: one module each, one line in METHODS.

A case's `method` is the name; `method(name)` is the object that runs it
(methods/base.py: TransferMethod). A tuned variant ("sftp-B65536-R128") is
made by its method from its name (`variant`), so a sweep of a method's
knobs needs no registry entry per value.
"""

from __future__ import annotations

from sshbench.methods.base import NULL, Endpoint, Knob, Ssh, Transfer, TransferMethod
from sshbench.methods.pipe import Pipe
from sshbench.methods.rsync import Rsync
from sshbench.methods.scp import Scp
from sshbench.methods.sftp import Sftp
from sshbench.vocabulary.case_terms import PIPE
from sshbench.vocabulary.errors import UsageError

METHODS: dict[str, TransferMethod] = {
    PIPE: Pipe(),
    "scp": Scp(),
    "scp-legacy": Scp(legacy=True),
    "sftp": Sftp(),
    "rsync": Rsync(),
}
__all__ = ["METHODS", "NULL", "PIPE", "Endpoint", "Knob", "Ssh", "Transfer", "TransferMethod", "family", "knobs",
           "method", "missing_tools", "parse_methods", "tuned"]


def method(name: str) -> TransferMethod:
    """The method a case names; UsageError for a name sshbench does not know."""
    found = METHODS.get(name) or next((v for m in METHODS.values() if (v := m.variant(name)) is not None), None)
    if found is None:
        raise _unknown(name)
    return found


def _unknown(name: str) -> UsageError:
    return UsageError(f"unknown transfer method {name!r}: use {', '.join(METHODS)} or all")


def family(name: str) -> str:
    """The METHODS name of the method a case's method name is, or is a tuned variant of ("sftp" for
    "sftp-B65536-R128"): what --method takes to measure it; UsageError for a name sshbench does not know."""
    found = next((key for key, m in METHODS.items() if key == name or m.variant(name) is not None), None)
    if found is None:
        raise _unknown(name)
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


def knobs() -> list[tuple[TransferMethod, Knob]]:
    """Every method's knobs, with the method each tunes (the parser adds an option for each)."""
    return [(m, knob) for m in METHODS.values() for knob in m.knobs]


def tuned(names: tuple[str, ...], settings: tuple[tuple[str, tuple[int, ...]], ...]) -> tuple[str, ...]:
    """The methods to measure, each replaced by its variants for the knobs given (RunOptions.knobs); UsageError
    for a knob whose method is not among `names`, or one no method has (a results file is untrusted)."""
    given = dict(settings)
    owners = {knob.key: (m, knob) for m, knob in knobs()}
    for key in given:
        if key not in owners:
            raise UsageError(f"unknown method setting {key!r}: known are {', '.join(owners) or 'none'}")
        owner, knob = owners[key]
        if owner.name not in names:
            raise UsageError(f"{knob.option} tunes {owner.name}: add {owner.name} to --method")
    out: list[str] = []
    for name in names:
        out += method(name).variants(given)
    return tuple(dict.fromkeys(out))


def missing_tools(names: tuple[str, ...]) -> dict[str, str]:
    """Method name -> why it cannot run on this machine (tool not installed, scp without -O)."""
    return {name: why for name in names if (why := method(name).unavailable()) is not None}
