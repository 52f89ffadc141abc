"""The runner against a real server: refusals skip a case, the run goes on, every sample is saved at once."""

from __future__ import annotations

import copy

import pytest

from sshbench.measure.runner import execute
from sshbench.options import RunOptions
from sshbench.plan.schedules import FixedSchedule
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Direction, Report
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.units import MiB

pytestmark = pytest.mark.integration


def test_refused_case_is_skipped_and_the_rest_measured(client: ClientInfo) -> None:
    sup = client.supported
    enable = type(sup)(cipher=("aes128-ctr", "aes128-gcm@openssh.com"), mac=sup.mac, kex=sup.kex,
                       hostkey=sup.hostkey)
    refused = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-ctr", mac="hmac-sha1")
    fine = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com")
    report = Report(tool_version="t", started_at="now", seed=1,
                    cases=[CaseRecord(refused), CaseRecord(fine)])
    saved: list[Report] = []
    options = RunOptions(size_bytes=2 * MiB, runs=2)
    with EmbeddedOpenSSH(client, enable=enable) as srv:
        execute(report, FixedSchedule([refused, fine], 2, 1, seed=5), EmbeddedTarget(srv), options,
                lambda r: saved.append(copy.deepcopy(r)))
    assert report.status == "complete"
    assert report.case(refused.id).status is CaseStatus.SKIPPED
    assert report.case(refused.id).reason == "server refused: no matching cipher found"
    assert len(report.samples_of(refused.id)) == 1  # tried once (the warm-up), never again
    assert report.case(fine.id).status is CaseStatus.MEASURED
    assert len(report.samples_of(fine.id)) == 3
    # saved at the first sample and at the end, each save holding everything so far (and at most once a second
    # in between: tests/unit/test_loop.py)
    assert len(saved[0].samples) == 1 and len(saved[-1].samples) == len(report.samples)
    assert [len(r.samples) for r in saved] == sorted(len(r.samples) for r in saved)
    assert saved[-1].status == "complete"
