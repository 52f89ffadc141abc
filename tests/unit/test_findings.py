"""Findings (analysis/findings.py): a report is concluded once, and every output lays out that one record.

The answers used to be drawn again wherever they were shown (the cipher answer twice in one terminal report,
the link answer and its rivals once for the lines and once for the JSON). These tests count the calls of the
functions that compute them at every place they can be called from, through whole commands.
"""

from __future__ import annotations

import argparse
import io
import sys
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import sshbench.analysis.answer
import sshbench.analysis.conclude
import sshbench.analysis.contest
import sshbench.analysis.remedies
from sshbench.analysis.answer import answers
from sshbench.analysis.conclude import conclude
from sshbench.analysis.contest import rivals
from sshbench.analysis.remedies import path_answers
from sshbench.analysis.verdicts import run_rule
from sshbench.cli import main
from sshbench.cli.context import Context
from sshbench.render.progress import JsonLinesReporter
from sshbench.results.model import Report
from sshbench.results.store import read_results
from tests.conftest import DATA, load_report

LINK = "results-rtt40-loss1-streams-1-4-8.json.gz"  # a link answer with rivals
SERVERS = "results-servers-openssh-dropbear-tinysshd.json.gz"  # each server's answers from its own view


def _calls(monkeypatch: pytest.MonkeyPatch, module: types.ModuleType, name: str) -> list[tuple[int, bool]]:
    """Every call of module.name from anywhere in sshbench, as (id of the report it was given, whether the
    recommendation made it): every sshbench module's binding of the function is replaced by a counting one."""
    original: Callable[..., Any] = getattr(module, name)
    calls: list[tuple[int, bool]] = []

    def counting(report: Report, *args: Any, **kwargs: Any) -> Any:
        by_recommendation = any(f.filename.endswith("analysis/recommend.py") for f in traceback.extract_stack())
        calls.append((id(report), by_recommendation))
        return original(report, *args, **kwargs)

    for loaded in list(sys.modules.values()):
        if getattr(loaded, "__name__", "").startswith("sshbench") and getattr(loaded, name, None) is original:
            monkeypatch.setattr(loaded, name, counting)
    return calls


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


def test_report_concludes_each_run_once_however_many_outputs_it_writes(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    # the modules `report` loads only when asked for, loaded now: their bindings are counted too
    import sshbench.render.charts
    import sshbench.render.html
    import sshbench.render.markdown

    concluded = _calls(monkeypatch, sshbench.analysis.conclude, "conclude")
    answered = _calls(monkeypatch, sshbench.analysis.answer, "answers")
    paths = _calls(monkeypatch, sshbench.analysis.remedies, "path_answers")
    contested = _calls(monkeypatch, sshbench.analysis.contest, "rivals")
    results = str(DATA / "results-hosts.json")  # two hosts: two reports
    code = main(["report", results, "--json", "--markdown", str(tmp_path / "r.md"), "--html", str(tmp_path / "r.html"),
                 "--summary-csv", str(tmp_path / "r.csv"), "--charts", str(tmp_path / "charts")])
    assert code == 0 and (tmp_path / "r.html").stat().st_size and any((tmp_path / "charts").rglob("*.svg"))
    reports = {report for report, _ in concluded}
    assert len(concluded) == len(reports) == 2  # once per run, for the JSON, the page, the Markdown and the charts
    assert sorted(answered) == sorted(contested) == sorted(concluded)  # and only there
    # the recommendation (the page's lock-out table) still draws its own link answer: the next slice's to move
    assert sorted(call for call in paths if not call[1]) == sorted(concluded)


def test_a_run_concludes_each_host_once_for_its_tables_its_last_answer_and_its_jsonl(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from sshbench.cli import run as cli_run

    reports = read_results(str(DATA / "results-hosts.json"))
    writer: Any = types.SimpleNamespace(json_path="r.json", csv_path="r.csv")
    for jsonl in (False, True):
        concluded = _calls(monkeypatch, sshbench.analysis.conclude, "conclude")
        out = io.StringIO()
        ctx = Context(Console(file=out, width=180), Console(file=io.StringIO()), argv=["run"])
        args = argparse.Namespace(jsonl=jsonl, quiet=False, wide=False, ssh_config=None)
        cli_run._finish(args, ctx, writer, [(r, []) for r in reports], JsonLinesReporter(out) if jsonl else None)
        assert sorted(concluded) == sorted((id(r), False) for r in reports), jsonl
        assert out.getvalue().count('"event": "finished"' if jsonl else "The answer:") == (1 if jsonl else 4)
        monkeypatch.undo()

