"""What a reason or an error sshbench wrote is, as a value: code decides by these, never by the words.

Every record that says why in words (a case's `reason`, a sample's `error` and `unusable`, the run's
`stop_reason`) carries one of these beside the text where a decision is made by it, so rewording a message
changes no decision. The words stay for people; results/model.py holds the fields.
"""

from __future__ import annotations

from enum import StrEnum


class ReasonKind(StrEnum):
    """What a case's reason (CaseRecord.reason) is, where something is decided by it."""

    NOT_OFFERED = "not offered"  # the server does not offer the algorithm (plan/selection.py)
    REFUSED = "refused"  # the server refused what its sample asked (Failure.REFUSED): skipped
    # every sample it had was set aside, none counted (measure/physics.py): a failure, not a skip, and said no
    # more once a later sample counts
    SET_ASIDE = "set aside"


class Failure(StrEnum):
    """What ended a failed sample (Sample.error says it in words), where the run decides by it."""

    REFUSED = "refused"  # the server refused what the case asks (no cipher in common ...): the case is skipped
    TIMED_OUT = "timed out"  # it ran past its timeout: the bytes it moved tell the case's pace (measure/pace.py)


class Unusable(StrEnum):
    """Why a good sample is kept but not counted (Sample.unusable says it in words)."""

    NO_WINDOW = "no window"  # no steady window at all
    NARROW_WINDOW = "narrow window"  # a window of too small a share of the bytes (streams far apart)
    FEW_ROUND_TRIPS = "few round trips"  # a window of under MIN_WINDOW_RTTS round trips of its path
    SHORT_WINDOW = "short window"  # a window under MIN_WINDOW_SECONDS, of a size sshbench chose
    SHORT_PHASE = "short phase"  # a data phase under the share of what it was sized for
    NOT_STEADY = "not steady"  # the window's halves ran at different paces (re-sized at most TREND_RESIZES times)
    ABOVE_CAPACITY = "above capacity"  # a rate above what the path carries: mistimed
    NO_RATE = "no rate"  # a file transfer whose data took no longer than its 1-byte run

    @property
    def again(self) -> bool:
        """A larger sample cures it: its case, sized by sshbench, is re-sized and measured again (a --size the
        user gave is told the size to give); a mistimed rate or a file transfer's is not cured so."""
        return self not in (Unusable.ABOVE_CAPACITY, Unusable.NO_RATE)


class StopCause(StrEnum):
    """What ended a complete run early (Report.stop_reason says it in words)."""

    TIME_BUDGET = "time budget"
    BYTE_CAP = "byte cap"
