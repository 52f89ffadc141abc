"""Nothing of a run outlives it: interrupts at random moments, SIGKILL then a next run, a dead link emulator,
and Dropbear as a normal user.

Real processes, real namespaces, real signals; no kill path is mocked. A
process "of the run" is any process whose command line, environment,
working directory or open files name the run's own TMPDIR (tests/conftest.py),
which covers the ssh client, every server process (sshd's privsep child
"sshd: [net]" included), the link's wire and the data tools.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.conftest import leftovers, our_processes
from tests.integration.processes import (
    ALGOS,
    ROOT,
    SweepsHeldOff,
    described,
    kill_all,
    run_as_nobody,
    start,
    started_at,
)

pytestmark = pytest.mark.integration

EXIT_WITHIN = 2.0
LINK_RUN = ["--link", "rtt=20ms", "--ciphers", "aes128-ctr,aes256-ctr", *ALGOS, "--no-controls", "--size", "8MiB",
            "--runs", "6", "--echo", "4"]
DROPBEAR_RUN = ["--server", "dropbear", "--ciphers", "aes128-ctr,chacha20-poly1305@openssh.com", *ALGOS,
                "--no-controls", "--size", "32MiB", "--runs", "12"]


def _namespaces(pid: int) -> list[str]:
    return [n for n in os.listdir("/run/netns") if n.startswith(f"sshbench-{pid}-")] \
        if os.path.isdir("/run/netns") else []


def _interrupted_cleanly(args: list[str], at: float, sig: signal.Signals) -> str | None:
    """One try; None when clean, else what was wrong."""
    tmp = Path(tempfile.mkdtemp(prefix="intr-"))
    proc = start(args, tmp)
    try:
        time.sleep(at)
        if proc.poll() is not None:
            return f"ended by itself before {at:.2f} s (make the run longer)"
        sent = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    left = leftovers(str(tmp))
    kill_all(left)
    entries = [e for e in os.listdir(tmp) if e not in ("r.json", "r.csv")]
    problems = []
    if proc.returncode != ExitCode.INTERRUPTED:
        problems.append(f"exit {proc.returncode}: {err[-300:]}")
    if took > EXIT_WITHIN:
        problems.append(f"took {took:.2f} s")
    if (tmp / "r.json").exists() and json.loads((tmp / "r.json").read_text())["status"] != "interrupted":
        problems.append("results without the final status")
    if left:
        problems.append(f"{len(left)} processes left")
    if entries:
        problems.append(f"temp entries left: {entries}")
    if _namespaces(proc.pid):
        problems.append(f"namespaces left: {_namespaces(proc.pid)}")
    return "; ".join(problems) or None


@pytest.mark.parametrize("kind, args", [
    pytest.param("link", LINK_RUN, marks=pytest.mark.skipif(not ROOT, reason="--link needs root")),
    ("dropbear", DROPBEAR_RUN),
])
def test_twenty_interrupts_at_random_moments_each_leave_nothing(kind: str, args: list[str]) -> None:
    """20 tries per kind (40 in all): SIGINT, SIGTERM or SIGHUP between 1.5 and 4.5 s, each clean."""
    rng = random.Random(f"sshbench-{kind}")
    bad = []
    for attempt in range(20):
        at, sig = rng.uniform(1.5, 4.5), rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
        wrong = _interrupted_cleanly(args, at, sig)
        if wrong:
            bad.append(f"try {attempt} ({sig.name} at {at:.2f} s): {wrong}")
    assert not bad, "\n".join(bad)


def _older(pids: set[int], than: int) -> set[int]:
    """The processes that started before the next run did: the killed run's. The next run's own (its
    algos server, whose per-connection children may be orphaned for a moment as they end) start after it."""
    return {pid for pid in pids if (at := started_at(pid)) is not None and at <= than}


def _server_side(pids: set[int]) -> set[int]:
    """The sshd processes among `pids` (a connection's "sshd: [net]", "sshd -i")."""
    found = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].split(b"/")[-1].startswith(b"sshd"):
                found.add(pid)
    return found


@dataclass(frozen=True)
class _Killed:
    """What a SIGKILLed run left (seen while no sweep could end it), and what outlived the next run's sweep."""
    tmp: Path
    pid: int
    processes: set[int]
    dirs: list[str]
    namespaces: list[str]
    outlived: set[int]


def _private_dirs(tmp: Path) -> list[str]:
    return [e for e in os.listdir(tmp) if e.startswith("sshbench-")]


