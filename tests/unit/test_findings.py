"""Findings (analysis/findings.py): a report is concluded once, and every output lays out that one record.

The answers used to be drawn again wherever they were shown (the cipher answer twice in one terminal report,
the link answer and its rivals once for the lines and once for the JSON). These tests count the calls of the
functions that compute them at every place they can be called from, through whole commands.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import io
import json
import sys
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import sshbench.analysis.answers.answer
import sshbench.analysis.answers.build_ratios
import sshbench.analysis.answers.contest
import sshbench.analysis.answers.remedies
import sshbench.analysis.answers.servers
import sshbench.analysis.comparisons.stated
import sshbench.analysis.conclude
import sshbench.analysis.connections.commands
import sshbench.analysis.connections.logins
import sshbench.analysis.connections.phases
import sshbench.analysis.connections.stalls
import sshbench.analysis.physics.limits
import sshbench.analysis.physics.links
import sshbench.analysis.physics.references
from sshbench.analysis.answers.answer import answers
from sshbench.analysis.answers.build_ratios import build_rows
from sshbench.analysis.answers.contest import rivals
from sshbench.analysis.answers.remedies import path_answers
from sshbench.analysis.answers.servers import server_questions
from sshbench.analysis.conclude import conclude
from sshbench.analysis.connections.commands import command_figures
from sshbench.analysis.connections.logins import knees, load_points
from sshbench.analysis.connections.phases import phase_splits
from sshbench.analysis.connections.stalls import stalls
from sshbench.analysis.findings import Findings
from sshbench.analysis.physics.links import bounds, every_bound
from sshbench.analysis.stats.verdicts import run_rule
from sshbench.cli import main
from sshbench.cli.context import Context
from sshbench.render.jsondoc import report_json
from sshbench.render.progress import JsonLinesReporter
from sshbench.render.tables import result_tables
from sshbench.render.verdict import answer_sections
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
        by_recommendation = any(f.filename.endswith("analysis/config/recommend.py") for f in traceback.extract_stack())
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
    answered = _calls(monkeypatch, sshbench.analysis.answers.answer, "answers")
    paths = _calls(monkeypatch, sshbench.analysis.answers.remedies, "path_answers")
    contested = _calls(monkeypatch, sshbench.analysis.answers.contest, "rivals")
    results = str(DATA / "results-hosts.json")  # two hosts: two reports
    code = main(["report", results, "--json", "--markdown", str(tmp_path / "r.md"), "--html", str(tmp_path / "r.html"),
                 "--summary-csv", str(tmp_path / "r.csv"), "--charts", str(tmp_path / "charts")])
    assert code == 0 and (tmp_path / "r.html").stat().st_size and any((tmp_path / "charts").rglob("*.svg"))
    reports = {report for report, _ in concluded}
    assert len(concluded) == len(reports) == 2  # once per run, for the JSON, the page, the Markdown and the charts
    assert sorted(answered) == sorted(contested) == sorted(concluded)  # and only there
    # the page's kept recommendation, checked inside conclude(), draws the link answer its advice reads
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



# the recorded results files (tests/data/README.md), each with its runs: every slice of the findings is in one
RECORDED = ["results-small.json", "results-hosts.json", "results-commands-reuse.json.gz", "results-logins-1-4.json.gz",
            "results-rtt20-setup-phases.json.gz", LINK, SERVERS]
SLICES = {  # function, the module every binding of it is counted from, what takes its result
    "server_questions": sshbench.analysis.answers.servers, "command_figures": sshbench.analysis.connections.commands,
    "load_points": sshbench.analysis.connections.logins, "knees": sshbench.analysis.connections.logins,
    "phase_splits": sshbench.analysis.connections.phases, "stalls": sshbench.analysis.connections.stalls,
    "build_rows": sshbench.analysis.answers.build_ratios, "every_bound": sshbench.analysis.physics.links,
    "bounds": sshbench.analysis.physics.links, "bound_of": sshbench.analysis.physics.links,
    "judged": sshbench.analysis.physics.references, "limit_findings": sshbench.analysis.physics.limits,
    "link_windows": sshbench.analysis.physics.limits, "against_plain": sshbench.analysis.comparisons.stated,
}


def _plain(name: str, tmp_path: Path) -> Path:
    """A recorded file as `report` reads it (the larger ones are kept gzipped)."""
    if not name.endswith(".gz"):
        return DATA / name
    path = tmp_path / name.removesuffix(".gz")
    path.write_bytes(gzip.decompress((DATA / name).read_bytes()))
    return path


@pytest.mark.parametrize("name", RECORDED)
def test_the_findings_hold_every_slice_as_the_analysis_computes_it(name: str, tmp_path: Path) -> None:
    for report in read_results(str(_plain(name, tmp_path))):
        found = conclude(report)
        assert found.servers == tuple(server_questions(report))
        assert found.commands == tuple(command_figures(report))
        assert found.logins == tuple(load_points(report)) and found.knees == knees(load_points(report))
        assert found.phases == tuple(phase_splits(report))
        assert found.stalls == tuple(stall for split in phase_splits(report) for stall in stalls(split))
        assert found.builds == tuple(build_rows(report))
        assert found.bounds == tuple(every_bound(report)) and found.crossed == tuple(bounds(report))
        assert all(found.bound(b.case_id) is b for b in found.bounds)
        assert all(found.bound(s.case_id) is None for s in report.summaries
                   if s.case_id not in {b.case_id for b in found.bounds})


def _where_called(monkeypatch: pytest.MonkeyPatch, module: types.ModuleType, name: str) -> list[tuple[str, ...]]:
    """Every call of module.name from anywhere in sshbench, as the sshbench files on its stack."""
    original: Callable[..., Any] = getattr(module, name)
    calls: list[tuple[str, ...]] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(tuple(f.filename.split("/src/sshbench/")[-1] for f in traceback.extract_stack()
                           if "/src/sshbench/" in f.filename))
        return original(*args, **kwargs)

    for loaded in list(sys.modules.values()):
        if getattr(loaded, "__name__", "").startswith("sshbench") and getattr(loaded, name, None) is original:
            monkeypatch.setattr(loaded, name, counting)
    return calls


@pytest.mark.parametrize("name", RECORDED)
def test_report_computes_every_slice_in_conclude_once_and_no_renderer_computes_one(
        name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sshbench.render.charts
    import sshbench.render.html
    import sshbench.render.markdown  # noqa: F401  # loaded now: their bindings are counted too

    results = _plain(name, tmp_path)
    runs = read_results(str(results))
    splits = sum(len(phase_splits(r)) for r in runs)
    calls = {fn: _where_called(monkeypatch, module, fn) for fn, module in SLICES.items()}
    code = main(["report", str(results), "--json", "--markdown", str(tmp_path / "r.md"), "--html",
                 str(tmp_path / "r.html"), "--charts", str(tmp_path / "charts")])
    assert code == 0
    for fn, stacks in calls.items():
        # the page's kept recommendation is checked inside conclude() too (analysis/config/configtext.kept), and what
        # its advice reads (analysis/config/recommend.py) is drawn there: never from a renderer
        assert not [s for s in stacks if any(f.startswith("render/") for f in s)], fn
        assert all("analysis/conclude.py" in s for s in stacks), fn  # conclude_fleet's fleet recommendation too
        drawn = [s for s in stacks if "analysis/config/recommend.py" not in s]
        concluded = [s for s in drawn if s[-1] == "analysis/conclude.py"]  # called by conclude() itself
        if fn == "stalls":
            assert len(concluded) == splits  # once per split
        elif fn not in ("bound_of", "bounds"):  # bound_of: per summary, by every_bound and the link answer
            assert len(concluded) == len(runs), fn


def _outputs(found: Findings) -> tuple[str, dict[str, Any]]:
    """What the terminal, Markdown and HTML lay out (the answers' sections and every table's title and cells) and
    the run's JSON document."""
    words = [heading for heading, _ in answer_sections(found)]
    words += [f"{t.title}: {t.rows} {t.caption}" for t in result_tables(found)]
    return "\n".join(words), json.loads(json.dumps(report_json([found])))["runs"][0]


