"""--build values: parsed, checked and written back; a build's cases, views and side-by-side comparison."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.analysis.answers.build_ratios import build_rows
from sshbench.results.environment import BuildFacts
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.results.views import build_view
from sshbench.vocabulary.buildspec import MAX_BUILDS, STOCK, BuildSpec, parse_build, parse_builds
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.errors import UsageError


def test_forms_and_names() -> None:
    assert parse_build("stock") == BuildSpec(STOCK, STOCK) and parse_build("stock").name == "stock"
    assert parse_build("hpn-ssh-18.8.0").name == "hpn-ssh-18.8.0"
    assert parse_build("/opt/openssh-9.9p2/").name == "openssh-9.9p2"
    mixed = parse_build("client=hpn-ssh-18.8.0,server=stock")
    assert (mixed.client, mixed.server, mixed.name) == ("hpn-ssh-18.8.0", STOCK, "hpn-ssh-18.8.0>stock")
    assert parse_build("/opt/x,label=new").name == "new"


@pytest.mark.parametrize(("text", "said"), [
    ("", "empty"), ("client=a,client=b", "each once"), ("a,client=b", "one side for both"),
    ("colour=red", "not one of"), ("a b", "--build client"), ("-rf", "--build client"),
    ("/opt/x,label=a b", "label"), ("a;rm", "--build client"),
])
def test_bad_values_are_one_clear_line(text: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_build(text)


def test_names_are_unique_and_few() -> None:
    with pytest.raises(UsageError, match="both called 'stock'"):
        parse_builds(["stock", "client=stock,server=stock"])
    with pytest.raises(UsageError, match=f"at most {MAX_BUILDS}"):
        parse_builds([f"b{i}" for i in range(MAX_BUILDS + 1)])


@given(st.sampled_from(["stock", "hpn-ssh-18.8.0", "/opt/ssh", "a.b_c-1"]),
       st.sampled_from(["stock", "openssh-10.2p1", "/usr/local"]), st.sampled_from(["", "x1", "mine.2"]))
def test_the_canonical_text_parses_back(client: str, server: str, label: str) -> None:
    spec = BuildSpec(client, server, label)
    assert parse_build(spec.text) == spec


def _report() -> Report:
    cases = [Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com", build=b) for b in ("a", "b")]
    report = Report("t", "", 1, cases=[CaseRecord(c) for c in cases])
    report.environment.builds = [BuildFacts("a", "a"), BuildFacts("b", "b")]
    for case, rate in zip(cases, (500e6, 1000e6), strict=True):  # b is twice as fast
        for i in range(8):
            size = 100 << 20
            report.samples.append(Sample(case.id, i + 1, False, True, "", size, bytes_received=size,
                                         data_seconds=size / (rate * (1 + 0.01 * i))))
    from sshbench.analysis.stats.stats import summarize
    report.summaries = summarize(report.cases, report.samples)
    return report


def test_a_builds_cases_have_their_own_group_id_and_view() -> None:
    report = _report()
    ids = [r.case.id for r in report.cases]
    assert ids == ["cipher:aes128-gcm@openssh.com:upload#a", "cipher:aes128-gcm@openssh.com:upload#b"]
    assert report.cases[1].case.base_group == "cipher:upload"
    assert Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="c", method="scp", streams=4, build="b",
                link="rtt=20ms").base_group == "cipher:upload:scp"
    assert [r.case.id for r in build_view(report, "b").cases] == ids[1:]


def test_builds_side_by_side_say_how_many_times_as_fast_with_an_interval() -> None:
    (row,) = build_rows(_report())
    first, second = row.cells["a"], row.cells["b"]
    assert first.ratio is None and second.relation is Relation.DIFFERENT
    assert second.low is not None and second.high is not None and second.ratio is not None
    assert second.low <= second.ratio <= second.high and 1.8 < second.ratio < 2.2
