"""The time budget: shared by the hosts of a run, and checked against what the run must measure.

Several hosts in one run share one time budget and one byte cap. After the
warm-up, the minimum a run promises (an interval for every case) is timed
against what is left; a budget too small for it is said before measuring,
with what it would take and what to leave out.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

from sshbench.kinds import CaseKind, Direction
from sshbench.options import RunOptions
from sshbench.results.model import Case

# The minimum must fit with this much to spare: sample times vary 15-40% on a shared machine.
FIT_MARGIN = 1.1


def host_share(options: RunOptions, spent: tuple[float, int], hosts_left: int) -> RunOptions:
    """This host's part of the time budget and byte cap: what is left, split over the hosts still to go.

    A host that finishes early leaves its remainder to the next ones; the run as a whole stays within both.
    """
    seconds, sent = spent
    budget = None if options.time_budget_seconds is None else \
        max(1.0, (options.time_budget_seconds - seconds) / hosts_left)
    cap = None if options.max_bytes is None else max(0, (options.max_bytes - sent) // hosts_left)
    return dataclasses.replace(options, time_budget_seconds=budget, max_bytes=cap, budget_shared_by=hosts_left)


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def _option_for(case: Case, options: RunOptions) -> str | None:
    """The option that leaves this case out of a run (None when no single option does)."""
    if case.kind in (CaseKind.CONTROL, CaseKind.CEILING):
        return "--no-controls"
    if case.kind is CaseKind.MAC:
        return "--macs none"
    if case.kind is CaseKind.KEX:
        return "--kex none"
    if case.kind is CaseKind.HOSTKEY:
        return "--hostkeys none"
    if not case.is_pipe:
        return "--method pipe"
    if len(options.directions) > 1:
        keep = "upload" if case.direction is Direction.DOWNLOAD else "download"
        return f"--directions {keep}"
    return None


def too_long(needed: dict[Case, float], spent: float, left: float, options: RunOptions) -> str:
    """Why the minimum cannot fit, what it would take, and what to leave out (largest saving first).

    `needed`: seconds each case still needs for its minimum, FIT_MARGIN included.
    """
    total = sum(needed.values())
    savings: dict[str, float] = defaultdict(float)
    for case, seconds in needed.items():
        if (option := _option_for(case, options)) is not None:
            savings[option] += seconds
    drops = sorted(savings.items(), key=lambda item: -item[1])
    references = sum(1 for case in needed if case.kind in (CaseKind.CONTROL, CaseKind.CEILING))
    less = "; ".join(f"{option} saves {_duration(seconds)}" for option, seconds in drops[:4])
    shared = options.budget_shared_by
    budget = "the time budget" if shared == 1 else f"this host's share of the time budget (1 of {shared})"
    return (f"the minimum ({options.min_runs} samples of each case, for an interval) for {len(needed) - references} "
            f"cases and {references} references needs about {_duration(total)} more (as the warm-up measured them, "
            f"{FIT_MARGIN - 1:.0%} to spare), and {budget} leaves {_duration(max(0.0, left))}: raise "
            f"--time-budget to {math.ceil((spent + total) * shared / 60)}m or more, or measure less "
            f"({less or 'fewer algorithms, or a smaller --size'})")