def _kill9_then_next_run(args: list[str], after: float, server_up: bool) -> _Killed | None:
    """SIGKILL a run after `after` s, then start another (which sweeps as it starts); None where another run
    swept it before this could look.
    `server_up`: kill once a connection's server side is up behind the link, and the link's namespaces exist
    (listed in /run/netns under the run's pid and token), so the kill leaves them for the sweep."""
    tmp = Path(tempfile.mkdtemp(prefix="kill9-"))
    proc = start(args, tmp)
    time.sleep(after)
    # A busy machine starts slower: kill once the run has a process of its own (not only a passing `ip` or
    # `ssh -G` that may end before the kill lands). An sshd is up before the links are made (the server's facts
    # are read first): beside other work the kill came between, and "left no namespaces to sweep".
    deadline = time.monotonic() + 90
    while proc.poll() is None and time.monotonic() < deadline:
        now = our_processes(str(tmp)) - {proc.pid}
        if (_server_side(now) and _namespaces(proc.pid)) if server_up else now:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended by itself: make it longer"
    assert not server_up or _namespaces(proc.pid), "no namespace of the link run within 90 s"
    with SweepsHeldOff(proc.pid) as held:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        left = (our_processes(str(tmp)), _private_dirs(tmp), _namespaces(proc.pid)) if held.take() else None
    nxt = subprocess.Popen([sys.executable, "-m", "sshbench", "algos"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp)})
    begun = started_at(nxt.pid) or 0
    try:
        # The sweep is part of the next run's start: once that run has ended (and what it killed has been
        # reaped: leftovers' grace), nothing older may be left. A 20-s wait beside its start read a slow sweep
        # as a leftover on a machine busy with other jobs; one look right at the end can see a killed process
        # not yet reaped.
        nxt.communicate(timeout=120)
        outlived = _older(leftovers(str(tmp)), begun)
    finally:
        if nxt.poll() is None:
            nxt.kill()
            nxt.wait()
    kill_all(outlived)
    return None if left is None else _Killed(tmp, proc.pid, *left, outlived)


@pytest.mark.parametrize("kind, args", [
    pytest.param("link", LINK_RUN, marks=pytest.mark.skipif(not ROOT, reason="--link needs root")),
    ("dropbear", DROPBEAR_RUN),
])
def test_after_sigkill_the_next_run_ends_what_was_left_and_removes_the_keys(kind: str, args: list[str]) -> None:
    """The kill leaves the private dir with the keys (and a link run its namespaces; processes only at some
    moments: behind a link a connection's server side may or may not see its client go before the wire
    dies); after the next run, none of it is there."""
    killed = None
    for _ in range(3):
        if killed := _kill9_then_next_run(args, 4.0, server_up=kind == "link"):
            break
    assert killed, "in three tries, another sshbench run swept the killed one before this could look"
    assert killed.dirs, "the kill left no private dir to sweep (else this test proves nothing)"
    assert killed.namespaces or kind == "dropbear", "the link run left no namespaces to sweep"
    assert not killed.outlived, \
        f"{len(killed.outlived)} of the {len(killed.processes)} processes the killed run left outlived the next " \
        f"run, which sweeps as it starts: {described(killed.outlived)}"
    assert not _private_dirs(killed.tmp), "the killed run's private dir stayed"
    assert not _namespaces(killed.pid), "the killed run's namespaces stayed"


@pytest.mark.skipif(not ROOT, reason="--link needs root")
def test_a_dead_link_emulator_stops_the_run_at_once_naming_it(tmp_path: Path) -> None:
    args = ["--link", "rtt=20ms", "--ciphers", "aes128-ctr,aes256-ctr", *ALGOS, "--no-controls", "--size", "64MiB",
            "--runs", "20"]
    proc = start(args, tmp_path)
    try:
        deadline = time.monotonic() + 60
        wire = None
        while wire is None and time.monotonic() < deadline and proc.poll() is None:
            if (tmp_path / "r.json").exists() and json.loads((tmp_path / "r.json").read_text())["samples"]:
                wire = next((p for p in our_processes(str(tmp_path)) if b"wire.py" in
                             Path(f"/proc/{p}/cmdline").read_bytes()), None)
            time.sleep(0.1)
        assert wire is not None, "no wire process found mid-run"
        killed = time.monotonic()
        os.kill(wire, signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - killed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == ExitCode.STOPPED, err
    assert took < 5, f"took {took:.1f} s (the timeout is 60 s)"
    lines = err.strip().splitlines()  # the run's notes (the plain transfer added), then one error line
    errors = [line for line in lines if line.startswith("sshbench: error:")]
    assert all(line.startswith("sshbench: ") for line in lines), err
    assert len(errors) == 1 and "the link emulator of rtt=20ms" in errors[0] and "killed by signal 9" in errors[0]
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "failed"
    assert not leftovers(str(tmp_path))


@pytest.mark.skipif(not ROOT or not os.path.exists("/usr/bin/python3"), reason="setpriv to another user needs root")
def test_dropbear_works_for_a_normal_user_and_tinysshd_says_why_it_cannot(nobody_tmp: Path) -> None:
    done = run_as_nobody(["--server", "dropbear", "--ciphers", "aes128-ctr", *ALGOS, "--no-controls", "--runs", "2",
                       "--size", "4MiB"], nobody_tmp)
    assert done.returncode == 0, done.stderr[-1500:]
    data = json.loads((nobody_tmp / "r.json").read_text())
    assert data["status"] == "complete" and sum(s["ok"] for s in data["samples"]) >= 2
    assert data["environment"]["server"]["embedded"]["server"] == "dropbear"
    (nobody_tmp / "r.json").unlink()
    (nobody_tmp / "r.csv").unlink()
    done = run_as_nobody(["--server", "tinysshd", "--ciphers", "default", *ALGOS, "--no-controls", "--runs", "1",
                       "--size", "1MiB"], nobody_tmp)
    assert done.returncode == ExitCode.SERVER, done.stderr
    assert "--server tinysshd needs root" in done.stderr and "owned by the user or root" in done.stderr
    assert not leftovers(str(nobody_tmp))
    assert not [e for e in os.listdir(nobody_tmp) if e.startswith("sshbench-")]
