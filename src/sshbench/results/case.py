"""A case: one thing measured, a point in the space of axes results/axes.py declares.

Kept apart from the records of what was measured (results/model.py, which re-exports it) because everything
about a case's identity lives here: its fields, its id and groups spelled from the axes, and how it is read and
moved along any axis by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from sshbench.compressors import OFF, Choice, choice
from sshbench.results.axes import AXES, BY_NAME, spelled
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.case_terms import PIPE, CaseKind, Direction
from sshbench.vocabulary.untrusted import AlgorithmName


@dataclass(frozen=True)
class Case:
    """One thing measured: an algorithm of one kind, in one direction, with its fixed partners."""

    kind: CaseKind
    direction: Direction
    cipher: AlgorithmName | None = None
    mac: AlgorithmName | None = None
    kex: AlgorithmName | None = None
    hostkey: AlgorithmName | None = None
    # How the bytes move: "pipe" (ssh carrying our stream), or a file tool: "scp", "scp-legacy",
    # "sftp", "rsync", or a tuned sftp such as "sftp-B65536-R128" (see methods/).
    method: str = PIPE
    # The emulated link crossed (--link), as its canonical text such as "rtt=20ms"; "" for loopback or a real host
    link: str = ""
    # The SSH build measured (--build), as its name such as "hpn-ssh-18.8.0"; "" when a run compares none
    build: str = ""
    # Parallel SSH connections that share the case's bytes (--streams): 1 is one connection, as before
    streams: int = 1
    # How the bytes are compressed (--compression), canonical (compressors/): "off", "ssh" (SSH's zlib), "zstd:3"
    compression: str = OFF
    # The declared axes' values (axes/): (axis, canonical value) in DECLARED's order, plain values left out, so
    # a case no declared axis touches has none and its id and file form are as before
    dims: tuple[tuple[str, str], ...] = field(default=(), metadata={"omit_empty": True})
    # A short command's name (--commands, vocabulary/commands.py): the subject of a command case, "" otherwise
    command: str = field(default="", metadata={"omit_empty": True})

    @property
    def algorithm_kind(self) -> Kind | None:
        """The kind of algorithm this case is about; None for the controls and ceilings."""
        return self.kind.algorithm

    @property
    def subject(self) -> str:
        """The algorithm this case is about (the others are held fixed or left to defaults)."""
        if self.kind is CaseKind.CONTROL:
            return "raw-tcp"
        if self.kind is CaseKind.COMMAND:
            return self.command
        value = self.cipher if self.kind is CaseKind.CEILING else getattr(self, self.kind.value)
        assert isinstance(value, str)
        return value

    @cached_property  # made once: a frozen case never changes, and a run asks for its id ~10^5 times
    def id(self) -> str:
        return f"{self.kind.value}:{self.subject}:{self.direction.value}{spelled(self._axes)}"

    @property
    def _axes(self) -> dict[str, object]:
        return {axis.name: self.value_of(axis.name) for axis in AXES}

    def value_of(self, axis: str) -> object:
        """This case's value on `axis` (results/axes.py): its field, or a declared axis's value (plain if unset)."""
        if BY_NAME[axis].field:
            return getattr(self, axis)
        return dict(self.dims).get(axis, BY_NAME[axis].plain)

    def at(self, axis: str, value: object) -> Case:
        """The same case at `value` on `axis`: a cross pair's other end, a crossing's variant."""
        if BY_NAME[axis].field:
            change: dict[str, Any] = {axis: value}
            return replace(self, **change)
        values = {**dict(self.dims), axis: value}
        return replace(self, dims=tuple((a.name, str(values[a.name])) for a in AXES
                                        if not a.field and a.name in values and values[a.name] != a.plain))

    @cached_property  # the stored text read once: code asks the value (external? SSH's?), never the text
    def compressor(self) -> Choice:
        return choice(self.compression)

    @property
    def plain(self) -> bool:
        """One connection, no compression, every declared axis at its plain value: the form every case had before
        --streams and --compression."""
        return self.streams == 1 and self.compressor.is_off and not self.dims

    @property
    def moves_data(self) -> bool:
        return self.direction is not Direction.SETUP

    @property
    def _family(self) -> str:
        """What a group starts with: the kind, and for a short command the command too (`true` and `input` are
        different workloads, never alternatives ranked against each other)."""
        return f"command:{self.command}" if self.kind is CaseKind.COMMAND else self.kind.value

    @property
    def group(self) -> str:
        """Cases ranked against each other: same kind, direction and every axis (results/axes.py)."""
        return f"{self._family}:{self.direction.value}{spelled(self._axes)}"

    @property
    def base_group(self) -> str:
        """The group without the axes a table is drawn once per value of: "cipher:upload" (a transfer method
        stays: "cipher:upload:scp")."""
        return f"{self._family}:{self.direction.value}{spelled(self._axes, only=('method',))}"

    @property
    def is_pipe(self) -> bool:
        return self.method == PIPE
