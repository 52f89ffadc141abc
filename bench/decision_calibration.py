"""How often the decision rule is wrong, on synthetic samples with a known truth (no SSH involved).

Tables of identical cases (no true difference): the share of runs in which
any pair is called "different", with the run's correction for its looks and
without it (Holm over pairs only, as if each look were the only one). Then
tables with real 10%/20% steps: the share of pairs settled and of wrong
directions. Everything runs the real verdict and schedule code, seeded.

Usage: python bench/decision_calibration.py [--runs 400]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' synthetic runs

from tests.synthetic import BYTES, relations, simulate

from sshbench.analysis.stats.verdicts import DecisionRule
from sshbench.options import RunOptions
from sshbench.vocabulary.case_terms import Relation


def null_rate(runs: int, cases: int, cv: float, rule_looks: bool) -> float:
    wrong = 0
    for seed in range(runs):
        options = RunOptions(time_budget_seconds=None, size_bytes=BYTES)
        report = simulate([700e6] * cases, cv, seed, options, None if rule_looks else DecisionRule(
            margin=options.tie_margin, max_runs=options.max_runs))
        wrong += Relation.DIFFERENT in relations(report)
    return wrong / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=400)
    args = parser.parse_args()
    rng = random.Random(1)
    for cv in (0.1, 0.2):
        corrected = null_rate(args.runs, 5, cv, True)
        naive = null_rate(args.runs, 5, cv, False)
        print(f"no true difference, 5 cases, noise {cv:.0%}: tables with a wrong 'different': {corrected:.1%} with the "
              f"looks correction, {naive:.1%} without it (bound: 5%)")
    for step in (1.1, 1.2):
        settled = wrong = pairs = 0
        for seed in range(args.runs // 4):
            rates = [1000e6 / step**i for i in range(6)]
            rng.shuffle(rates)
            report = simulate(rates, 0.12, seed)
            ordered = sorted(report.summaries, key=lambda s: s.rank or 0)
            truth = sorted(ordered, key=lambda s: -rates[int(s.case_id.split(":")[1][1:])])
            for above, below in itertools.pairwise(ordered):
                pairs += 1
                settled += below.relation is not Relation.UNSETTLED
                wrong += below.relation is Relation.DIFFERENT and truth.index(above) > truth.index(below)
        print(f"6 cases {step - 1:.0%} apart, noise 12%: {settled / pairs:.0%} of neighbour pairs settled, "
              f"{wrong} of {pairs} called different the wrong way round")


if __name__ == "__main__":
    main()
