"""Runs that measured different things are never compared or recommended from as if they were alike: a --no-aesni
run is not a regression of a default one, and not the basis of a config for a machine that has AES-NI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration
SMALL = Path(__file__).resolve().parents[1] / "data" / "results-small.json"


@pytest.fixture
def masked(tmp_path: Path) -> Path:
    """The recorded run, as if made with --no-aesni a day later (on the same machine, which has AES-NI).

    Its path is long on purpose: the note quotes both paths, and a note wrapped at the terminal's width once split
    its phrase across lines where the checkout's path was longer (CI's)."""
    data = json.loads(SMALL.read_text())
    data["options"]["no_aesni"] = True
    data["started_at"] = "2026-11-22T01:00:38+00:00"
    path = tmp_path / ("a-long-directory-name-" * 4) / "no-aesni.json"
    path.parent.mkdir()
    path.write_text(json.dumps(data))
    return path


def test_compare_flags_it_and_refuses_a_regression_verdict_across_it(masked: Path) -> None:
    refused = sshbench("compare", str(SMALL), str(masked), "--fail-above", "5%")
    assert refused.returncode == ExitCode.USAGE and "measured different things (--no-aesni off vs on)" in \
        refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    flagged = sshbench("compare", str(SMALL), str(masked))
    assert flagged.returncode == ExitCode.OK and "measured different things (--no-aesni off vs on)" in flagged.stdout
    allowed = sshbench("compare", str(SMALL), str(masked), "--fail-above", "5%", "--allow-different", "--json")
    assert allowed.returncode in (ExitCode.OK, ExitCode.REGRESSION)
    assert any("--no-aesni off vs on" in note for note in json.loads(allowed.stdout)["notes"])


def test_recommend_never_bases_a_config_on_a_masked_run_unless_asked(masked: Path) -> None:
    refused = sshbench("recommend", str(masked))
    assert refused.returncode == ExitCode.USAGE and "--for-no-aesni" in refused.stderr
    newest = sshbench("recommend", str(SMALL), str(masked), "--json")
    assert newest.returncode in (ExitCode.OK, ExitCode.EXPOSED), newest.stderr
    assert f"using the newest run, {SMALL}" in newest.stderr and "passing over 1 made with --no-aesni" in newest.stderr
    asked = sshbench("recommend", str(masked), "--for-no-aesni", "--json")
    assert asked.returncode in (ExitCode.OK, ExitCode.EXPOSED), asked.stderr
