"""What a case measures and which way the bytes go: the two enums every stage shares.

Kept apart from the records so that the run options (which name the
directions) and the records (which hold the options) need not import each
other.
"""

from __future__ import annotations

from enum import StrEnum

from sshbench.vocabulary.algorithms import Kind

PIPE = "pipe"  # the transfer method that is SSH itself: ssh carrying sshbench's own stream (methods/)


class Direction(StrEnum):
    UPLOAD = "upload"  # client -> server
    DOWNLOAD = "download"  # server -> client
    SETUP = "setup"  # connection set-up only, no data phase
    LOCAL = "local"  # no network at all (crypto ceilings)


class CaseKind(StrEnum):
    """An algorithm sweep, or a reference measured beside the algorithms in the same run."""

    CIPHER = "cipher"
    MAC = "mac"
    KEX = "kex"
    HOSTKEY = "hostkey"
    CONTROL = "control"  # raw TCP, no SSH: the transport ceiling (measure/controls.py)
    CEILING = "ceiling"  # a cipher's primitive alone (openssl speed): the crypto ceiling
    COMMAND = "command"  # a short remote command run to its exit (--commands, vocabulary/commands.py)

    @property
    def algorithm(self) -> Kind | None:
        """The algorithm kind a sweep is about; None for a control or a ceiling."""
        return Kind(self.value) if self.value in {k.value for k in Kind} else None

    @classmethod
    def of(cls, kind: Kind) -> CaseKind:
        return cls(kind.value)


class Relation(StrEnum):
    """How a ranked case stands against the one ranked just above it (analysis/stats/verdicts.py)."""

    DIFFERENT = "different"  # significantly slower
    EQUIVALENT = "equivalent"  # shown equivalent within the run's tie margin
    UNSETTLED = "unsettled"  # not yet separable: neither of the above
