"""Multi-host results: the file format, the writer, the budget split and the cross-host tables, built from
a recorded real results file relabelled as two hosts."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.analysis.conclude import conclude, conclude_fleet
from sshbench.analysis.stats.stats import summarize
from sshbench.options import RunOptions
from sshbench.plan.budget import host_share
from sshbench.render import markdown
from sshbench.render.hosts import host_tables
from sshbench.render.table_model import plain
from sshbench.results.codec import results_from_dict, results_to_dict
from sshbench.results.environment import RemoteFacts, ServerFacts, ServerKind
from sshbench.results.model import Report
from sshbench.results.store import ResultsWriter
from sshbench.targets.remote import host_pattern
from sshbench.vocabulary.outputs import safe_name
from tests.conftest import load_report


def _as_host(report: Report, name: str, slower: float = 1.0) -> Report:
    """The recorded run, as if measured on `name`, every rate divided by `slower`."""
    out = copy.deepcopy(report)
    out.environment.server = ServerFacts(ServerKind.REMOTE, out.environment.server.version,
                                         remote=RemoteFacts(destination=name, round_trip_seconds=0.012))
    for sample in out.samples:
        if sample.data_seconds:
            sample.data_seconds *= slower
    out.summaries = summarize(out.cases, out.samples, None, None)
    return out


@pytest.fixture
def two() -> list[Report]:
    base = load_report()
    return [_as_host(base, "alpha"), _as_host(base, "user@beta:2222", slower=2.0)]


def test_one_host_stays_a_plain_run_and_several_round_trip(two: list[Report]) -> None:
    assert results_to_dict(two[:1])["schema"] == "sshbench/run"
    data = json.loads(json.dumps(results_to_dict(two)))
    assert data["schema"] == "sshbench/hosts" and data["hosts"] == ["alpha", "user@beta:2222"]
    back = results_from_dict(data)
    assert [r.label for r in back] == ["alpha", "user@beta:2222"]
    assert results_to_dict(back) == data


def test_embedded_runs_are_labelled_embedded() -> None:
    assert load_report().label == "embedded"


def test_writer_keeps_finished_hosts_while_the_next_is_measured(two: list[Report], tmp_path: Path) -> None:
    writer = ResultsWriter(str(tmp_path / "r.json"))
    writer.save(two[0])
    writer.host_done(two[0])
    partial = copy.deepcopy(two[1])
    partial.samples = partial.samples[:3]  # interrupted early on the second host
    writer.save(partial)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["hosts"] == ["alpha", "user@beta:2222"] and len(data["runs"][1]["samples"]) == 3
    with open(tmp_path / "r.csv", encoding="utf-8") as fh:
        hosts = [row["host"] for row in csv.DictReader(fh)]
    assert hosts.count("user@beta:2222") == 3 and hosts.count("alpha") == len(two[0].samples)


@given(budget=st.floats(10, 10_000), spent=st.floats(0, 10_000), cap=st.integers(0, 10**12),
       sent=st.integers(0, 10**12), left=st.integers(1, 20))
def test_host_share_never_lets_the_run_exceed_its_budget_or_cap(budget: float, spent: float, cap: int, sent: int,
                                                                left: int) -> None:
    options = RunOptions(time_budget_seconds=budget, max_bytes=cap)
    share = host_share(options, (spent, sent), left)
    assert share.max_bytes is not None and share.max_bytes * left <= max(0, cap - sent)
    assert share.time_budget_seconds is not None
    assert share.time_budget_seconds == pytest.approx(max(1.0, (budget - spent) / left))


def test_no_budget_and_no_cap_stay_unlimited() -> None:
    share = host_share(RunOptions(time_budget_seconds=None, max_bytes=None), (100.0, 10**9), 3)
    assert share.time_budget_seconds is None and share.max_bytes is None


def test_host_tables_compare_the_hosts(two: list[Report]) -> None:
    assert host_tables(conclude_fleet(two[:1])) == []
    overview, upload, download, *fleet = host_tables(conclude_fleet(two))
    assert fleet[0].title == "Platforms" and fleet[-1].title == "Fleet recommendation"
    assert [plain(row.cells[0]) for row in overview.rows] == ["alpha", "user@beta:2222"]
    assert plain(overview.rows[0].cells[2]) == "12.00 ms"
    assert plain(overview.rows[1].cells[3]) in ("protected", "not protected")
    assert [column.title for column in upload.columns] == ["cipher", "alpha", "user@beta:2222"]
    gcm = next(row for row in upload.rows if plain(row.cells[0]) == "aes128-gcm@openssh.com")
    fast, slow = (float(plain(cell).split()[0].replace(",", "")) for cell in gcm.cells[1:])
    assert fast == pytest.approx(2 * slow, rel=0.02), "each host's own medians, side by side"
    broken = next(row for row in upload.rows if plain(row.cells[0]) == "3des-cbc (!! broken)")
    assert broken.grade is not None, "weak and broken ciphers stay flagged across hosts"
    assert download.title.startswith("Cipher x host, download")


def test_markdown_of_several_hosts_has_the_comparison_then_each_host(two: list[Report]) -> None:
    text = markdown.render_all([conclude(r) for r in two], conclude_fleet(two))
    assert text.startswith("# sshbench: 2 hosts")
    assert text.index("### Cipher x host, upload") < text.index("## host alpha") < text.index("## host user@beta:2222")
    assert "`3des-cbc` (!! broken)" in text


@pytest.mark.parametrize(("destination", "pattern"), [
    (None, "*"), ("alpha", "alpha"), ("user@beta:2222", "beta"), ("[::1]:22", "::1"),
    ("me@host.example", "host.example"),
])
def test_host_pattern_drops_user_and_port(destination: str | None, pattern: str) -> None:
    assert host_pattern(destination) == pattern


def test_safe_name_keeps_labels_usable_as_paths() -> None:
    assert safe_name("user@beta:2222") == "user_beta_2222" and safe_name("../x") == "_x" and safe_name("..") == "host"
