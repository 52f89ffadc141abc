"""One comparison between two cases of a report, as the decision rule sees it: its data, and its forecast.

The answer (analysis/answers/answer.py) and the schedule's use of the time left
(plan/funding.py) both ask of an open pair "what would settle it, and how
long would that take here"; both read it from here, so the two never
disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sshbench.analysis.stats.forecast import Forecast, forecast, visit_seconds
from sshbench.analysis.stats.stats import counted, headline_value, paired_ratios
from sshbench.analysis.stats.verdicts import FUTILITY_PAIRED, DecisionRule, costs, paired_costs, run_rule
from sshbench.results.model import Report


class PairData:
    """A report's samples indexed once for many pair questions: log values per case, back-to-back ratios, visit
    times, and the rule its verdicts were made with."""

    def __init__(self, report: Report, rule: DecisionRule | None = None) -> None:
        self.rule = rule or run_rule(report)
        self.margin = report.options.tie_margin
        self.values: dict[str, list[float]] = {}
        self.seconds: dict[str, list[float]] = {}
        for sample in counted(report.samples):
            if (value := headline_value(sample)) is not None and value > 0:
                self.values.setdefault(sample.case_id, []).append(value)
        for sample in report.samples:
            if not sample.warmup and sample.total_seconds is not None:
                self.seconds.setdefault(sample.case_id, []).append(sample.total_seconds)
        self.paired: Mapping[tuple[str, str], Sequence[float]] = paired_ratios(report.samples)

    def visits(self, one: str, two: str) -> int:
        """Back-to-back visits of the two that gave a ratio (the pair's progress towards its cap)."""
        return len(self.paired.get((one, two), self.paired.get((two, one), ())))

    def visit(self, one: str, two: str) -> float:
        """Seconds one visit of each of the two takes."""
        return visit_seconds(self.seconds.get(one, [])) + visit_seconds(self.seconds.get(two, []))

    def forecast(self, faster: str, slower: str, bigger_better: bool, competing: int = 1,
                 level: tuple[float, float] | None = None) -> Forecast:
        """The forecast for faster vs slower. Its thresholds: `level` (two-sided, one-sided) where given (a 95%
        comparison), else the rule's at its last look with Holm's share for `competing` open pairs."""
        rule = self.rule.for_table(bigger_better)
        d = paired_costs(self.paired, faster, slower, bigger_better) if rule.paired else []
        if len(d) < FUTILITY_PAIRED:  # as futility does: pairs' own spread once there are a few (drift cancelled)
            d = []
        if level is None:
            last, share = rule.max_runs or 0, rule.alpha / max(1, competing)
            level = (rule.level(share, last), rule.level(share, last, two_sided=False))
        cost = self.visit(faster, slower)
        return forecast(costs(self.values.get(faster, []), bigger_better),
                        costs(self.values.get(slower, []), bigger_better), d, cost, self.margin, *level)
