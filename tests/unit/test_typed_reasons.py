"""What a reason or an error is, as a value (results/kinds.py, issue 63): rewording one changes no decision, and
a file from before the values reads as it did."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import cast

import pytest
from rich.console import Console as RichConsole

from sshbench.analysis.conclude import conclude
from sshbench.analysis.config.configtext import CheckedRecommendation, OutcomeRow, block_host, client_block
from sshbench.analysis.config.recommend import build, figure, measured_candidates
from sshbench.analysis.physics.advice import Code, advise
from sshbench.analysis.security.lockout import Refused, keep_in
from sshbench.analysis.security.ordering import HANDSHAKE, Candidate, Evidence
from sshbench.analysis.stats.stats import SET_ASIDE, summarize
from sshbench.cli.context import Context
from sshbench.cli.hints import _selection_args
from sshbench.cli.recommend import _write_configs
from sshbench.measure import physics
from sshbench.measure.connection import NOT_STARTED
from sshbench.measure.failures import nothing_measured
from sshbench.measure.loop import Hooks, run_loop
from sshbench.measure.pace import Pace, resize_after_timeout
from sshbench.measure.proof import Failed, concluded
from sshbench.methods import METHODS, family
from sshbench.options import RunOptions
from sshbench.plan.schedules import schedule_for
from sshbench.plan.selection import select
from sshbench.render.facts import facts
from sshbench.render.hosts import _cell
from sshbench.render.lockout import outcome_table
from sshbench.results.codec import report_to_dict, results_from_dict
from sshbench.results.events import Visit
from sshbench.results.kinds import Failure, ReasonKind, StopCause, Unusable
from sshbench.results.legacy import upgrade
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Direction, Report, Sample
from sshbench.results.store import read_results
from sshbench.targets.base import Target
from sshbench.targets.discovery import ClientInfo
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.linkspec import parse_links
from sshbench.vocabulary.units import MiB
from tests.conftest import DATA, load_report
from tests.synthetic import FakeClock, FakeSampler
from tests.unit.test_hostile_host_output import _lines, _Ran, _Target
from tests.unit.test_link_answer_parts import _case, _sample

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
    assert isinstance(upgraded, dict) and upgraded["schema_version"] == 17
    assert [r.get("reason_kind") for r in upgraded["cases"][:len(words)]] == list(words.values())
    (report,) = results_from_dict(data)
    assert [r.reason_kind for r in report.cases[:len(words)]] == [
        None if kind is None else ReasonKind(kind) for kind in words.values()]


def _concluded(connections: list[_Ran], failed: Failed | None = None) -> Sample:
    sample = Sample(case_id=CASE.id, round=1, warmup=False, ok=False, started_at="", size_bytes=1)
    return concluded(cast(Target, _Target()), CASE, sample, connections, [], failed, False, 30.0)


def test_a_sample_s_failure_is_what_ended_it_however_many_streams_it_had() -> None:
    refused = [_Ran([]), _Ran(_lines("ssh-v-9.2-refused-cipher.txt")), _Ran([])]
    done = _concluded(refused)
    assert done.error == "stream 2 of 3: server refused: no matching cipher found" and done.failure is Failure.REFUSED
    late = [_Ran([]), _Ran([])]
    late[1].timed_out.value = True
    done = _concluded(late)
    assert done.error == "stream 2 of 2: timed out after 30s" and done.failure is Failure.TIMED_OUT
    assert _concluded([_Ran([])], Failed("the other streams did not start")).failure is None


def test_a_failure_found_while_running_names_its_stream_and_what_ended_ssh_by_value() -> None:
    reset = _lines("ssh-v-9.2-reset-after-banner.txt")
    done = _concluded([_Ran([]), _Ran(reset), _Ran([])], Failed("ssh gave up before our command", 1, not_started=True))
    assert done.error == ("stream 2 of 3: ssh gave up before our command: the server reset the connection after its "
                          "banner, during the key exchange (ssh: Connection reset by 127.0.0.1 port 34527)")
    assert done.stderr_tail[-1] == "Connection reset by 127.0.0.1 port 34527"  # the failing stream's, not the first's
    # words that end as a connection that never started does, of a failure that is not one, get nothing added
    said = _concluded([_Ran(reset)], Failed(f"the data phase failed: {NOT_STARTED}")).error
    assert said == f"the data phase failed: {NOT_STARTED}"
    whole = _concluded([_Ran([]), _Ran([])], Failed("receiver counted 1 bytes, expected 2"))
    assert whole.error == "receiver counted 1 bytes, expected 2"  # the sample as a whole: no stream named


@pytest.mark.parametrize(("error", "failure", "resized"), [
    ("ssh ran out of time", Failure.TIMED_OUT, True),
    ("the remote shell timed out after 5s of silence", None, False),
])
def test_only_a_timeout_re_sizes_a_case_from_its_pace(error: str, failure: Failure | None, resized: bool) -> None:
    clock = FakeClock()
    pace = Pace(lambda _n: None, clock)
    for _ in range(10):
        clock.now += 1.0
        pace.tick(400_000)
    sample = Sample("c", 0, True, False, "", 64 * MiB, error=error, failure=failure)
    record = CaseRecord(CASE, size_bytes=64 * MiB, size_source="warmup")
    assert (resize_after_timeout(record, sample, pace, 2.0) is not None) is resized


def test_a_case_the_server_refuses_on_any_stream_is_skipped_and_the_run_goes_on() -> None:
    one, four = CASE, Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-ctr", streams=4)
    clock = FakeClock()
    machine = FakeSampler({one.id: 100 * MiB, four.id: 100 * MiB}, clock, seed=1)

    def sampler(visit: Visit, size: int, timeout: float, tick: object) -> Sample:
        if visit.case != four:
            return machine(visit, size, timeout, tick)
        return Sample(four.id, visit.round, visit.round == 0, False, "", size, failure=Failure.REFUSED,
                      error="stream 1 of 4: the server wants none of it")

    options = RunOptions(time_budget_seconds=None, runs=3, size_bytes=8 * MiB)
    report = Report("test", "", 1, options=options, cases=[CaseRecord(one), CaseRecord(four)])
    run_loop(report, schedule_for(options, [one, four], 1), sampler, options, lambda _r: None, hooks=Hooks(clock=clock))
    refused = report.case(four.id)
    assert refused.status is CaseStatus.SKIPPED and refused.reason_kind is ReasonKind.REFUSED
    assert refused.reason == "stream 1 of 4: the server wants none of it"
    assert report.case(one.id).status is CaseStatus.MEASURED


@pytest.mark.parametrize(("kind", "words", "counts"), [
    (Unusable.NOT_STEADY, "its pace drifted", True),  # re-sized TREND_RESIZES times for it: its pace now counts
    (Unusable.SHORT_WINDOW, "not steady: said of another window", False),
])
def test_the_re_sizes_for_a_changing_pace_are_counted_by_kind(kind: Unusable, words: str, counts: bool) -> None:
    record = CaseRecord(_case(16, "rtt=10ms"), 512 * MiB, "auto")
    report = Report("t", "", 1, options=RunOptions(links=tuple(parse_links("rtt=10ms"))), cases=[record])
    for _ in range(physics.TREND_RESIZES):
        earlier = _sample(200e6, 2.0, size=512 * MiB)
        earlier.case_id, earlier.unusable, earlier.unusable_kind = record.case.id, words, kind
        report.samples.append(earlier)
    ramping = _sample(200e6, 2.0, size=512 * MiB)
    assert ramping.steady_bytes is not None
    ramping.case_id, ramping.steady_half_bytes = record.case.id, int(ramping.steady_bytes * 0.65)
    report.samples.append(ramping)
    physics.set_aside(record, ramping, report, 4096 * MiB, 2.0)
    assert (ramping.unusable is None) is counts
    assert ramping.unusable_kind is (None if counts else Unusable.NOT_STEADY)


def test_a_fixed_size_is_told_the_size_to_give_where_a_larger_sample_would_cure_its_window() -> None:
    case = _case(link="rtt=10ms")
    record = CaseRecord(case, 16 * MiB, "fixed")
    report = Report("t", "", 1, options=RunOptions(links=tuple(parse_links("rtt=10ms"))), cases=[record])
    sample = _sample(112e6, 0.09, size=16 * MiB)
    sample.case_id = case.id
    physics.set_aside(record, sample, report, 1024 * MiB, 0.67)
    assert sample.unusable_kind is Unusable.FEW_ROUND_TRIPS and sample.unusable == (
        "steady window 0.09 s, under 20 round trips of 10 ms; --size 16MiB is too small for it: give --size 64MiB "
        "or more, or leave --size out")
    aside = physics.SetAside(Unusable.ABOVE_CAPACITY, "mistimed, not counted")
    assert aside.text == "mistimed, not counted" and not aside.kind.again


@pytest.mark.parametrize(("why", "cause", "hint"), [
    ("ran out of the 10 s given", StopCause.TIME_BUDGET, "raise --time-budget above 10 s"),
    ("the bytes allowed were moved", StopCause.BYTE_CAP, "raise --max-bytes"),
    ("the time budget's words, of no budget", None, "see the failures in the results file"),
])
def test_what_a_run_that_measured_nothing_is_told_follows_what_stopped_it(why: str, cause: StopCause | None,
                                                                          hint: str) -> None:
    report = Report("t", "t", 1, stop_reason=why, stopped_by=cause)
    assert nothing_measured(report, 10.0) == f"nothing was measured ({why}): {hint}" + (
        " (the warm-up round alone needs more)" if cause is StopCause.TIME_BUDGET else "")


def _placement_said(report: Report) -> tuple[list[str], str]:
    changed = [a.message for a in advise(report) if a.code is Code.PLACEMENT_CHANGED]
    return changed, next(f.text for f in facts(conclude(report)) if f.label == "placement")


def test_a_split_placement_that_gave_way_is_said_from_its_recorded_why() -> None:
    report = load_report()
    report.environment.host.placement = "split: client on CPU 0, server on CPU 1; then it was free"
    report.environment.host.placement_fallback = "CPU 1 no longer allowed"
    changed, shown = _placement_said(report)
    assert changed == ["the CPUs this run may use changed while it ran, and the split placement gave way to free "
                       "placement: CPU 1 no longer allowed"]
    assert shown == "client on CPU 0, server on CPU 1; then it was free"
    report.environment.host.placement = "split: client on CPU 0, server on CPU 1 (fell back to free placement " \
        "during the run: said, not done)"
    report.environment.host.placement_fallback = None
    changed, shown = _placement_said(report)
    assert not changed and shown.endswith(", as on two machines")


def test_a_schema_15_placement_that_fell_back_reads_its_why_from_its_words() -> None:
    data = json.loads(json.dumps(report_to_dict(load_report())))
    data["schema_version"] = 15
    data["environment"]["host"]["placement"] = ("split: client on CPU 0, server on CPU 1; fell back to free "
                                                "placement during the run: CPU 1 no longer allowed")
    (report,) = results_from_dict(data)
    assert report.environment.host.placement_fallback == "CPU 1 no longer allowed"
    assert report.environment.host.placement == data["environment"]["host"]["placement"]


def test_a_candidate_s_evidence_is_keyed_by_direction_and_link_and_said_from_them() -> None:
    down = Evidence(Direction.DOWNLOAD, "rtt=20ms,rate=10mbit")
    candidate = Candidate("aes128-ctr", Kind.CIPHER, {Evidence(Direction.UPLOAD): [2e8, 2e8], down: [4.1e5] * 3},
                          {down: [1.5] * 3})
    assert figure(candidate) == ("200 MB/s up (n=2), 0.41 MB/s down at rtt=20ms,rate=10mbit, 1.50 CPU s/GiB (n=3)")
    assert figure(Candidate("curve25519-sha256", Kind.KEX, {HANDSHAKE: [100.0]})) == "10 ms handshake (n=1)"
    found = measured_candidates(load_report(), Kind.CIPHER)
    assert found and all(key.direction in (Direction.UPLOAD, Direction.DOWNLOAD) and not key.host
                         for c in found.values() for key in c.speeds)
    assert all(set(c.speeds) == {HANDSHAKE} for c in measured_candidates(load_report(), Kind.KEX).values())


def test_blocks_for_one_host_pattern_get_a_file_each_by_the_pattern_recorded(tmp_path: Path) -> None:
    report = load_report()
    rec = build(report)
    for run in (report, *read_results(str(DATA / "results-hosts.json"))):  # a block or none: the pattern says which
        made = build(run)
        assert (block_host(made, "db*") == "db*") is ("\nHost db*\n" in client_block(made, "db*"))
    ctx = Context(RichConsole(file=io.StringIO()), RichConsole(file=io.StringIO()))

    def written(*hosts: str | None) -> list[str]:
        out = tmp_path / str(len(list(tmp_path.iterdir())))
        advice = [CheckedRecommendation(rec, f"# a block for {h}\n", None, None, [], [], None, h, None, (), False)
                  for h in hosts]
        _write_configs(str(out), [(report, a) for a in advice], ctx, json_out=False)
        return sorted(p.name for p in out.iterdir())

    assert written("a", "b") == ["ssh_config.sshbench"]  # the words hold no Host line: the pattern decides
    assert written("a", "a") == ["ssh_config.sshbench.embedded", "ssh_config.sshbench.embedded-2"]
    assert written(None, None) == ["ssh_config.sshbench"]  # blocks that set nothing share one file


def test_a_tuned_method_s_family_is_found_by_its_method_not_by_its_spelling() -> None:
    assert family("sftp-B65536-R128") == "sftp" and family("scp-legacy") == "scp-legacy"
    assert all(family(name) == name for name in METHODS)
    with pytest.raises(UsageError):
        family("sftp-B65536")  # not a name sftp spells
    tuned = [Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", method=m)
             for m in ("sftp-B65536-R128", "sftp-B262144-R64", "scp")]
    assert _selection_args(tuned)[-2:] == ["--method", "sftp,scp"]


@pytest.mark.parametrize(("lasting", "shut"), [(True, False), (False, True)])
def test_a_refusal_no_policy_could_lift_leaves_the_line_unset_by_its_kind_not_its_words(lasting: bool,
                                                                                          shut: bool) -> None:
    from tests.unit.test_lockout import KNOWN, MODERN, TODAY

    def refuse(name: str, kind: Kind, client: object) -> Refused | None:  # words that begin as neither did
        return Refused("exposed to prefix truncation", lasting) if kind is Kind.KEX and name != MODERN[Kind.KEX][0] \
            else None
    kept = keep_in([KNOWN["paramiko-5.1.0"]], TODAY, MODERN, refuse)
    assert bool(kept.shut_out()) is shut and (Kind.KEX in kept.unset) is not shut
    if not shut:
        assert "exposed to prefix truncation" in kept.unset[Kind.KEX]


def test_the_note_of_a_line_left_at_the_defaults_names_terrapin_where_it_dropped_a_name() -> None:
    report = load_report()
    report.cases = [r for r in report.cases if r.case.kind is not CaseKind.CIPHER
                    or r.case.cipher == "3des-cbc"]  # CBC: exposed to Terrapin without strict kex
    kept = {r.case.id for r in report.cases}
    report.samples = [x for x in report.samples if x.case_id in kept]
    report.summaries = [x for x in report.summaries if x.case_id in kept]
    notes = build(report, strict_both=False).notes
    assert "Ciphers: no measured algorithm passes policy modern and Terrapin; left at the defaults" in notes
    # strict on both ends: the policy alone drops it (3des-cbc is weak)
    assert "Ciphers: no measured algorithm passes policy modern; left at the defaults" in build(
        report, strict_both=True).notes


def test_the_lock_out_table_marks_a_client_by_its_outcome_not_by_the_words() -> None:
    rows = [OutcomeRow("a", "A 1", "fine", "barred: no cipher in common", True, True),
            OutcomeRow("b", "B 1", "fine", "SHUT OUT is what it would have said", True, False),
            OutcomeRow("c", "C 1", "logs in", "(not today either)", False, False)]
    table = outcome_table(rows, "t", "before", "after")
    assert [(r.cells[2][0].style, r.cells[3][0].style) for r in table.rows] == [
        ("", "bad strong"), ("", "good"), ("dim", "dim")]


def test_every_kind_survives_the_results_file_and_an_absent_one_is_written_as_before() -> None:
    report = load_report()
    plain = json.loads(json.dumps(report_to_dict(report)))
    assert not any(k in r for r in plain["cases"] for k in ("reason_kind",))
    assert not any(k in x for x in plain["samples"] for k in ("failure", "unusable_kind"))
    assert "stopped_by" not in plain and "placement_fallback" not in plain["environment"]["host"]
    report.cases[0].set_reason("refused", ReasonKind.REFUSED)
    report.samples[0].failure, report.samples[1].unusable_kind = Failure.TIMED_OUT, Unusable.NOT_STEADY
    report.stopped_by, report.environment.host.placement_fallback = StopCause.BYTE_CAP, "CPU 1 no longer allowed"
    (again,) = results_from_dict(json.loads(json.dumps(report_to_dict(report))))
    assert again.cases[0].reason_kind is ReasonKind.REFUSED and again.samples[0].failure is Failure.TIMED_OUT
    assert again.samples[1].unusable_kind is Unusable.NOT_STEADY and again.stopped_by is StopCause.BYTE_CAP
    assert again.environment.host.placement_fallback == "CPU 1 no longer allowed"
