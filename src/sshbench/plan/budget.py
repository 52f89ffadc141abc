"""Several hosts in one run share one time budget and one byte cap."""

from __future__ import annotations

import dataclasses

from sshbench.options import RunOptions


def host_share(options: RunOptions, spent: tuple[float, int], hosts_left: int) -> RunOptions:
    """This host's part of the time budget and byte cap: what is left, split over the hosts still to go.

    A host that finishes early leaves its remainder to the next ones; the run as a whole stays within both.
    """
    seconds, sent = spent
    budget = None if options.time_budget_seconds is None else \
        max(1.0, (options.time_budget_seconds - seconds) / hosts_left)
    cap = None if options.max_bytes is None else max(0, (options.max_bytes - sent) // hosts_left)
    return dataclasses.replace(options, time_budget_seconds=budget, max_bytes=cap)