@pytest.mark.parametrize(("name", "emptied", "shown", "key"), [
    (SERVERS, ("servers",), "Which server, and by how much", "servers"),
    (SERVERS, ("builds",), "side by side", None),
    ("results-commands-reuse.json.gz", ("commands",), "Short commands: ssh started to ssh exited", "commands"),
    ("results-logins-1-4.json.gz", ("logins", "knees"), "Logins per second", "logins"),
    ("results-rtt20-setup-phases.json.gz", ("phases", "stalls"), "Where set-up time goes", "setup_phases"),
    (LINK, ("bounds", "crossed"), "Across the links", None),
])
def test_the_outputs_lay_out_the_findings_they_are_given(name: str, emptied: tuple[str, ...], shown: str,
                                                         key: str | None) -> None:
    """Each output shows a slice from the Findings it is handed: the same record laid out again says the same, and
    the record without that slice shows none of it, though its report still holds the evidence."""
    found = conclude(load_report(name))
    text, document = _outputs(found)
    assert (text, document) == _outputs(found) and shown in text
    empty: dict[str, Any] = {field: () for field in emptied}
    without = dataclasses.replace(found, **empty)
    text_without, document_without = _outputs(without)
    assert shown not in text_without
    if key is not None:
        assert document[key] and document_without[key] in ([], {"knees": [], "stages": []})


def test_within_still_reports_a_report_s_evidence_is_read_once_and_the_verdicts_are_the_same() -> None:
    """conclude() draws every verdict from a finished report inside still_reports(): each sample is read once
    (the three-server recording asked 57 times); outside, as while a run measures and sets samples aside, every
    call reads the samples afresh."""
    from sshbench.analysis.comparisons import dimensions
    from sshbench.analysis.stats.verdicts import run_rule

    report = load_report(SERVERS)
    rule = run_rule(report)
    pairs = [(p.base, p.other) for p in dimensions.cross_pairs([r.case for r in report.cases])]
    fresh = dimensions.judged(report, rule, pairs, True)
    assert fresh  # the servers side by side are cross pairs with verdicts
    with dimensions.still_reports():
        first = dimensions._evidence(report)
        assert dimensions._evidence(report) is first
        assert dimensions.judged(report, rule, pairs, True) == fresh
    assert dimensions._evidence(report) is not first
