"""Which open pairs the time left is spent on: those that settle soonest, the answer's own first.

A run on a noisy machine cannot settle every pair in its budget (on a
2-vCPU EPYC VM a default run reached ~14 samples a case, where a 5%
difference needs ~200). Sampling every open pair alike then settles
almost none. Instead, at each round, every open pair gets its forecast
(analysis/stats/forecast.py: the seconds of visits it still needs at this
machine's noise), and the time left is handed out: first to the pairs the
answer states first (the fastest safe cipher against the runner-up,
analysis/answers/answer.answer_pairs) and the cross pairs a run
with several builds, stream counts or compressions exists for
(analysis/comparisons/dimensions.py), those that can settle first, and then the ones
that cannot by their cap too, up to it (more samples still narrow the
interval the answer prints: on an EPYC VM the GCM twins stopped at 12
samples each, +-25%, while pairs nobody asked about got the time); then to
the others that can settle, cheapest first, until it is spent. The rest wait:
they stay "not yet separable" (not futile), and get their turn when a
funded pair settles and frees its share. Nothing here decides a verdict,
so it cannot make one wrong; it only chooses where samples go.
"""

from __future__ import annotations

import math
from collections.abc import Set

from sshbench.analysis.answers.answer import answer_pairs
from sshbench.analysis.comparisons.pairs import PairData
from sshbench.results.model import Report

Pair = tuple[str, str]


def funded(report: Report, pairs: Set[Pair], left: float | None,
           also_first: Set[Pair] = frozenset()) -> set[Pair]:
    """The pairs (faster, slower) of `pairs` the time left goes to (all of them without a budget, or when it
    takes every one to its cap); `also_first`: pairs funded with the answer's (the cross pairs a run with
    several builds, stream counts or compressions exists for). A pair at its cap gets nothing more either
    way; one forecast to need more than its cap to settle is funded after those that can, for the visits up
    to its cap."""
    if left is None or len(pairs) < 2:
        return set(pairs)
    data = PairData(report)
    bigger = {s.case_id: s.throughput_bytes_per_second is not None for s in report.summaries}
    groups = {s.case_id: s.group for s in report.summaries}
    open_in: dict[str, int] = {}
    for faster, _ in pairs:
        open_in[groups.get(faster, "")] = open_in.get(groups.get(faster, ""), 0) + 1
    need: dict[Pair, float] = {}  # seconds of visits until it settles (forecast), or until its cap
    reach: dict[Pair, bool] = {}  # forecast to settle by its cap
    for faster, slower in pairs:
        bigger_better = bigger.get(faster, True)
        cap = data.rule.for_table(bigger_better).max_runs
        now = data.visits(faster, slower)
        if cap is not None and now >= cap:
            continue  # at its cap: no more samples come to it whatever is funded
        found = data.forecast(faster, slower, bigger_better, open_in.get(groups.get(faster, ""), 1))
        to_cap = math.inf if cap is None else (cap - now) * data.visit(faster, slower)
        reach[(faster, slower)] = found.seconds is not None and (cap is None or (found.samples or 0) <= cap)
        need[(faster, slower)] = found.seconds if reach[(faster, slower)] and found.seconds is not None else to_cap
    if sum(need.values()) <= left:
        return set(need)  # the time left takes every open pair as far as it can go: no choice to make
    first = answer_pairs(report) | set(also_first)
    order = sorted(need, key=lambda p: (p not in first, not reach[p], need[p], p))
    chosen: set[Pair] = set()
    spent = 0.0
    for pair in order:
        if chosen and spent + need[pair] > left:
            break
        chosen.add(pair)
        spent += need[pair]
    return chosen
