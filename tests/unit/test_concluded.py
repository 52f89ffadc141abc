"""What render used to conclude where it showed it, now in Findings (issue 63's later slices), on recorded runs.

Each slice is checked twice: the Findings hold what the analysis computes for the report, and what a table drawn
per view (one link's, side's or variant's cases) used to compute from its view is the same for the whole report,
which is what lets every view read the run's one Findings instead.
"""

from __future__ import annotations

import json

import pytest

from sshbench.analysis.conclude import conclude
from sshbench.analysis.findings import Findings
from sshbench.analysis.references import RELIABLE, judged, raw_tcp, reliable, unreliable
from sshbench.analysis.verdicts import run_rule
from sshbench.analysis.views import build_view, builds_of, link_view, per_server, variant_view, variants_of
from sshbench.results.codec import results_from_dict
from sshbench.results.model import Report
from tests.conftest import recorded

LINK = "results-rtt40-loss1-streams-1-4-8.json.gz"  # raw TCP across a link, reliable; a ceiling
SERVERS = "results-servers-openssh-dropbear-tinysshd.json.gz"  # three server sides; an unreliable loopback raw TCP
RECORDED = ["results-small.json", "results-hosts.json", "results-commands-reuse.json.gz", "results-logins-1-4.json.gz",
            "results-rtt20-setup-phases.json.gz", "results-client-dbclient.json.gz", LINK, SERVERS]


def _runs(name: str) -> list[Report]:
    return results_from_dict(json.loads(recorded(name)))


def _concluded(name: str) -> list[Findings]:
    return [conclude(report) for report in _runs(name)]


def _views(report: Report) -> list[Report]:
    """Every view a table is drawn for: each link's, each side's, each variant's, and those within them."""
    out = [report]
    for label in [link.label for link in report.environment.links]:
        out.append(link_view(report, label))
    for view in list(out):
        out += [build_view(view, name) for name in builds_of(view)]
    for view in list(out):
        out += [variant_view(view, variant) for variant in variants_of(view)]
    return out + per_server(report)


@pytest.mark.parametrize("name", RECORDED)
def test_every_view_of_a_run_has_the_run_s_rule_and_references(name: str) -> None:
    """The ranked tables' captions and efficiency columns were drawn from each view's own rule and references;
    they read the run's now (Findings.rule, Findings.references), which no view differs from."""
    for found in _concluded(name):
        references = found.references
        for view in _views(found.report):
            assert run_rule(view) == found.rule
            links = {r.case.link for r in view.cases}
            assert {link: stat for link, stat in raw_tcp(view).items() if link in links} == \
                {link: stat for link, stat in references.raw_tcp.items() if link in links}
            for cipher, stat in judged(view).ceilings.items():
                assert references.ceilings[cipher] == stat


@pytest.mark.parametrize("name", RECORDED)
def test_the_references_are_judged_once_as_the_analysis_judges_them(name: str) -> None:
    for found in _concluded(name):
        report, references = found.report, found.references
        assert references == judged(report)
        assert references.unreliable == tuple(unreliable(report))
        assert all(reliable(stat) for stat in [*references.raw_tcp.values(), *references.ceilings.values()])
        assert {link: stat for link, (stat, ok) in references.measured_tcp.items() if ok} == references.raw_tcp
        assert all(not reliable(stat) for _, stat in references.unreliable)


def test_a_noisy_raw_tcp_is_judged_unreliable_and_said_once() -> None:
    """The three-server recording's loopback raw TCP spread beyond ±25%: not compared with, and listed as such."""
    from sshbench.render.facts import problems

    found = conclude(_runs(SERVERS)[0])
    assert [case.id for case, _ in found.references.unreliable] == ["control:raw-tcp:upload"]
    assert found.references.raw_tcp == {} and found.references.measured_tcp[""][1] is False
    said = [fact.text for fact in problems(found) if fact.label == "unreliable"]
    assert len(said) == 1 and said[0].startswith("reference control:raw-tcp:upload") and \
        f"±{RELIABLE * 100:g}%" in said[0]


def test_a_link_s_raw_tcp_is_the_one_its_tables_and_its_overview_read() -> None:
    found = conclude(_runs(LINK)[0])
    stat = found.references.raw_tcp["rtt=40ms,loss=1%"]
    assert found.references.measured_tcp["rtt=40ms,loss=1%"] == (stat, True) and 200e6 < stat.median < 300e6
    assert list(found.references.ceilings) == ["aes128-gcm@openssh.com"]
