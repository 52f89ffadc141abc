"""Which server, and by how much (analysis/answers/servers.py, render/servers.py), on a recorded real run of the three
embedded servers as one report (tests/data/README.md)."""

from __future__ import annotations

import gzip
import json
from importlib.resources import files
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs
import pytest

from sshbench.analysis.answers.answer import answers
from sshbench.analysis.answers.build_ratios import build_rows
from sshbench.analysis.answers.servers import server_questions
from sshbench.analysis.comparisons.dimensions import cross_verdicts
from sshbench.analysis.conclude import conclude
from sshbench.analysis.stats.verdicts import run_rule
from sshbench.render.jsondoc import report_document
from sshbench.render.servers import server_lines
from sshbench.results.model import Report
from sshbench.results.store import read_results
from sshbench.results.views import compares_servers, per_server, side_word
from sshbench.vocabulary.case_terms import Relation

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    path = tmp_path_factory.mktemp("servers") / "r.json"
    path.write_bytes(gzip.decompress((DATA / "results-servers-openssh-dropbear-tinysshd.json.gz").read_bytes()))
    (found,) = read_results(str(path))
    return found


def test_each_server_is_a_side_whose_view_is_that_servers_own_report(report: Report) -> None:
    assert compares_servers(report) and side_word(report) == "server"
    views = per_server(report)
    assert [v.label for v in views] == ["embedded", "embedded-dropbear", "embedded-tinysshd"]
    assert [v.environment.server.software for v in views] == ["openssh", "dropbear", "tinysshd"]
    assert [bool(v.environment.terrapin and v.environment.terrapin.protected) for v in views] == [True, True, False]
    for view in views:  # a view holds its own server's cases only, and is no longer a run of several servers
        assert {r.case.build for r in view.cases if r.case.kind.algorithm} == {view.environment.builds[0].name}
        assert not compares_servers(view)


def test_the_answer_is_each_servers_own_and_a_cipher_open_to_terrapin_there_is_not_safe(report: Report) -> None:
    found = {(a.build, a.direction.value): a.best for a in answers(report)}
    assert found[("openssh", "upload")] in ("aes256-gcm@openssh.com", "aes128-gcm@openssh.com")
    assert found[("dropbear", "upload")] == "chacha20-poly1305@openssh.com"
    assert ("tinysshd", "upload") not in found, "tinysshd's ChaCha20 without strict kex is not a safe answer"
    assert all(a.axis == "server" for a in answers(report))


def test_which_server_names_the_leader_only_where_every_other_is_significantly_slower(report: Report) -> None:
    questions = server_questions(report)
    assert [(q.direction.value, q.question) for q in questions] == [
        ("upload", "default"), ("upload", "fastest safe"), ("download", "default"), ("download", "fastest safe")]
    for question in questions:
        leader, *others = question.figures
        assert leader.server == "openssh" and leader.ratio is None and leader.server_cpu is not None
        assert all(f.ratio is not None and f.ratio < 1 and f.low is not None and f.high is not None
                   and f.low <= f.ratio <= f.high for f in others)
        assert question.proven == all(f.relation is Relation.DIFFERENT for f in others)
    default = questions[0]
    assert {f.server: f.safe for f in default.figures} == {"openssh": True, "dropbear": True, "tinysshd": False}
    best = questions[1]
    assert [f.server for f in best.figures] == ["openssh", "dropbear"]
    assert best.unmeasured == ("tinysshd: no cipher without a known weakness was measured there",)
    first = server_lines(conclude(report))[0]
    assert first.startswith("upload, this client's default, chacha20-poly1305@openssh.com: openssh is fastest: ")
    assert "dropbear 0.23x [0.20, 0.27]: significantly slower" in first
    assert "has a known weakness there" in first


def test_report_json_carries_the_server_answer_under_its_schema(report: Report) -> None:
    document = json.loads(report_document([conclude(report)]))
    schema = json.loads(files("sshbench.schemas").joinpath("report.schema.json").read_text())
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
    (run,) = document["runs"]
    assert [q["question"] for q in run["servers"]] == ["default", "fastest safe"] * 2
    assert {a["axis"] for a in run["answer"]} == {"server"}


def test_the_server_answer_states_the_cross_pairs_corrected_verdict(report: Report) -> None:
    """The servers answer, the builds table and the schedule's cross pair state one interval for one pair: the
    verdict of the build dimension's family under the run's rule (analysis/comparisons/stated.py), not a 95% one of
    its own."""
    verdicts = {frozenset((v.faster, v.slower)): v for v in cross_verdicts(report, run_rule(report))}
    leader_id = "cipher:chacha20-poly1305@openssh.com:upload#openssh"
    default = server_questions(report)[0]
    checked = 0
    for figure in default.figures[1:]:
        other_id = leader_id.replace("#openssh", f"#{figure.server}")
        verdict = verdicts[frozenset((leader_id, other_id))]
        assert verdict.faster == leader_id and figure.relation is verdict.relation
        assert figure.ratio == pytest.approx(1 / verdict.ratio)
        assert verdict.ratio_low is not None and verdict.ratio_high is not None
        assert figure.low == pytest.approx(1 / verdict.ratio_high)
        assert figure.high == pytest.approx(1 / verdict.ratio_low)
        checked += 1
    assert checked == 2
    cells = {(row.case.subject, row.case.direction.value): row.cells for row in build_rows(report)}
    dropbear = cells[("chacha20-poly1305@openssh.com", "upload")]["dropbear"]
    figure = next(f for f in default.figures if f.server == "dropbear")
    assert (dropbear.ratio, dropbear.low, dropbear.high, dropbear.relation) == \
        (figure.ratio, figure.low, figure.high, figure.relation), "the builds table states the same pair alike"
