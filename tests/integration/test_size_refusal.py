"""A fixed --size too small for a steady window is refused after the warm-up shows it, before any counted sample.

Over rtt=50ms one channel moves at most its 2 MiB window per round trip (about 40 MB/s), so the steady part of
a 16 MiB sample (past its 8 MiB mark) lasts about 0.2 s, under the 20 round trips (1 s) a window must span:
every counted sample would be set aside. It was measured for minutes and ended in exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench
from tests.integration.processes import ALGOS, ROOT

pytestmark = [pytest.mark.integration, pytest.mark.skipif(not ROOT, reason="--link makes network namespaces")]


def test_a_size_too_small_for_a_window_is_refused_before_the_counted_samples(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("--link", "rtt=50ms", "--ciphers", "aes128-ctr", *ALGOS, "--no-controls", "--directions",
                    "upload", "--size", "16MiB", "--runs", "4", "--echo", "0", "--output", str(out), cwd=tmp_path,
                    tmpdir=tmp_path, timeout=300)
    assert done.returncode == ExitCode.USAGE, done.stderr[-2000:]
    error = [line for line in done.stderr.splitlines() if line.startswith("sshbench: error:")]
    assert len(error) == 1 and "its warm-up at --size 16MiB had" in error[0], done.stderr[-2000:]
    assert "give --size " in error[0] and "under 20 round trips of 5" in error[0], error[0]
    data = json.loads(out.read_text())
    assert not [s for s in data["samples"] if not s["warmup"]], "refused before any counted sample"
