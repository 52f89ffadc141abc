"""Exports of a recorded real results file, compared with expected output (refresh: pytest --update-golden)."""

from __future__ import annotations

import re
from pathlib import Path

from sshbench.export import charts, html, markdown
from tests.conftest import DATA, load_report

GOLDEN = DATA / "golden"


def check_golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run pytest --update-golden once"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed: review, then pytest --update-golden"


def test_markdown_matches_golden(update_golden: bool) -> None:
    text = markdown.render(load_report())
    check_golden("results-small.md", text, update_golden)
    assert "`3des-cbc` ⛔ | broken (!!)" in text  # broken marked in the row
    assert re.search(r"\| 1 \| `aes128-gcm@openssh.com` \| recommended \| [\d,]+ ±\d+", text)  # interval shown


def test_charts_cover_every_kind_and_mark_flagged_algorithms() -> None:
    made = charts.charts(load_report())
    try:
        names = [c.name for c in made]
        assert names == ["ciphers-throughput", "macs-throughput", "kex-handshake", "hostkeys-handshake",
                         "ciphers-cpu-cost", "methods-heatmap"]
        svg = made[0].render("svg").decode()
        assert "3des-cbc (broken)" in svg and "aes128-gcm@openssh.com" in svg
        assert "MB/s (10^6 bytes per second)" in svg and "OpenSSH_9.2p1" in svg  # units and versions
        assert made[0].render("png").startswith(b"\x89PNG")
    finally:
        charts.close(made)


def test_html_is_self_contained(tmp_path: Path) -> None:
    page = html.render([load_report()])
    assert "<svg" in page and page.count("<figure") == 6
    assert not re.search(r"""(src|href)=["']https?://""", page)  # nothing fetched from the network
    assert "<script" not in page
    for text in ("Recommended configuration (policy modern)", "Raw samples", "Controls and ceilings",
                 "broken (!!)", "Host *"):
        assert text in page
