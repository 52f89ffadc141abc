import json

from sshbench.analysis.stats.stats import summarize
from sshbench.options import RunOptions
from sshbench.plumbing.negotiation import Negotiated
from sshbench.results.codec import report_from_dict, report_to_dict
from sshbench.results.environment import Environment, HostFacts
from sshbench.results.model import SCHEMA_VERSION, Case, CaseKind, CaseRecord, CaseStatus, Direction, Report, Sample


def test_report_round_trips_through_json() -> None:
    case = Case(CaseKind.CIPHER, Direction.DOWNLOAD, cipher="aes256-ctr", mac="hmac-sha2-512-etm@openssh.com")
    sample = Sample(case_id=case.id, round=1, warmup=False, ok=True, started_at="2026-11-20T00:00:00.000+00:00",
                    size_bytes=2**20, bytes_received=2**20, setup_seconds=0.2, data_seconds=0.01,
                    total_seconds=0.25, client_cpu_user_seconds=0.1, client_cpu_sys_seconds=0.05,
                    server_cpu_user_seconds=0.2, server_cpu_sys_seconds=0.04, client_cpu_setup_seconds=0.1,
                    server_cpu_setup_seconds=0.1, exit_status=0, negotiated=Negotiated(kex="k", hostkey="h"),
                    phases={"kexinit_sent": 0.01, "newkeys_received": 0.05})
    records = [CaseRecord(case, size_bytes=2**20, size_source="fixed")]
    report = Report(tool_version="0.1.0", started_at="now", seed=3,
                    options=RunOptions(runs=1), environment=Environment(host=HostFacts(hostname="x")),
                    cases=records, samples=[sample], summaries=summarize(records, [sample]))
    text = json.dumps(report_to_dict(report))
    data = json.loads(text)
    assert data["schema"] == "sshbench/run" and data["schema_version"] == SCHEMA_VERSION
    assert data["samples"][0]["throughput_bytes_per_second"] == 2**20 / 0.01
    assert data["cases"][0]["case"]["id"] == case.id
    assert data["cases"][0]["case"]["grade"] == "acceptable"  # aes256-ctr
    back = report_from_dict(data)
    assert back.samples[0] == sample
    assert back.cases[0].status is CaseStatus.MEASURED
    assert back.summaries == report.summaries
    assert report_to_dict(back) == data
