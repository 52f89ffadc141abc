"""Where and how a case is measured: the axes of the space a run's cases are points in, declared once.

A case measures one algorithm (its kind and subject) in one direction; the
axes say under what: the transfer method, the parallel streams, the
compression, the side (an SSH build or an embedded server) and the emulated
link. Each of these is one field of `Case` (results/model.py) and one line
here: how ids and groups spell a value other than its plain one, and whether
its values are compared case by case (a cross pair, analysis/comparisons/dimensions.py).
An axis a later need adds is declared in the axes package (axes/base.py):
its values live in `Case.dims`, and it joins this table after these.
Ids, groups, the group a table ranks without its variants, and the cross
dimensions are all made from this table by `spelled` and `CROSS`; no other
code builds or splits an id.
"""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.axes import DECLARED
from sshbench.compressors import OFF
from sshbench.vocabulary.case_terms import PIPE


@dataclass(frozen=True)
class Axis:
    """One axis: the Case field, the sigil before a value in ids and groups, the value ids leave out, and how
    its values are compared."""

    name: str
    sigil: str
    plain: object
    # its values are compared case by case, and in which order the cross pairs are made (None: never; the
    # transfer methods are different tables, whose cases are compared by the method x cipher matrix)
    cross: int | None = None
    remedy: bool = False  # a choice a user makes (funded first with the answer's own pairs), not where it runs
    # which value the others are compared with: "first" given, the "fewest" (a count), or the "plain" one where
    # measured (else the first)
    base: str = "first"
    field: bool = True  # a field of Case; False: a declared axis, its value in Case.dims


# In the order ids spell them: "cipher:aes128-ctr:upload:scp*4~zstd:3#hpn@rtt=20ms", then the declared axes'.
BUILT_IN = (
    Axis("method", ":", PIPE),
    Axis("streams", "*", 1, cross=1, remedy=True, base="fewest"),
    Axis("compression", "~", OFF, cross=2, remedy=True, base="plain"),
    Axis("build", "#", "", cross=0, remedy=True),
    Axis("link", "@", "", cross=3),
)
AXES = BUILT_IN + tuple(Axis(d.name, d.sigil, d.plain, cross=len(BUILT_IN) + d.cross, base="plain", field=False)
                        for d in DECLARED)

# The axes whose values are compared case by case, in the order cross pairs are made
CROSS = tuple(axis.name for axis in sorted((a for a in AXES if a.cross is not None), key=lambda a: a.cross or 0))
REMEDIES = frozenset(axis.name for axis in AXES if axis.remedy)
BY_NAME = {axis.name: axis for axis in AXES}


def base_value(name: str, values: list[object]) -> object:
    """The value of axis `name` the others are compared with, among those measured (in the order given)."""
    axis = BY_NAME[name]
    if axis.base == "fewest":
        return min(values)  # type: ignore[type-var]
    if axis.base == "plain" and axis.plain in values:
        return axis.plain
    return values[0]


def spelled(values: dict[str, object], only: tuple[str, ...] | None = None) -> str:
    """The axes' part of an id or group: each value other than its axis's plain one, after its sigil (of the
    axes in `only`, when given)."""
    return "".join(f"{axis.sigil}{values[axis.name]}" for axis in AXES
                   if (only is None or axis.name in only) and values[axis.name] != axis.plain)
