"""The declared axes (axes/base.py), by name: one module each, one line in DECLARED.

The built-in axes (method, streams, compression, side, link) are Case
fields (results/axes.py); a workload's own dimensions (docs/ARCHITECTURE.md,
"A new axis") are declared here: connection reuse and the client key for short commands, and the SSH client a
transfer is made with.
"""

from __future__ import annotations

from sshbench.axes.base import DeclaredAxis, Effect
from sshbench.axes.client import CLIENT
from sshbench.axes.reuse import REUSE
from sshbench.axes.userkey import USER_KEY

DECLARED: tuple[DeclaredAxis, ...] = (REUSE, USER_KEY, CLIENT)
__all__ = ["DECLARED", "DeclaredAxis", "Effect", "declared", "effect_of"]


def declared(name: str) -> DeclaredAxis | None:
    """The declared axis called `name`, or None (a results file may name one this sshbench does not know)."""
    return next((axis for axis in DECLARED if axis.name == name), None)


def effect_of(dims: tuple[tuple[str, str], ...]) -> Effect:
    """What a case's declared-axis values change in its sample, together: their ssh options in order, the last
    chunk size given, a ControlMaster if any asks for one, the client driver if one is named. A value of an axis
    not declared here changes nothing (results files are checked on load, results/codec.py, so a run never
    measures one)."""
    options: tuple[str, ...] = ()
    chunk: int | None = None
    master = False
    key: str | None = None
    client: str | None = None
    for name, value in dims:
        axis = declared(name)
        if axis is None:
            continue
        effect = axis.effect(value)
        options += effect.ssh_options
        chunk = effect.chunk_bytes if effect.chunk_bytes is not None else chunk
        master = master or effect.control_master
        key = effect.user_key or key
        client = effect.client or client
    return Effect(options, chunk, master, key, client)
