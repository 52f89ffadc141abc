"""How the placement trial's test behaves, on synthetic trials with a known truth (no SSH involved).

A trial is 8 samples in each placement (measure/placing.py). For placements
that spread alike, how often free is chosen by chance (the test's error,
5% by design); for free spreading 1/r as much as split, how often free is
chosen; and for split steadier by r, how often the trial says so. The
spreads are log SDs around the EPYC VM's 0.2 per sample; r = 1.2 is that
VM's measured ratio, 8.4 the Xeon's. Seeded; runs the real test code.

Usage: python bench/placement_trial.py [--trials 400]
"""

from __future__ import annotations

import argparse
import random

from sshbench.analysis.stats.placing import ALPHA, steadier
from sshbench.measure.placing import TRIAL_SAMPLES


def _rates(rng: random.Random, sd: float) -> list[float]:
    return [500e6 * rng.lognormvariate(0, sd) for _ in range(TRIAL_SAMPLES)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--trials", type=int, default=400)
    args = parser.parse_args()
    rng = random.Random(2026)
    print(f"{args.trials} seeded trials each, {TRIAL_SAMPLES} samples per placement, one-sided alpha {ALPHA}")
    print("ratio r  free steadier by r: free chosen   split steadier by r: split found steadier")
    for ratio in (1.0, 1.2, 1.5, 2.0, 3.0, 8.4):
        free_wins = sum(steadier(_rates(rng, 0.2 * ratio), _rates(rng, 0.2))[0] < ALPHA
                        for _ in range(args.trials))
        split_wins = sum(steadier(_rates(rng, 0.2), _rates(rng, 0.2 * ratio))[1] < ALPHA
                         for _ in range(args.trials))
        print(f"{ratio:7.1f}  {free_wins / args.trials:32.1%}   {split_wins / args.trials:38.1%}")


if __name__ == "__main__":
    main()
