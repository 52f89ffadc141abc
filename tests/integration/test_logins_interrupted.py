"""An interrupt during --logins: the stages that finished are in the results file, saved as each ended, the run
marked interrupted with the documented exit code, and the stage it came in ends its clients at once (no ssh,
no sshd, no namespace left)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.conftest import leftovers, our_processes
from tests.integration.processes import described, kill_all, killed_if_left, start

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the listening sshd runs in a namespace")]

COUNTS = (1, 2, 4)
STAGE_SECONDS = 6.0  # each stage: long enough that the signal lands inside the one after the first
WITHIN = 240.0  # for the run to reach its second stage, however busy the machine (its first alone takes ~15 s)


def _stages(results: Path) -> list[int]:
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        return [stage["clients"] for stage in json.loads(results.read_text()).get("logins", [])]
    return []


def _logins_in_flight(tmp: Path) -> set[int]:
    """The run's `ssh ... true` clients alive now."""
    found = set()
    for pid in our_processes(str(tmp)):
        with contextlib.suppress(OSError):
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if argv[0].endswith(b"/ssh") and b"true" in argv:
                found.add(pid)
    return found


def _namespaces(pid: int) -> list[str]:
    return [n for n in os.listdir("/run/netns") if n.startswith(f"sshbench-{pid}-")] \
        if os.path.isdir("/run/netns") else []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_during_logins_keeps_the_finished_stages_and_ends_the_clients(sig: signal.Signals,
                                                                                   tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    proc = start(["--logins", ",".join(map(str, COUNTS)), "--logins-seconds", str(STAGE_SECONDS),
                  "--setup-runs", "1", "--runs", "1"], tmp_path)
    with killed_if_left(proc):
        # the state the test needs: the first stage saved, and the next one's clients logging in
        deadline = time.monotonic() + WITHIN
        while proc.poll() is None and time.monotonic() < deadline and not (
                _stages(results) and _logins_in_flight(tmp_path)):
            time.sleep(0.05)
        assert proc.poll() is None, f"the run ended before a second stage (exit {proc.returncode})"
        saved = _stages(results)
        assert saved, f"no stage saved within {WITHIN:.0f} s"
        assert _namespaces(proc.pid), "the listening sshd's namespace is not there mid-stage"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED, (proc.returncode, err[-2000:])
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("sshbench: interrupted"), err
    data = json.loads(results.read_text())
    assert data["status"] == "interrupted" and data["finished_at"], data["status"]
    stages = [stage["clients"] for stage in data["logins"]]
    assert stages[:len(saved)] == saved and list(COUNTS[:len(stages)]) == stages, (saved, stages)
    assert len(stages) < len(COUNTS), "every stage finished: the signal came after the logins"
    for stage in data["logins"]:  # only whole stages: each ran its time and counted its logins
        assert stage["seconds"] >= STAGE_SECONDS and stage["completed"] >= 1 and stage["failed"] == 0, stage
    left = leftovers(str(tmp_path))
    what = described(left)
    kill_all(left)
    assert not left, f"processes outlived the run: {what}"
    assert not _namespaces(proc.pid), "the listening sshd's namespace stayed"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sshbench-")], "a private dir stayed"
