"""Findings (analysis/findings.py): a report is concluded once, and every output lays out that one record.

The answers used to be drawn again wherever they were shown (the cipher answer twice in one terminal report,
the link answer and its rivals once for the lines and once for the JSON). Here: the record holds what the
analysis computes.
"""

from __future__ import annotations

import pytest

from sshbench.analysis.answer import answers
from sshbench.analysis.conclude import conclude
from sshbench.analysis.contest import rivals
from sshbench.analysis.remedies import path_answers
from sshbench.analysis.verdicts import run_rule
from tests.conftest import load_report

LINK = "results-rtt40-loss1-streams-1-4-8.json.gz"  # a link answer with rivals
SERVERS = "results-servers-openssh-dropbear-tinysshd.json.gz"  # each server's answers from its own view


@pytest.mark.parametrize("name", [LINK, SERVERS])
def test_the_findings_hold_what_the_analysis_computes(name: str) -> None:
    report = load_report(name)
    found = conclude(report)
    assert found.report is report and found.rule == run_rule(report)
    assert found.answers == tuple(answers(report))
    assert found.path_answers == tuple(path_answers(report))
    picks = rivals(report, path_answers(report))
    assert [p.rivals for p in found.paths] == [picks.get(a.best.case.id, ()) if a.best else () for a in
                                               found.path_answers]
    views = report.joined()
    for cipher in found.ciphers:  # the rows an answer was chosen from are its own side's and link's, ranked
        assert cipher.answer.best in [n for n, _ in cipher.ranked]
        assert all(views[s.case_id].case.build == cipher.answer.build and views[s.case_id].case.link ==
                   cipher.answer.link and views[s.case_id].case.subject == n for n, s in cipher.ranked)
    if name == LINK:
        assert any(p.rivals for p in found.paths)

