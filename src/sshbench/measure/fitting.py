"""A run's minimum against its budget after the warm-up, on the visit times it measured (measure/loop.py asks
once): refused, or in a fitted run (--fit, the default budget) narrowed until it fits, as before measuring
(orchestrate/run.py): an option first, then the slowest cases (plan/budget.leave_out_slowest), down to one that
runs as far as the budget goes. Apart from the loop, which only runs visits."""

from __future__ import annotations

import dataclasses

from sshbench.analysis.answers.answer import true_default
from sshbench.options import RunOptions
from sshbench.plan.budget import FIT_MARGIN, LEAVE_OUT, leave_out_slowest, option_for, option_to_leave_out, too_long
from sshbench.results.model import Case, CaseRecord, CaseStatus, Report
from sshbench.vocabulary.errors import BudgetTooSmall


def fit_after_warmup(report: Report, records: dict[str, CaseRecord], needed: dict[Case, float], left: float,
                     spent: float, options: RunOptions) -> float:
    """Refuse (BudgetTooSmall) a budget that cannot give every case of `needed` (seconds of its minimum still to
    come) its minimum within the `left` seconds, or in a fitted run leave out what it cannot hold, each case's
    record saying why; the seconds the budget leaves beyond the minimum (with its margin, never below 0)."""
    while needed and sum(needed.values()) * FIT_MARGIN > left:  # each pass leaves out one option or one case
        why = too_long({case: seconds * FIT_MARGIN for case, seconds in needed.items()}, spent, left, options)
        drop = option_to_leave_out(needed, options) if options.fit else None
        if drop is None and options.fit:
            kept = leave_out_slowest(records, needed, why, true_default(report, []))  # no option left: the slowest
            if not kept:
                break  # one case: measured as far as the budget goes
            needed = kept
            continue
        if drop is None:
            raise BudgetTooSmall(why)
        for record in records.values():  # the largest part left out, said
            if record.case in needed and option_for(record.case, options) == drop:
                record.status = CaseStatus.SKIPPED
                record.set_reason(f"left out to fit the time budget ({drop}): {why}")
        needed = {case: seconds for case, seconds in needed.items() if option_for(case, options) != drop}
        # the run as narrowed, so the next option is read from it: with both directions still in `options`, the
        # uploads kept by "--directions upload" were then dropped as "--directions download"
        options = dataclasses.replace(options, **LEAVE_OUT.get(drop, {}))  # type: ignore[arg-type]
    return max(0.0, left - sum(needed.values()) * FIT_MARGIN)
