"""A fitted budget fits across links, servers and compressors (issue 62): the default budget always ends in a plan
that fits, naming what it left out, and `--fit` with a small budget fits or refuses in one line before anything
runs. The half after the warm-up, on the visit times it measures, is tests/unit/test_fit_after_warmup.py's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration

# Links a user tries first: none, a long fast path (the default budget refused it with Dropbear, "needs about
# 9 min 26 s"), a slow lossy line, a slow line at a real path's MTU
LINKS = ("", "rtt=150ms,rate=1gbit", "rtt=40ms,rate=20mbit,loss=1%", "rtt=2ms,rate=20mbit,mtu=1500")
SERVERS = ("openssh", "dropbear", "tinysshd")


def _args(link: str, server: str) -> list[str]:
    compression = "off,zstd" if server == "tinysshd" else "off,ssh,zstd"  # tinysshd has no SSH compression
    return [*(["--link", link] if link else []), "--server", server, "--data", "random", "--streams", "1,2",
            "--compression", compression, "--plan"]


def _needs(stdout: str) -> tuple[float, float]:
    """The plan's minimum and its budget, in seconds, from its own line ("needs at least 7 min 3 s, ...; the time
    budget is 8 min 0 s")."""
    found = re.search(r"needs at least (?:(\d+) min )?(\d+) s,.*the time budget is (?:(\d+) min )?(\d+) s", stdout)
    assert found, stdout
    minutes, seconds, budget_minutes, budget_seconds = (int(part or 0) for part in found.groups())
    return 60.0 * minutes + seconds, 60.0 * budget_minutes + budget_seconds


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("link", LINKS)
def test_the_default_budget_always_plans_a_run_that_fits(tmp_path: Path, link: str, server: str) -> None:
    done = sshbench(*_args(link, server), cwd=tmp_path, tmpdir=tmp_path, timeout=120)
    assert done.returncode == ExitCode.OK, done.stderr
    needs, budget = _needs(done.stdout)
    assert needs <= budget, done.stdout
    assert "Traceback" not in done.stderr
    fitted = [line for line in done.stderr.splitlines() if "to fit the default time budget" in line]
    assert all(line.startswith("sshbench: ") for line in fitted), done.stderr  # each step named, one line each


@pytest.mark.parametrize("server", SERVERS)
@pytest.mark.parametrize("link", LINKS)
def test_fit_in_a_small_budget_fits_or_refuses_before_anything_runs(tmp_path: Path, link: str, server: str) -> None:
    done = sshbench(*_args(link, server), "--fit", "--time-budget", "90s", cwd=tmp_path, tmpdir=tmp_path,
                    timeout=120)
    assert "Traceback" not in done.stderr
    if done.returncode == ExitCode.USAGE:  # refused: one line, saying the one case left cannot fit, and the fix
        errors = [line for line in done.stderr.splitlines() if line.startswith("sshbench: error:")]
        assert len(errors) == 1 and "one case is the smallest run" in errors[0], done.stderr
        assert "raise --time-budget to" in errors[0], errors[0]
        return
    assert done.returncode == ExitCode.OK, done.stderr
    needs, budget = _needs(done.stdout)
    assert needs <= budget, done.stdout
