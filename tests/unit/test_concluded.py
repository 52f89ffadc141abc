"""What render used to conclude where it showed it, now in Findings (issue 63's later slices), on recorded runs.

Each slice is checked twice: the Findings hold what the analysis computes for the report, and what a table drawn
per view (one link's, side's or variant's cases) used to compute from its view is the same for the whole report,
which is what lets every view read the run's one Findings instead.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from sshbench.analysis.conclude import conclude
from sshbench.analysis.findings import Findings
from sshbench.analysis.physics.advice import Limit, limit_of
from sshbench.analysis.physics.limits import limit_findings
from sshbench.analysis.physics.references import RELIABLE, judged, raw_tcp, reliable, unreliable
from sshbench.analysis.physics.windows import receive_window, variant_ratios
from sshbench.analysis.stats.stats import describe
from sshbench.analysis.stats.verdicts import run_rule
from sshbench.render.labels import pm
from sshbench.render.table_model import plain
from sshbench.results.codec import results_from_dict
from sshbench.results.model import EchoResult, Report
from sshbench.results.views import (
    build_view,
    builds_of,
    compares_servers,
    link_view,
    per_server,
    variant_view,
    variants_of,
)
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


# ------------------------------------------------------------------ what limited the fastest transfers


def _said_limits(found: Findings) -> list[str]:
    from sshbench.render.facts import facts

    return [fact.text for fact in facts(found) if fact.label == "limit"]


@pytest.mark.parametrize("name", RECORDED)
def test_the_facts_say_the_limits_the_findings_hold_in_their_order(name: str) -> None:
    """Per direction the fastest pipe cipher's verdict (analysis/physics/advice.limit_of), then each --client's; a run
    of several servers says each from its own view, named."""
    for found in _concluded(name):
        report = found.report
        if compares_servers(report):
            expected = [(view.environment.builds[0].name, limit) for view in per_server(report)
                        for limit in _limits(view)]
        else:
            expected = [("", limit) for limit in _limits(report)]
        assert [(f.server, f.limit) for f in found.limits] == expected
        assert _said_limits(found) == [f"[server {f.server}] {f.text}" if f.server else f.text for f in found.limits]
        assert found.limits == limit_findings(report)


def _limits(report: Report) -> list[Limit]:
    return [limit for client in ["", *(c.name for c in report.environment.clients)]
            for direction in ("upload", "download") if (limit := limit_of(report, direction, client)) is not None]


def test_a_servers_limit_says_what_its_window_variant_moved_beside_it() -> None:
    """The three-server recording with its third side made a Dropbear window variant (test_window_variants.py)."""
    from tests.unit.test_window_variants import VARIANT, _relabelled

    (run,) = results_from_dict(_relabelled())
    found = conclude(run)
    dropbear = [f for f in found.limits if f.server == "dropbear"]
    assert dropbear and dropbear[0].beside == tuple(variant_ratios(run, "dropbear", dropbear[0].limit.case_id))
    assert dropbear[0].beside[0].startswith("dropbear -W 4194304 moved ")
    assert not [f for f in found.limits if f.server in ("openssh", VARIANT) and f.beside]
    assert f"[server dropbear] {dropbear[0].limit.text}; {dropbear[0].beside[0]}" in _said_limits(found)



# ------------------------------------------------------------------ how to use a change the link answer names


@pytest.mark.parametrize("name", [LINK, "results-small.json", "results-rtt20-setup-phases.json.gz", SERVERS])
def test_each_change_carries_the_command_that_applies_it_and_every_output_shows_that_one(name: str) -> None:
    from sshbench.analysis.answers.howto import howto
    from sshbench.render.jsondoc import report_json
    from sshbench.render.remedies import remedy_line

    for found in _concluded(name):
        document = json.loads(json.dumps(report_json([found])))["runs"][0]["link_answer"]
        for answer, shown in zip(found.path_answers, document, strict=True):
            for remedy, said in zip(answer.remedies, shown["changes"], strict=True):
                assert remedy.how_to == howto(remedy.case, answer.plain) and remedy.how_to.startswith("`")
                assert said["how_to"] == remedy.how_to
                assert (f"; to use it: {remedy.how_to}" in remedy_line(remedy, answer)) is remedy.faster


# ------------------------------------------------------------------ the links overview's windows, the echoes


@pytest.mark.parametrize("name", ["results-rtt20-setup-phases.json.gz", LINK])
def test_each_link_s_window_is_the_receivers_and_the_overview_divides_it_by_the_rtt(name: str) -> None:
    from sshbench.render.links import links_overview

    (found,) = _concluded(name)
    links = found.report.environment.links
    assert [w.link for w in found.windows] == [link.label for link in links]
    for window, link in zip(found.windows, links, strict=True):
        assert (window.upload, window.download) == tuple(receive_window(found.report, d, link=link.label)
                                                         for d in ("upload", "download")) == (2 << 20, 2 << 20)
    (row,) = links_overview(found).rows
    rtt = links[0].rtt_seconds
    assert rtt and plain(row.cells[5]) == plain(row.cells[6]) == f"{(2 << 20) / rtt / 1e6:,.1f}"


def test_each_echo_session_s_median_and_interval_are_the_findings_and_a_failed_one_has_none() -> None:
    from sshbench.render.links import echo_table

    report = _runs("results-rtt20-setup-phases.json.gz")[0]
    seconds = [0.0201, 0.0212, 0.0199, 0.0230, 0.0205, 0.0208, 0.0217, 0.0203]
    echoes = [EchoResult("aes128-gcm@openssh.com", link="rtt=20ms", ok=True, echo_seconds=seconds),
              EchoResult("aes128-ctr", link="rtt=20ms", error="no readiness line")]
    found = conclude(dataclasses.replace(report, echoes=echoes))
    assert [(f.echo, f.stat) for f in found.echoes] == [(echoes[0], describe(seconds)), (echoes[1], None)]
    table = echo_table(found)
    assert table is not None and [plain(row.cells[1]) for row in table.rows] == \
        [f"{pm(describe(seconds), 1e-3, 2)} (n=8)", "failed"]
    assert echo_table(conclude(report)) is None and conclude(report).echoes == ()


# ------------------------------------------------------------------ the kept recommendation, who its drop-in lets in


@pytest.mark.parametrize("name", RECORDED)
def test_the_kept_recommendation_is_checked_once_and_only_where_the_page_is_written(name: str) -> None:
    from sshbench.analysis.config.configtext import lockout, outcome_rows, stored_if_consistent
    from sshbench.analysis.config.recommend import build
    from sshbench.analysis.security.policy import built_in

    for report in _runs(name):
        assert conclude(report).recommendations is None, "no output but the page shows it"
        kept = conclude(report, recommendation=True).recommendations
        assert kept is not None
        servers = compares_servers(report)
        views = per_server(report)
        assert [k.server for k in kept] == [v.environment.builds[0].name if servers else "" for v in views]
        for each, view in zip(kept, views, strict=True):
            stored = stored_if_consistent(view)
            assert each.stored == stored and each.software == view.environment.server.software
            assert each.withheld is (view.recommendation is not None and stored is None)
            if stored is None:
                assert each.lockout is None
                continue
            rec = build(view, built_in(stored.policy))
            assert each.lockout == lockout(rec)
            if rec.dropin is not None and each.lockout is not None:
                assert list(each.lockout.rows) == outcome_rows(rec.dropin)
                assert each.lockout.shut_out == tuple(o.client.name for o in rec.dropin.shut_out())


def test_a_recorded_kept_recommendation_is_shown_with_its_lockout_table_and_a_withheld_one_said() -> None:
    from sshbench.render import html

    shown = [k for name in RECORDED for report in _runs(name)
             for k in conclude(report, recommendation=True).recommendations or ()]
    assert any(k.stored is not None and k.lockout is not None and k.lockout.rows for k in shown)
    assert any(k.withheld for k in shown)
    with pytest.raises(ValueError, match="recommendation=True"):
        html.render([conclude(_runs("results-small.json")[0])])


def test_a_checked_recommendation_judges_its_drop_in_once_for_the_notes_the_table_and_the_json() -> None:
    from sshbench.analysis.config.configtext import checked, lockout_notes, server_dropin
    from sshbench.analysis.config.configtext import lockout as lockout_of
    from sshbench.analysis.config.recommend import build

    for report in _runs("results-small.json") + _runs(SERVERS)[:1]:
        for allow in (False, True):
            rec = build(report, allow_lockout=allow)
            advice = checked(rec, "", None, [], [], None, None)
            assert advice.lockout == lockout_of(rec) and advice.lockout_notes == tuple(lockout_notes(rec))
            assert advice.dropin_withheld is rec.dropin_withheld
            assert advice.dropin_withheld is (advice.lockout is not None and not advice.lockout.strict
                                              and bool(advice.lockout.shut_out))
            assert advice.server_directives == ()  # no drop-in text: none to show
            text = server_dropin(rec)
            if text is not None:  # the terminal shows its directives from the value, never picked out of the text
                directives = checked(rec, "", text, [], [], None, None).server_directives
                assert directives and text.endswith("".join(f"{d}\n" for d in directives))
                assert not any(d.startswith("#") for d in directives)


# ------------------------------------------------------------------ several runs side by side: the Fleet


def _fleet_of_recordings() -> list[Report]:
    from sshbench.results.store import merge

    return merge([(name, _runs(name)) for name in RECORDED])


@pytest.mark.parametrize("which", ["hosts", "recordings"])
def test_the_fleet_holds_each_host_s_figures_and_the_fleet_s_verdicts_as_the_analysis_draws_them(which: str) -> None:
    from sshbench.analysis.conclude import conclude_fleet
    from sshbench.analysis.physics.references import pipe_ciphers
    from sshbench.analysis.runs.fleet import NORMALISATIONS, fleet_recommendation, normalised, outlier_hosts, versions

    runs = _runs("results-hosts.json") if which == "hosts" else _fleet_of_recordings()
    fleet = conclude_fleet(runs)
    assert fleet.runs == tuple(runs) and len(fleet.hosts) == len(runs)
    assert fleet.recommendation == fleet_recommendation(runs)
    assert fleet.outliers == tuple(outlier_hosts(runs)) and fleet.versions == tuple(versions(runs))
    for report, host in zip(runs, fleet.hosts, strict=True):
        for direction in ("upload", "download"):
            assert host.limits.get(direction) == limit_of(report, direction)
            assert host.pipe[direction] == pipe_ciphers(report, direction)
            for by in NORMALISATIONS:
                assert host.normalised[by, direction] == normalised(report, direction, by)
    assert fleet.recommendation.lines, "every recording measured a cipher the fleet can recommend"


def test_the_hosts_tables_lay_out_the_fleet_and_several_runs_are_not_shown_without_it() -> None:
    from sshbench.analysis.conclude import conclude_fleet
    from sshbench.render import html, markdown
    from sshbench.render.hosts import host_tables

    runs = _runs("results-hosts.json")
    fleet = conclude_fleet(runs)
    overview, *_ = host_tables(fleet)
    for row, host in zip(overview.rows, fleet.hosts, strict=True):
        assert plain(row.cells[6]) == host.limits["upload"].bound_by
    found = [conclude(r, recommendation=True) for r in runs]
    with pytest.raises(ValueError, match="conclude_fleet"):
        markdown.render_all(found)
    with pytest.raises(ValueError, match="conclude_fleet"):
        html.render(found)
    assert markdown.render_all(found, fleet).startswith("# sshbench: 2 hosts")
    assert markdown.render_all(found[:1]) == markdown.render(found[0])


# ------------------------------------------------------------------ the streams and compression table's ratios


@pytest.mark.parametrize("name", RECORDED)
def test_each_variant_is_stated_against_its_plain_variant_as_the_run_judged_it(name: str) -> None:
    """Once for the whole run (against_plain); on every recording each view's own statements agree with it, since
    each crossed one link and one side: over several, a view's pairs are stated within the run's whole family."""
    from sshbench.analysis.comparisons.stated import PLAIN, Statements, against_plain
    from sshbench.results.views import variant_of

    for found in _concluded(name):
        report = found.report
        assert found.variants == against_plain(report)
        views = report.joined()
        for case_id, stated in found.variants.items():
            case = views[case_id].case
            plain = next(c for c in (r.case for r in report.cases) if variant_of(c) == PLAIN and c.is_pipe
                         and (c.kind, c.cipher, c.direction, c.build, c.link) ==
                         (case.kind, case.cipher, case.direction, case.build, case.link))
            assert variant_of(case) != PLAIN and stated == Statements(report).of(plain.id, case_id)
            for view in _views(report):
                if {case_id, plain.id} <= {r.case.id for r in view.cases}:  # a view its table is drawn for
                    assert Statements(view).of(plain.id, case_id) == stated


def test_the_streams_recording_states_four_and_eight_streams_against_one() -> None:
    from sshbench.render.tables import result_tables

    found = conclude(_runs(LINK)[0])
    assert sorted(found.variants) == ["cipher:aes128-gcm@openssh.com:upload*4@rtt=40ms,loss=1%",
                                      "cipher:aes128-gcm@openssh.com:upload*8@rtt=40ms,loss=1%"]
    table = next(t for t in result_tables(found) if t.title.startswith("Streams and compression"))
    shown = {plain(row.cells[1]): plain(row.cells[4]) for row in table.rows}
    four = found.variants["cipher:aes128-gcm@openssh.com:upload*4@rtt=40ms,loss=1%"]
    assert shown["1"] == "1 (plain)" and shown["4"].startswith(f"{four.ratio:.2f}x")


# ------------------------------------------------------------------ a run's next steps: the answer, not a ranking again


@pytest.mark.parametrize("name", RECORDED)
def test_each_cipher_answer_holds_the_safe_ciphers_it_chose_from_its_pick_and_runner_up_first(name: str) -> None:
    for found in _concluded(name):
        for finding in found.ciphers:
            answer, ranked = finding.answer, [cipher for cipher, _ in finding.ranked]
            assert finding.safe[0] == answer.best and finding.safe == tuple(c for c in ranked if c in finding.safe)
            runner_up = [c.other for c in answer.comparisons if c.role.startswith("the runner-up")]
            assert list(finding.safe[1:2]) == runner_up
            assert (len(finding.safe) == 1) is ("the only safe cipher measured" in answer.note)


def test_a_run_s_next_steps_name_each_server_s_upload_answer() -> None:
    from typing import cast

    from sshbench.cli.hints import next_steps
    from sshbench.results.store import ResultsWriter
    from sshbench.vocabulary.case_terms import Direction

    found = _concluded(SERVERS)
    writer = cast(ResultsWriter, dataclasses.make_dataclass("Paths", ["json_path", "csv_path"])("r.json", "r.csv"))
    said = [line for line in next_steps(found, writer, ["run"], None) if line.startswith("Fastest cipher")]
    picks = [c.answer for c in found[0].ciphers if c.answer.direction is Direction.UPLOAD and not c.answer.link]
    assert len(said) == len(picks) >= 2
    for line, pick in zip(said, picks, strict=True):
        assert f": {pick.best} ({pick.rate.median / 1e6:,.0f} MB/s upload" in line
