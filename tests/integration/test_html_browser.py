"""The HTML report in a real headless browser: it loads with no console errors, shows its charts, and opens with
the answer chart on the first screen."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image
from matplotlib.colors import to_rgb

from sshbench.analysis.conclude import conclude
from sshbench.render import html
from sshbench.render.charttools import RECOMMENDED_COLOR
from sshbench.results.codec import report_from_dict
from tests.conftest import DATA, load_report

pytestmark = pytest.mark.integration

CHROMIUM = shutil.which("chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", "--window-size=1200,2400"]


@pytest.fixture
def browser() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: scripts/install-deps --test installs it")
        pytest.skip("chromium is not installed (sh scripts/install-deps --test as root installs it)")
    return CHROMIUM


def test_report_loads_cleanly_and_shows_charts(browser: str, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(html.render([conclude(load_report(), recommendation=True)]), encoding="utf-8")
    shot = tmp_path / "shot.png"
    done = subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                           page.as_uri()], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Failed to load" in line]
    assert console == [], console
    pixels = image.imread(str(shot))[:, :, :3]
    upload_blue = ((abs(pixels[:, :, 0] - 0x3B / 255) < 0.03) & (abs(pixels[:, :, 1] - 0x75 / 255) < 0.03)
                   & (abs(pixels[:, :, 2] - 0xAF / 255) < 0.03)).sum()
    download_orange = ((abs(pixels[:, :, 0] - 0xEF / 255) < 0.03) & (abs(pixels[:, :, 1] - 0x86 / 255) < 0.03)
                       & (abs(pixels[:, :, 2] - 0x36 / 255) < 0.03)).sum()
    assert upload_blue > 2000 and download_orange > 2000  # the throughput chart's bars are on screen


def _dump(browser: str, page: Path, width: int, profile: Path) -> str:
    done = subprocess.run([browser, *FLAGS[:-1], f"--window-size={width},900", f"--user-data-dir={profile}",
                           "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("width", [1400, 390])
def test_the_answer_comes_first_and_nothing_overflows_the_page(browser: str, tmp_path: Path, width: int) -> None:
    """At a desktop and a phone width: the answer chart and its verdict first, then the evidence tables, the
    config after them; no page-wide overflow."""
    text = html.render([conclude(load_report(), recommendation=True)])
    assert text.index("The answer") < text.index('id="chart-answer"') < text.index("<table") \
        < text.index("Recommended configuration")
    # a test-only copy measures the layout (the report itself has no script)
    probe = text.replace("</body>", "<script>window.onload = () => { document.title = 'W=' + "
                         "document.documentElement.scrollWidth + ' V=' + window.innerWidth; };</script></body>")
    page = tmp_path / "probe.html"
    page.write_text(probe, encoding="utf-8")
    dom = _dump(browser, page, width, tmp_path / "profile")
    found = dom.split("<title>W=", 1)[1].split("</title>", 1)[0]
    scroll, viewport = (int(part.split("=")[-1]) for part in found.split())
    assert scroll <= viewport, f"the page is {scroll} px wide in a {viewport} px window"


SCREEN = (1300, 900)
SHARED_RUNS = Path(__file__).resolve().parents[3] / "shared" / "data" / "runs"
# recorded real runs: three servers as one report (four panels), and a default run (ten ciphers a direction)
ANSWER_RUNS = [DATA / "results-servers-openssh-dropbear-tinysshd.json.gz",
               SHARED_RUNS / "epyc-2vcpu-default-run-2026-11-25.json.gz"]
# a test-only copy writes where the chart's drawing lies into the title, which --dump-dom prints
BOX_PROBE = ("<script>window.onload = () => { const box = document.querySelector('#chart-answer svg')"
             ".getBoundingClientRect(); document.title = 'BOX=' + [box.left, box.top, box.right, box.bottom]"
             ".map(Math.round).join(' '); };</script></body>")


@pytest.mark.parametrize("path", ANSWER_RUNS, ids=lambda path: path.name.split(".")[0])
def test_the_answer_chart_is_on_the_first_screen(browser: str, tmp_path: Path, path: Path) -> None:
    """Screenshotted at 1300x900, the answer chart lies whole within the first screen, and is painted there: the
    pick's green bars are inside the box the page's own layout gives the chart."""
    if not path.exists():
        pytest.skip(f"{path} is a shared recorded run, not in this checkout")
    report = report_from_dict(json.loads(gzip.decompress(path.read_bytes())))
    page = tmp_path / "probe.html"
    found = conclude(report, recommendation=True)
    page.write_text(html.render([found]).replace("</body>", BOX_PROBE), encoding="utf-8")
    shot = tmp_path / "shot.png"
    done = subprocess.run([browser, *FLAGS[:-1], f"--window-size={SCREEN[0]},{SCREEN[1]}",
                           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--dump-dom",
                           page.as_uri()], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    left, top, right, bottom = (int(v) for v in done.stdout.split("<title>BOX=", 1)[1].split("</title>")[0].split())
    pixels = image.imread(str(shot))[:, :, :3]
    assert pixels.shape[1::-1] == SCREEN
    assert 0 <= left < right <= SCREEN[0] and 0 < top < bottom <= SCREEN[1], (left, top, right, bottom)
    green = (np.abs(pixels - np.array(to_rgb(RECOMMENDED_COLOR))) < 0.03).all(axis=2)
    inside = green[top:bottom, left:right].sum()
    assert inside > 1500 and inside > 0.9 * green.sum(), (inside, green.sum())  # the pick's bars, in the box
