"""The placement trial: one fast case, alternately in split and free placement, before the minimum begins.

Why a trial of its own: which placement is steadier differs between
machines (analysis/stats/placing.py), and the cases' own samples cannot tell,
since all of a case's samples must share one placement to be compared.
So, after the warm-up has sized every case and before any sample counts,
the fastest single-connection pipe case on loopback (where the two ends
contend most for the CPUs) is sampled TRIAL_SAMPLES times in each
placement, alternating, so drift falls on both alike. Its samples count
for no verdict; their rates and the choice are kept in the results
(Report.placement_trial), and the rest of the run uses the chosen
placement.

The trial runs only where it is cheap beside the run: in decision mode,
within MAX_SHARE of the time budget, and only out of what the budget leaves
beyond every case's minimum.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sshbench.analysis.stats.placing import choose_placement
from sshbench.results.design import PlacementTrial
from sshbench.results.events import Sampler, Visit
from sshbench.results.model import CaseKind, CaseRecord, CaseStatus

TRIAL_SAMPLES = 8  # per placement: 12,870 splits for the exact test, about 8 s at the default sample length
MAX_SHARE = 0.05  # of the time budget the trial may take, as estimated from the warm-up


def trial_case(records: list[CaseRecord], rates: dict[str, float]) -> CaseRecord | None:
    """The fastest single-connection, uncompressed pipe cipher case on loopback with a warm-up rate."""
    fit = [r for r in records if r.case.kind is CaseKind.CIPHER and r.case.is_pipe and r.case.streams == 1
           and r.case.compressor.is_off and not r.case.link and r.status is not CaseStatus.SKIPPED
           and r.case.id in rates and r.size_bytes]
    return max(fit, key=lambda r: rates[r.case.id], default=None)


def skipped(why: str) -> PlacementTrial:
    """Split, kept without a trial, and why (shown where the trial's figures would be)."""
    return PlacementTrial("", [], [], "split", 0.0, f"split kept without a trial: {why}")


def decide(records: list[CaseRecord], rates: dict[str, float], visit_seconds: Callable[[CaseRecord], float],
           budget: float | None, decision: bool, spare: float | None = None) -> CaseRecord | PlacementTrial:
    """The case to try both placements on, or (no trial) the placement kept and why; `spare`: the seconds the
    budget leaves beyond every case's minimum, which the trial must not eat into."""
    if not decision or budget is None:
        return skipped("it is for decision mode with a time budget (a fixed or precision run keeps split)")
    record = trial_case(records, rates)
    if record is None:
        return skipped("no single-connection pipe cipher case on loopback was measured to try")
    cost = 2 * TRIAL_SAMPLES * visit_seconds(record)
    if cost > MAX_SHARE * budget:
        return skipped(f"it would take about {cost:.0f} s, over {MAX_SHARE:.0%} of the {budget:.0f} s budget")
    if spare is not None and cost > spare:
        return skipped(f"it would take about {cost:.0f} s, and the budget leaves {max(0.0, spare):.0f} s beyond "
                       "every case's minimum")
    return record


def run_trial(record: CaseRecord, sampler: Sampler, place: Callable[[str], None], timeout: float,
              clock: Callable[[], float] = time.monotonic) -> PlacementTrial:
    """TRIAL_SAMPLES samples of `record`'s case in each placement, alternating; the choice, in force on return."""
    rates: dict[str, list[float]] = {"split": [], "free": []}
    started = clock()
    for index in range(2 * TRIAL_SAMPLES):
        kind = ("split", "free")[index % 2]
        place(kind)
        sample = sampler(Visit(record.case, 0), record.size_bytes, timeout, lambda _moved: None)
        if sample.ok and sample.throughput_bytes_per_second:
            rates[kind].append(sample.throughput_bytes_per_second)
    trial = choose_placement(record.case.id, rates["split"], rates["free"], clock() - started)
    place(trial.chosen)
    return trial
