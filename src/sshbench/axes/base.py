"""A declared axis: a dimension a later need adds to the case space without a field of its own on Case.

The axes every run has (method, streams, compression, side, link) are
fields of `Case` and lines of results/axes.py. An axis declared here is one
module in this package and one line in `DECLARED` (axes/__init__.py); from
that line alone a run gets its option (`option`, parsed by `parse`), its
crossing with every pipe case it applies to (`skipped` says where it does
not), its values on each case (`Case.dims`) spelled in ids and groups after
`sigil`, its cross pairs (the same case at `plain` and at each other value,
judged and funded like a link's), its effect on the measured pipe
(`effect`: only the extension points the measuring code offers, `Effect`),
and its words in tables (`title`, `column`: its renderer). Nothing else is
edited for it: docs/ARCHITECTURE.md, "A new axis", has the recipe and the
trial that measured it.

Values are canonical text (what `parse` returns), so a case stays a frozen,
hashable value and a results file stores them as they are; a file's values
are checked against `parse` on load (results/codec.py): untrusted text never
reaches an option unvalidated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sshbench.vocabulary.case_terms import CaseKind


@dataclass(frozen=True)
class Effect:
    """What one value of a declared axis changes in a pipe sample (measure/pipe.py applies it): the measuring
    code's extension points, nothing else."""

    ssh_options: tuple[str, ...] = ()  # more ssh arguments, e.g. ("-o", "IPQoS=throughput")
    chunk_bytes: int | None = None  # the most one splice of sshbench's source or sink moves (None: its own)
    # The sample's ssh goes through an OpenSSH ControlMaster that sshbench holds open for the case's path
    # (measure/masters.py): a session over a connection already made, as ControlMaster=auto gives a user
    control_master: bool = False
    # The client key type the sample logs in with (--user-keys: "ecdsa", "rsa4096"), from its target
    # (Target.identity); None: the one its ssh config offers
    user_key: str | None = None
    # The client part (clientparts/) whose driver makes the sample's connections instead of the run's ssh
    # (--client paramiko: measure/drivers.py); None: ssh, as always
    client: str | None = None


class DeclaredAxis(Protocol):
    """One declared axis: what results/axes.py, the parser, the plan, the pipe and the tables ask of it."""

    name: str  # its key in Case.dims, RunOptions.dims and the results file
    sigil: str  # before its value in ids and groups: one character no other axis uses
    plain: str  # the value a case has when the axis is not asked for (left out of ids)
    cross: int  # the order its cross pairs are made in, after the built-in axes' (results/axes.py)
    option: str  # e.g. "--chunk-sizes"
    help: str
    kinds: frozenset[CaseKind]  # the kinds of case it crosses (transfers: CIPHER, MAC; short commands: COMMAND)

    def parse(self, text: str) -> tuple[str, ...]:
        """The option's values, canonical, in the order given; UsageError (one line, the fix) for bad text."""
        ...

    def skipped(self, value: str, method: str) -> str | None:
        """Why a case of transfer method `method` cannot be measured at `value` (None: it can)."""
        ...

    def effect(self, value: str) -> Effect:
        """What `value` changes in a pipe sample."""
        ...

    def title(self, value: str) -> str:
        """`value` in words, as table titles and cells show it ("64 KiB chunks")."""
        ...

    @property
    def column(self) -> str:
        """The header of its column in the streams-and-compression table."""
        ...
