"""A case whose every sample is set aside stops consuming the budget (issue 65): behind a wrong path MTU every
sample of a full link was set aside, re-sized twice as large each time, until the budget was gone."""

from __future__ import annotations

from sshbench.analysis.stats.stats import SET_ASIDE
from sshbench.measure.physics import GIVE_UP_AFTER, give_up_if_never_counted
from sshbench.options import RunOptions
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Direction, Report, Sample

CASE = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com")
WHY = "6.21 MB/s of payload is 6.21 MB/s on the wire, above the 6.03 MB/s the path carries"


def _report(unusable: list[str | None]) -> tuple[Report, CaseRecord]:
    record = CaseRecord(CASE)
    samples = [Sample(case_id=CASE.id, round=0, warmup=True, ok=True, started_at="t", size_bytes=1)] + [
        Sample(case_id=CASE.id, round=i + 1, warmup=False, ok=True, started_at="t", size_bytes=1, unusable=why)
        for i, why in enumerate(unusable)]
    return Report("t", "t", 1, options=RunOptions(), cases=[record], samples=samples), record


def test_a_case_with_every_sample_set_aside_is_given_up_after_a_bounded_number() -> None:
    report, record = _report([WHY] * (GIVE_UP_AFTER - 1))
    assert not give_up_if_never_counted(record, report) and record.status is CaseStatus.PENDING
    report, record = _report([WHY] * GIVE_UP_AFTER)
    assert give_up_if_never_counted(record, report)
    assert record.status is CaseStatus.SKIPPED and (record.reason or "").startswith(SET_ASIDE + WHY), record.reason
    assert f"{GIVE_UP_AFTER} samples, none counted" in (record.reason or "")


def test_one_counted_sample_keeps_the_case_going() -> None:
    report, record = _report([WHY, None] + [WHY] * GIVE_UP_AFTER)
    assert not give_up_if_never_counted(record, report) and record.status is CaseStatus.PENDING
