"""The answer as a chart (render/answerchart.py), first in the HTML report, on recorded real runs."""

from __future__ import annotations

import pytest
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb

from sshbench.analysis.answers.answer import answers
from sshbench.analysis.conclude import conclude
from sshbench.render import charts, html
from sshbench.render.answerchart import answer_chart
from sshbench.render.answerrows import answer_rows, short_lines
from sshbench.render.charttools import RECOMMENDED_COLOR, style
from tests.conftest import load_report

SERVERS = "results-servers-openssh-dropbear-tinysshd.json.gz"


def _ticks(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def test_each_direction_shows_its_ranked_cases_with_the_pick_marked_and_broken_ones_flagged() -> None:
    report = load_report()
    with style():
        chart = answer_chart(conclude(report))
    assert chart is not None and chart.name == "answer"
    upload, download = chart.figure.axes
    assert upload.get_title(loc="left").startswith("upload") and download.get_title(loc="left").startswith("download")
    # the ranks as the tables write them (this schema-3 file's uncorrected tie is "="), the broken one flagged
    assert _ticks(upload) == ["1\u2002aes128-gcm@openssh.com", "2\u2002aes128-ctr", "3\u20023des-cbc (!! broken)"]
    assert _ticks(download)[1] == "=\u2002aes128-ctr"
    bars = upload.patches
    assert bars[0].get_facecolor()[:3] == pytest.approx(to_rgb(RECOMMENDED_COLOR))  # the pick, green
    assert bars[2].get_hatch() == "///"  # 3des-cbc: hatched as on every chart
    words = [t.get_text() for t in upload.texts]
    assert words == ["pick"]  # this file does not know the client's defaults: no default marked
    svg = chart.render("svg").decode()
    assert "error bars: 95%" in svg and "OpenSSH_9.2p1" in svg  # what the bars are, and on what


def test_several_servers_get_a_row_each_and_the_default_is_marked_on_each() -> None:
    report = load_report(SERVERS)
    with style():
        chart = answer_chart(conclude(report))
    assert chart is not None
    titles = [ax.get_title(loc="left") for ax in chart.figure.axes]
    assert titles == ["upload [server openssh] (client -> server)", "download [server openssh] (server -> client)",
                      "upload [server dropbear] (client -> server)", "download [server dropbear] (server -> client)"]
    openssh_up, _, dropbear_up, _ = chart.figure.axes
    assert [t.get_text() for t in openssh_up.texts] == ["pick", "client default"]
    assert [t.get_text() for t in dropbear_up.texts] == ["pick = client default"]
    lines = short_lines(answer_rows(conclude(report)), report.options.tie_margin)
    assert len(lines) == len(answers(report)) == 4
    assert lines[0].startswith("upload [server openssh]: aes256-gcm@openssh.com, ")
    assert "1.48x this client's default (chacha20-poly1305@openssh.com): significantly faster" in lines[0]
    assert lines[2].startswith("upload [server dropbear]: chacha20-poly1305@openssh.com, ") and \
        "this client's default already; 1.40x the runner-up (aes128-ctr): significantly faster" in lines[2]


@pytest.mark.parametrize("name", ["results-logins-1-4.json.gz", "results-commands-reuse.json.gz"])
def test_a_run_without_a_cipher_ranking_has_no_answer_chart_and_its_page_still_renders(name: str) -> None:
    found = conclude(load_report(name), recommendation=True)
    assert answer_chart(found) is None and answer_rows(found) == []
    assert "answer" not in [c.name for c in charts.charts(found)]
    page = html.render([found])
    assert 'id="chart-answer"' not in page and "The answer" in page


def test_the_page_opens_with_the_chart_then_the_evidence_then_the_configs() -> None:
    page = html.render([conclude(load_report(), recommendation=True)])
    chart = page.index('id="chart-answer"')
    assert page.index("The answer") < chart < page.index('class="answer-lines"') < page.index("<table")
    assert page.index("<table") < page.index('id="chart-ciphers-throughput"')
    assert page.count('id="chart-answer"') == 1  # not again among the other charts
