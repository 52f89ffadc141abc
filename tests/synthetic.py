"""Synthetic decision-mode runs with a known truth, for the tests and bench/decision_calibration.py.

Each simulated case draws throughput from a log-normal around its true
rate; the real summarize/verdict/schedule code decides who gets the next
samples, exactly as in a run, but no SSH is involved.
"""

from __future__ import annotations

import random

from sshbench.analysis.decide import DecisionRule, rule_for
from sshbench.analysis.stats import summarize
from sshbench.options import RunOptions
from sshbench.plan.schedule import DecisionSchedule, round_state
from sshbench.results.kinds import Relation
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample

BYTES = 100_000_000


def case(i: int) -> Case:
    return Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=f"c{i}")


def sample(case: Case, rng: random.Random, rate: float, cv: float, round_no: int) -> Sample:
    measured = rate * rng.lognormvariate(0, cv)
    return Sample(case.id, round_no, round_no == 0, True, "", BYTES, bytes_received=BYTES,
                  data_seconds=BYTES / measured, total_seconds=BYTES / measured + 0.1)


def simulate(rates: list[float], cv: float, seed: int, options: RunOptions | None = None,
             rule: DecisionRule | None = None) -> Report:
    """A decision-mode run over synthetic cases with these true rates; the report as a real run leaves it."""
    options = options or RunOptions()
    rng = random.Random(seed)
    cases = [case(i) for i in range(len(rates))]
    truth = {c.id: r for c, r in zip(cases, rates, strict=True)}
    report = Report("test", "", seed, options=options, cases=[CaseRecord(c) for c in cases])
    plan = DecisionSchedule(cases, options.min_runs, options.max_runs, seed)
    rule = rule or rule_for(options)
    for _ in range(200):  # bounded: the schedule ends long before
        rnd = plan.next_round(round_state(report))
        if not rnd:
            break
        report.samples += [sample(v.case, rng, truth[v.case.id], cv, v.round) for v in rnd]
        report.summaries = summarize(report.cases, report.samples, rule=rule)  # a run does this every sample
    return report


def counts(report: Report) -> dict[str, int]:
    return {s.case_id: s.samples_ok for s in report.summaries}


def relations(report: Report) -> list[Relation]:
    return [s.relation for s in sorted(report.summaries, key=lambda s: s.rank or 0) if s.relation is not None]
