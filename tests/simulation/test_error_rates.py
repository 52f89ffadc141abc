"""The decision rule's error rates and the paired design's gain, on whole simulated runs (tests/synthetic.py).

These run the real schedule and verdict code over a hundred simulated runs
each, so they take a minute or two; they live here rather than in
tests/unit so that `pytest tests/unit` stays the quick loop of CONTRIBUTING.md
(`make test` runs them all).
"""

from __future__ import annotations

import itertools
import statistics

from sshbench.options import RunOptions
from sshbench.results.model import Report
from sshbench.vocabulary.case_terms import Relation
from tests.synthetic import relations, simulate

RATES = [500e6 / 1.08**i for i in range(8)]  # eight ciphers, each 8% slower than the one above
DRIFT: dict[str, object] = {"drift_sd": 0.35, "drift_seconds": 90.0, "fixed_seconds": 0.12, "setup_seconds": 0.3}


def _settled(report: Report) -> tuple[int, int]:
    """(neighbour pairs settled, of them called different the wrong way round) against the known truth."""
    ordered = sorted(report.summaries, key=lambda s: s.rank or 0)
    index = {s.case_id: int(s.case_id.split(":")[1][1:]) for s in ordered}
    settled = sum(s.relation in (Relation.DIFFERENT, Relation.EQUIVALENT) for s in ordered[1:])
    wrong = sum(1 for above, below in itertools.pairwise(ordered)
                if below.relation is Relation.DIFFERENT and index[above.case_id] > index[below.case_id])
    return settled, wrong


def test_back_to_back_pairs_settle_more_than_unpaired_rounds_under_drift_and_never_the_wrong_way() -> None:
    paired: list[tuple[int, int]] = []
    unpaired: list[tuple[int, int]] = []
    samples = {True: 0, False: 0}
    for seed in range(10):
        for design, out in ((True, paired), (False, unpaired)):
            report = simulate(RATES, 0.05, seed, RunOptions(time_budget_seconds=300, sample_seconds=0.5),
                              paired=design, **DRIFT)  # type: ignore[arg-type]
            out.append(_settled(report))
            samples[design] += len(report.samples)
    assert sum(w for _, w in paired) == 0 and sum(w for _, w in unpaired) == 0, "never the wrong way round"
    assert statistics.mean(s for s, _ in paired) >= 3 * max(0.5, statistics.mean(s for s, _ in unpaired))
    assert samples[True] <= 1.1 * samples[False], "no more samples than the unpaired design had"


def test_without_any_difference_a_wrong_different_is_rare() -> None:
    """Family-wise: how many tables of 5 identical cases end with any pair called different (must be <= 5%)."""
    runs = 60  # 0 of 400 in bench/decision_calibration.py; a rule at twice the bound would show ~6 here
    wrong = sum(Relation.DIFFERENT in relations(simulate([700.0] * 5, cv=0.2, seed=seed)) for seed in range(runs))
    assert wrong / runs <= 0.05


