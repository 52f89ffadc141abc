"""What a reason or an error is, as a value (results/kinds.py, issue 63): rewording one changes no decision, and
a file from before the values reads as it did."""

from __future__ import annotations

import json

from sshbench.analysis.stats import SET_ASIDE, summarize
from sshbench.plan.selection import select
from sshbench.render.hosts import _cell
from sshbench.results.codec import report_to_dict, results_from_dict
from sshbench.results.kinds import ReasonKind
from sshbench.results.legacy import upgrade
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Direction, Report, Sample
from sshbench.targets.discovery import ClientInfo
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind
from tests.conftest import load_report

CASE = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com")


def _good(round_no: int) -> Sample:
    return Sample(case_id=CASE.id, round=round_no, warmup=round_no == 0, ok=True, started_at="t", size_bytes=1,
                  bytes_received=1, data_seconds=1.0)


def test_a_set_aside_reason_is_cleared_by_its_kind_not_its_words() -> None:
    reworded = CaseRecord(CASE, reason="all samples were kept out: too short", reason_kind=ReasonKind.SET_ASIDE)
    summarize([reworded], [_good(0), _good(1)])
    assert reworded.status is CaseStatus.MEASURED and reworded.reason is None and reworded.reason_kind is None
    # words that begin as the set-aside reason does, of a reason that is not one, stay
    lookalike = CaseRecord(CASE, reason=f"{SET_ASIDE}said by the user")
    summarize([lookalike], [_good(0), _good(1)])
    assert lookalike.reason == f"{SET_ASIDE}said by the user"


def test_a_case_whose_samples_were_all_set_aside_fails_with_that_kind() -> None:
    record = CaseRecord(CASE)
    aside = _good(1)
    aside.unusable = "no steady window"
    summarize([record], [_good(0), aside])
    assert record.status is CaseStatus.FAILED and record.reason_kind is ReasonKind.SET_ASIDE
    assert record.reason == f"{SET_ASIDE}no steady window"
    failed = CaseRecord(CASE)
    error = Sample(case_id=CASE.id, round=1, warmup=False, ok=False, started_at="t", size_bytes=1, error="boom")
    summarize([failed], [_good(0), error, aside])
    assert failed.reason == "boom" and failed.reason_kind is None


def test_a_new_reason_never_keeps_the_old_one_s_kind() -> None:
    record = CaseRecord(CASE, reason=f"{SET_ASIDE}x", reason_kind=ReasonKind.SET_ASIDE)
    record.set_reason("re-sized after a timeout")
    assert record.reason_kind is None


def test_the_server_not_offering_a_cipher_is_a_kind_the_hosts_table_reads() -> None:
    client = ClientInfo("ssh", "OpenSSH_9.2", None, AlgorithmLists(cipher=("aes128-ctr", "aes256-ctr")),
                        AlgorithmLists(cipher=("aes128-ctr",)), (), ())
    chosen = select(Kind.CIPHER, "aes128-ctr,aes256-ctr", client, AlgorithmLists(cipher=("aes128-ctr",)))
    assert chosen.measure == ("aes128-ctr",) and chosen.unoffered == {"aes256-ctr"}
    report = Report("t", "t", 1)
    report.cases = [CaseRecord(Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-ctr"),
                               status=CaseStatus.SKIPPED, reason="the server has none of it",
                               reason_kind=ReasonKind.NOT_OFFERED)]
    assert _cell(report, "upload", "aes256-ctr", {}) == "not offered"
    report.cases[0].set_reason("skipped: not offered by the server, as it says")  # the words alone decide nothing
    assert _cell(report, "upload", "aes256-ctr", {}) == "skipped"


def test_a_schema_15_file_s_reasons_read_as_the_kinds_its_words_were_taken_for() -> None:
    data = json.loads(json.dumps(report_to_dict(load_report())))
    data["schema_version"] = 15
    words = {"not offered by the server": "not offered", "server refused: no matching cipher found": "refused",
             f"{SET_ASIDE}no steady window": "set aside", "left out to fit the time budget": None}
    for record, why in zip(data["cases"], words, strict=False):
        record["reason"] = why
        record.pop("reason_kind", None)
    upgraded = upgrade(data)
    assert isinstance(upgraded, dict) and upgraded["schema_version"] == 16
    assert [r.get("reason_kind") for r in upgraded["cases"][:len(words)]] == list(words.values())
    (report,) = results_from_dict(data)
    assert [r.reason_kind for r in report.cases[:len(words)]] == [
        None if kind is None else ReasonKind(kind) for kind in words.values()]
