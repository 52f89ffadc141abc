"""The placement trial: which placement is steadier, chosen from a short trial of both, and never mixed into a
case's samples (analysis/stats/placing.py, measure/placing.py), on simulated machines through the real loop."""

from __future__ import annotations

import random

import pytest

from sshbench.analysis.stats.placing import ALPHA, choose_placement, steadier
from sshbench.measure.loop import Hooks, run_loop
from sshbench.measure.placing import TRIAL_SAMPLES
from sshbench.options import RunOptions
from sshbench.plan.decision import DecisionSchedule
from sshbench.results.model import CaseRecord, Report
from tests.synthetic import FakeClock, FakeSampler, case


def _rates(rng: random.Random, sd: float, n: int = TRIAL_SAMPLES, centre: float = 500e6) -> list[float]:
    return [centre * rng.lognormvariate(0, sd) for _ in range(n)]


def test_free_is_chosen_only_where_it_is_clearly_steadier() -> None:
    rng = random.Random(1)
    calm, rough = 0.03, 0.3
    assert choose_placement("c", _rates(rng, calm), _rates(rng, rough), 8.0).chosen == "split"
    chosen = choose_placement("c", _rates(rng, rough), _rates(rng, calm), 8.0)
    assert chosen.chosen == "free" and chosen.reason.startswith("free chosen") and "p=" in chosen.reason
    same = choose_placement("c", _rates(rng, 0.1), _rates(rng, 0.1), 8.0)
    assert same.chosen == "split"
    few = choose_placement("c", _rates(rng, rough, 3), _rates(rng, calm), 8.0)
    assert few.chosen == "split" and "too few" in few.reason


def test_where_both_are_alike_free_is_seldom_chosen() -> None:
    """The one-sided test's error: how often free wins by chance when both spread alike (60 seeded trials)."""
    rng = random.Random(7)
    wrong = sum(steadier(_rates(rng, 0.2), _rates(rng, 0.2))[0] < ALPHA for _ in range(60))
    assert wrong <= 8, f"free chosen in {wrong} of 60 trials of equal placements (expected about 3)"


def _run(free_noise: float, options: RunOptions, trial: bool = True) -> tuple[Report, FakeSampler]:
    cases = [case(i) for i in range(3)]
    clock = FakeClock()
    sampler = FakeSampler({c.id: r for c, r in zip(cases, (900e6, 800e6, 300e6), strict=True)}, clock, seed=3,
                          noise_cv=0.05, free_noise_cv=free_noise, free_speed=0.6, fixed_seconds=0.1)
    report = Report("test", "", 3, options=options, cases=[CaseRecord(c) for c in cases])
    plan = DecisionSchedule(cases, options.min_runs, options.max_runs, 3)
    run_loop(report, plan, sampler, options, lambda _r: None,
             hooks=Hooks(clock=clock, place=sampler.place if trial else None))
    return report, sampler


@pytest.mark.parametrize("free_noise, chosen", [(0.4, "split"), (0.005, "free")])
def test_the_run_tries_both_then_measures_every_counted_sample_in_the_one_it_chose(free_noise: float,
                                                                                      chosen: str) -> None:
    report, machine = _run(free_noise, RunOptions(time_budget_seconds=600))
    trial = report.placement_trial
    assert trial is not None and trial.chosen == chosen and trial.case_id == case(0).id  # the fastest case
    assert len(trial.split) == len(trial.free) == TRIAL_SAMPLES and trial.seconds > 0
    warmups = [s for s in report.samples if s.warmup]
    after = machine.taken[len(warmups) + 2 * TRIAL_SAMPLES:]
    assert [p for _, p in machine.taken[len(warmups):len(warmups) + 2 * TRIAL_SAMPLES]] == \
        ["split", "free"] * TRIAL_SAMPLES
    assert len(after) == len(report.samples) - len(warmups), "a trial sample was counted as a case's"
    assert {p for _, p in after} == {chosen}


def test_no_trial_without_a_budget_or_where_it_would_cost_too_much() -> None:
    report, machine = _run(0.4, RunOptions(time_budget_seconds=None, min_runs=6, max_runs=8))
    assert report.placement_trial is not None and not report.placement_trial.split
    assert "decision mode with a time budget" in report.placement_trial.reason
    assert {p for _, p in machine.taken} == {"split"}
    tight, _ = _run(0.4, RunOptions(time_budget_seconds=60))
    assert tight.placement_trial is not None and "over 5% of the 60 s budget" in tight.placement_trial.reason
    untried, _ = _run(0.4, RunOptions(time_budget_seconds=600), trial=False)
    assert untried.placement_trial is None
