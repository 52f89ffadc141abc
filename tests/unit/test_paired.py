"""Back-to-back pairs on a drifting machine, and the fixed per-connection cost: the answer's foundations.

The signed-rank statistics are checked against brute force; the design is
checked on tests/synthetic.py's simulated machine, where the truth is
known: slow drift of the load (what a shared VM has), per-sample noise, and
a fixed cost inside each upload's data phase.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics

from hypothesis import given, settings
from hypothesis import strategies as st

from sshbench.analysis.stats.paired import paired_interval, signed_rank_greater, signed_rank_p
from sshbench.options import RunOptions
from sshbench.vocabulary.case_terms import Relation
from tests.synthetic import simulate

RATES = [500e6 / 1.08**i for i in range(8)]  # eight ciphers, each 8% slower than the one above
DRIFT: dict[str, object] = {"drift_sd": 0.35, "drift_seconds": 90.0, "fixed_seconds": 0.12, "setup_seconds": 0.3}


def test_the_signed_rank_distribution_is_exact() -> None:
    d = [0.3, -0.1, 0.25, 0.4, -0.05, 0.2]
    w = sum(r for r, x in zip([5, 2, 4, 6, 1, 3], d, strict=True) if x > 0)
    brute = sum(1 for signs in itertools.product((1, -1), repeat=6)
                if sum(r for r, s in zip(range(1, 7), signs, strict=True) if s > 0) >= w) / 64
    assert math.isclose(signed_rank_greater(d), brute)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(-2, 2, allow_nan=False).filter(lambda x: abs(x) > 1e-6), min_size=6, max_size=30,
                unique=True))
def test_the_interval_excludes_zero_exactly_when_the_test_rejects(d: list[float]) -> None:
    estimate, low, high = paired_interval(d, 0.95) or (0.0, None, None)
    if low is None or high is None:
        return
    assert low <= estimate <= high
    magnitudes = sorted(abs(x) for x in d)
    if len(set(magnitudes)) < len(magnitudes):
        return  # ties: the test uses the normal approximation, the interval the exact distribution
    rejects = signed_rank_p(d) < 0.05
    assert rejects == (low > 0 or high < 0) or math.isclose(signed_rank_p(d), 0.05, rel_tol=0.2)


def test_a_fixed_cost_and_unequal_sizes_cannot_reverse_a_verdict_once_it_is_kept_out() -> None:
    """The faster case gets a small size, the slower a large one (as a noisy warm-up can size them). Timed over
    the whole data phase, the fixed cost makes the faster one look slower and a run can call that
    "different"; timed over the steady state (past the start-up), it cannot."""
    def run(steady: bool, seed: int) -> list[str]:
        options = RunOptions(time_budget_seconds=None, runs=20, size_bytes=None)
        report = simulate([500e6, 450e6], 0.03, seed, options, steady=steady, fixed_seconds=0.15,
                          setup_seconds=0.2, sizes={"cipher:c0:upload": 16 << 20, "cipher:c1:upload": 512 << 20})
        ordered = sorted(report.summaries, key=lambda s: s.rank or 0)
        return [s.case_id for s in ordered if s.relation is Relation.DIFFERENT] + [ordered[0].case_id]
    for seed in range(6):
        assert run(True, seed)[-1] == "cipher:c0:upload", "steady: the truly faster case ranks first"
    reversed_whole = sum(run(False, seed)[-1] == "cipher:c1:upload" for seed in range(6))
    assert reversed_whole >= 5, "the whole data phase, with its fixed cost, ranks them the wrong way"


def test_the_simulated_drift_is_slow() -> None:
    """Consecutive samples of the fake machine agree better than samples far apart, as on the real VMs."""
    report = simulate([500e6], 0.0, 3, RunOptions(time_budget_seconds=None, runs=200, size_bytes=50 << 20),
                      drift_sd=0.4, drift_seconds=60.0)
    logs = [math.log(s.throughput_bytes_per_second or 1) for s in report.samples if not s.warmup]
    near = statistics.pstdev([b - a for a, b in itertools.pairwise(logs)])
    far = statistics.pstdev([b - a for a, b in zip(logs, logs[100:], strict=False)])
    assert near < 0.5 * far
    random.seed(0)
