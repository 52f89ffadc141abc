"""What failed samples say about the run: when every later one would fail alike, and why nothing was measured.

Kept apart from the run loop (measure/loop.py) so the words a failed run ends with are read in one place."""

from __future__ import annotations

from sshbench.results.kinds import StopCause
from sshbench.results.model import Report, Sample
from sshbench.vocabulary.errors import RunStopped

DOOMED_AFTER = 5  # failed samples in a row, all with the same error ...
DOOMED_CASES = 3  # ... over at least this many cases


def stop_if_same_failure(failures: list[Sample]) -> None:
    """RunStopped when DOOMED_AFTER failures in a row, with one error, over DOOMED_CASES cases or more, show that
    every later sample would fail the same way (a server that went away)."""
    recent = failures[-DOOMED_AFTER:]
    if len(recent) == DOOMED_AFTER and len({s.error for s in recent}) == 1 \
            and len({s.case_id for s in recent}) >= DOOMED_CASES:
        raise RunStopped(f"the last {DOOMED_AFTER} samples, of {len({s.case_id for s in recent})} different cases, "
                         f"all failed with: {recent[-1].error}; fix that (the results file has each sample's "
                         "stderr) and run again")


def nothing_measured(report: Report, budget: float | None) -> str:
    """The run's one error line when no sample counted: why, and what to change."""
    why = report.stop_reason or "every sample failed"
    hint = (f"raise --time-budget above {budget:.0f} s (the warm-up round alone needs more)"
            if budget is not None and report.stopped_by is StopCause.TIME_BUDGET else
            "raise --max-bytes" if report.stopped_by is StopCause.BYTE_CAP else "see the failures in the results file")
    failed = [s for s in report.samples if not s.ok and s.error]
    if not report.stop_reason and failed:  # say why, in the words of the last failure and of the server's log
        said = [line.removeprefix("server: ") for line in failed[-1].stderr_tail if line.startswith("server: ")]
        hint = f"the last one: {failed[-1].error}" + (f"; the server said: {said[-1]}" if said else "") + \
            f"; {hint}"
    return f"nothing was measured ({why}): {hint}"
