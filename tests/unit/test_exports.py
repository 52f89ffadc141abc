"""Exports of a recorded real results file, compared with expected output (refresh: pytest --update-golden)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from sshbench.analysis.conclude import conclude, conclude_fleet
from sshbench.analysis.config.configtext import client_block, server_dropin
from sshbench.analysis.config.recommend import build
from sshbench.analysis.stats.stats import summarize
from sshbench.render import charts, html, markdown
from sshbench.render.terminal import full_report, host_rule, hosts_report
from sshbench.results.environment import StoredRecommendation
from sshbench.results.model import Report
from sshbench.results.store import read_results
from tests.conftest import DATA, load_report

GOLDEN = DATA / "golden"


def check_golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run pytest --update-golden once"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed: review, then pytest --update-golden"


def _terminal(runs: list[Report]) -> str:
    """What `sshbench report FILE` prints into a pipe or a log (180 columns, no colour)."""
    console = Console(width=180, file=io.StringIO())
    for report in runs:
        if len(runs) > 1:
            console.print(host_rule(report))
        console.print(full_report(conclude(report), 180))
    if len(runs) > 1:
        console.print(hosts_report(conclude_fleet(runs), 180))
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


@pytest.mark.parametrize("name", ["results-small", "results-hosts"])
def test_every_output_matches_golden(name: str, update_golden: bool) -> None:
    """Recorded results files (schema 3, written before the typed model) render exactly as reviewed."""
    runs = read_results(str(DATA / f"{name}.json"))
    check_golden(f"{name}.term", _terminal(runs), update_golden)
    check_golden(f"{name}.md", markdown.render_all([conclude(r) for r in runs], conclude_fleet(runs)), update_golden)


def test_markdown_marks_broken_algorithms_and_shows_intervals() -> None:
    text = markdown.render(conclude(load_report()))
    assert "| 3 | `3des-cbc` | !! broken |" in text  # broken marked in the row
    assert re.search(r"\| 1 \| `aes128-gcm@openssh.com` \| recommended \| [\d,]+ ±\d+", text)  # interval shown


def test_charts_cover_every_kind_and_mark_flagged_algorithms() -> None:
    made = charts.charts(conclude(load_report()))
    names = [c.name for c in made]
    assert names == ["answer", "ciphers-throughput", "macs-throughput", "kex-handshake", "hostkeys-handshake",
                     "ciphers-cpu-cost", "methods-heatmap", "phases"]  # the answer first: the page opens with it
    svg = made[1].render("svg").decode()
    assert "3des-cbc (!! broken)" in svg and "aes128-gcm@openssh.com" in svg
    assert "MB/s (10^6 bytes per second)" in svg and "OpenSSH_9.2p1" in svg  # units and versions
    assert made[1].render("png").startswith(b"\x89PNG")


def test_html_is_self_contained(tmp_path: Path) -> None:
    report = load_report()
    rec = build(report)  # what this version makes of the recorded run, as a run would have stored it
    report.recommendation = StoredRecommendation("modern", client_block(rec), server_dropin(rec) or "")
    page = html.render([conclude(report, recommendation=True)])
    assert "<svg" in page and page.count("<figure") == 8
    assert not re.search(r"""(src|href)=["']https?://""", page)  # nothing fetched from the network
    assert "<script" not in page
    for text in ("Recommended configuration (policy modern)", "Raw samples", "Controls and ceilings",
                 "!! broken", "Host *"):
        assert text in page


def test_a_case_without_an_interval_says_so_in_every_output() -> None:
    """Five samples give no 95% interval: no output may draw or print one (a zero-width bar looks exact)."""
    report = load_report()
    case_id = "cipher:aes128-gcm@openssh.com:upload"
    counted = [s for s in report.samples if s.case_id == case_id and s.ok and not s.warmup]
    report.samples = [s for s in report.samples if s is not counted[0]] if len(counted) == 6 else report.samples
    report.summaries = summarize(report.cases, report.samples)
    assert next(s for s in report.summaries if s.case_id == case_id).samples_ok == 5
    row = r"\| `aes128-gcm@openssh.com` \| recommended \| [\d,]+ \| n\\<6 \| 5 \|"  # '<' escaped in Markdown
    assert re.search(row, markdown.render(conclude(report)))
    made = {chart.name: chart for chart in charts.charts(conclude(report))}
    for name in ("answer", "ciphers-throughput"):
        assert "n&lt;6: no interval" in made[name].render("svg").decode()  # the SVG escapes "<"


def test_charts_are_an_optional_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without matplotlib: --charts is one clear error naming the extra; HTML says so and keeps the rest."""
    import sys

    from sshbench.render.chartbook import ChartBook
    from sshbench.render.exporters import EXPORTERS, DirectoryExporter
    from sshbench.vocabulary.errors import MissingToolError

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails, as if not installed
    monkeypatch.delitem(sys.modules, "sshbench.render.charts", raising=False)
    import sshbench.render

    monkeypatch.delattr(sshbench.render, "charts", raising=False)  # as if never imported
    charts_exporter = next(e for e in EXPORTERS if e.option == "--charts")
    assert isinstance(charts_exporter, DirectoryExporter)
    with pytest.raises(MissingToolError, match=r"pip install 'sshbench\[charts\]'"):
        charts_exporter.files([conclude(load_report())], ChartBook())
    with pytest.raises(MissingToolError):
        charts_exporter.check()  # what `report` asks before it creates the directory: a refusal leaves none
    monkeypatch.setattr(html, "CHARTS_AVAILABLE", False)
    page = html.render([conclude(load_report(), recommendation=True)])
    assert "<svg" not in page and "pip install 'sshbench[charts]'" in page and "The answer" in page


def test_charts_mark_recommended_keep_legends_off_the_bars_and_label_log_ticks_plainly() -> None:
    made = charts.charts(conclude(load_report()))
    by_name = {chart.name: chart.figure for chart in made}
    for figure in by_name.values():
        for ax in figure.axes:
            legend = ax.get_legend()
            if legend is not None:  # anchored right of the plot: it cannot cover a bar
                assert legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted()).x0 > 1.0
        captions = [t for t in figure.texts if "error bars" in t.get_text() or "medians" in t.get_text()]
        assert captions and all(float(t.get_fontsize()) >= 9 for t in captions)
    axis = by_name["ciphers-throughput"].axes[0]
    ticks = {t.get_text(): t for t in axis.get_yticklabels()}
    assert ticks["aes128-gcm@openssh.com"].get_fontweight() == "bold"
    assert ticks["3des-cbc (!! broken)"].get_color() == "#c53a32"
    cost = by_name["ciphers-cpu-cost"].axes[0]
    cost.figure.canvas.draw()
    labels = [t.get_text() for t in cost.get_xticklabels() if t.get_text()]
    assert labels and all(re.fullmatch(r"[0-9.]+", x) for x in labels), labels  # "2", "5", "10": no 3x10^0
