"""A sweep ends what a dead run's record proves that run started, and nothing else.

Real runs killed with SIGKILL, real decoys in every shape the old sweep took
as evidence (an environment mark, an open file or a working directory in the
dead run's private dir, a process in another pid namespace), a planted FIFO,
and a live run in a pid namespace of its own beside three host runs that
sweep while it measures. As root, and as another user where a test can be.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sshbench.plumbing.runs import MARK_FILE
from tests.conftest import leftovers, our_processes
from tests.integration.cli_helpers import sshbench
from tests.integration.processes import (
    ALGOS,
    NOBODY,
    ROOT,
    SweepsHeldOff,
    alive,
    as_nobody,
    descendants,
    kill_all,
    nobody_env,
    start,
    start_as_nobody,
    wait_for_samples,
)

pytestmark = pytest.mark.integration

LONG_RUN = ["--ciphers", "aes128-ctr,aes256-ctr", *ALGOS, "--no-controls", "--size", "32MiB", "--runs", "60",
            "--directions", "upload"]
NOBODY_RUN = ["--server", "dropbear", *LONG_RUN]
OLD_MARK = "SSHBENCH_RUN=4000000.1"  # the environment mark the old sweep trusted, naming no live run


def _private_dir(tmp: Path) -> Path:
    found = [tmp / e for e in os.listdir(tmp) if e.startswith("sshbench-") and (tmp / e / MARK_FILE).exists()]
    assert found, f"the run made no private dir in {tmp}"
    return found[0]


def _decoys(directory: Path, run_as: list[str]) -> dict[str, subprocess.Popen[bytes]]:
    """Processes sshbench did not start, each carrying one kind of evidence the old sweep trusted."""
    def decoy(argv: list[str], cwd: Path | None = None) -> subprocess.Popen[bytes]:
        return subprocess.Popen([*run_as, *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True, cwd=cwd)
    decoys = {
        "an environment mark": decoy(["env", OLD_MARK, "sleep", "300"]),
        "an open file in the dead run's dir": decoy(["tail", "-f", str(directory / MARK_FILE)]),
        "a working directory in the dead run's dir": decoy(["sleep", "300"], cwd=directory),
    }
    if ROOT and not run_as and shutil.which("unshare"):
        decoys["a process in another pid namespace"] = decoy(["unshare", "--pid", "--fork", "env", OLD_MARK,
                                                              "sleep", "300"])
    if ROOT and not run_as:
        decoys["another user's process with the mark"] = subprocess.Popen(
            as_nobody(["env", OLD_MARK, "sleep", "300"]), stdin=subprocess.DEVNULL, start_new_session=True)
    time.sleep(0.3)  # each is running (tail has opened its file, unshare has forked)
    return decoys


def _session(pid: int) -> int | None:
    """The session of a process (None: gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[3])
    except (OSError, ValueError, IndexError):
        return None


def _decoy_pids(decoys: dict[str, subprocess.Popen[bytes]]) -> set[int]:
    return {pid for proc in decoys.values() for pid in {proc.pid} | descendants(proc.pid)}


def _dead(decoys: dict[str, subprocess.Popen[bytes]]) -> list[str]:
    """The decoys (or, for wrappers such as unshare, what they started) that are no longer running."""
    return [name for name, proc in decoys.items()
            if not alive(proc.pid) or not all(alive(pid) for pid in descendants(proc.pid))]


def _kill_sweep_and_check(run: subprocess.Popen[str], tmp: Path, run_as: list[str], sweeper: list[str],
                          env: dict[str, str]) -> None:
    """Once the run measures: decoys beside it, its processes stopped and sshbench SIGKILLed, then a next
    command that sweeps; then every decoy lives, nothing of the killed run does, and its private dir is gone."""
    decoys: dict[str, subprocess.Popen[bytes]] = {}
    try:
        wait_for_samples(run, tmp / "r.json", 2)
        private = _private_dir(tmp)
        decoys = _decoys(private, run_as)
        deadline = time.monotonic() + 30  # between two samples a run has no child: kill it while one is running
        while time.monotonic() < deadline and run.poll() is None:
            os.kill(run.pid, signal.SIGSTOP)  # the run first, so it starts nothing new while its children stop
            stopped = descendants(run.pid)
            for pid in stopped:  # stopped, they cannot end by themselves when sshbench dies
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
            # a server's connection, stopped: it is a session of its own and outlives sshbench, where the client
            # side (process groups in sshbench's session) is sent SIGHUP by the kernel once its group is orphaned
            if any(_session(pid) != _session(run.pid) for pid in our_processes(str(tmp)) - _decoy_pids(decoys)):
                break
            for pid in [*stopped, run.pid]:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGCONT)
            time.sleep(0.05)
        with SweepsHeldOff(run.pid) as held:
            os.kill(run.pid, signal.SIGKILL)
            run.wait()
            assert held.take(), "another sshbench run swept the killed one before this test could look"
            before = our_processes(str(tmp)) - _decoy_pids(decoys)
        done = subprocess.run(sweeper, capture_output=True, text=True, timeout=180, env=env, check=False)
        assert done.returncode == 0, done.stderr[-1500:]
        assert before, "the killed run left no process (else this test proves nothing)"
        assert not _dead(decoys), f"a sweep signalled what sshbench did not start: {_dead(decoys)}"
        left = leftovers(str(tmp)) - _decoy_pids(decoys)
        assert not left, f"{len(left)} processes of the killed run outlived the sweep"
        assert not private.exists(), "the killed run's private dir (its keys) stayed"
    finally:
        if run.poll() is None:
            run.kill()
        kill_all(_decoy_pids(decoys))


@pytest.mark.skipif(not ROOT or not shutil.which("setpriv"), reason="decoys of other users need root")
def test_a_root_sweep_ends_the_dead_run_and_leaves_every_forged_shape_alone(tmp_path: Path) -> None:
    _kill_sweep_and_check(start(LONG_RUN, tmp_path), tmp_path, [], [sys.executable, "-m", "sshbench", "algos"],
                          {**os.environ, "TMPDIR": str(tmp_path)})


@pytest.mark.skipif(not ROOT or not os.path.exists("/usr/bin/python3"), reason="setpriv to another user needs root")
def test_a_normal_users_sweep_proves_ownership_by_recorded_sessions(nobody_tmp: Path) -> None:
    """As uid 65534 there is no cgroup: the run records its sessions, and the sweep ends those alone."""
    sweeper = as_nobody(["/usr/bin/python3", "-m", "sshbench", "--server", "dropbear", "--ciphers", "aes128-ctr",
                         *ALGOS, "--no-controls", "--runs", "1", "--size", "1MiB",
                         "--output", str(nobody_tmp / "next.json")])
    _kill_sweep_and_check(start_as_nobody(NOBODY_RUN, nobody_tmp), nobody_tmp, as_nobody([]), sweeper,
                          nobody_env(nobody_tmp))


_DEAD_RECORD = """
import os, sys
from sshbench.plumbing import runs
claim = runs.claim_run()
path = claim.private_dir("sshbench-fifo-")
os.unlink(os.path.join(path, runs.MARK_FILE))
os.mkfifo(os.path.join(path, runs.MARK_FILE))  # its mark is now a FIFO: reading it would block
print(path)
"""  # exits without release_run(): as if killed, its record names the dir


def test_planted_fifos_never_hang_a_sweep(tmp_path: Path) -> None:
    planted = tmp_path / "sshbench-planted"  # the old sweep opened TMPDIR/sshbench-*/.sshbench-run to read it
    planted.mkdir()
    os.mkfifo(planted / MARK_FILE)
    if ROOT:
        os.chown(planted, NOBODY, NOBODY)
        os.chown(planted / MARK_FILE, NOBODY, NOBODY)
    made = subprocess.run([sys.executable, "-c", _DEAD_RECORD], capture_output=True, text=True, timeout=30,
                          check=True, env={**os.environ, "TMPDIR": str(tmp_path)})
    recorded = Path(made.stdout.strip())
    started = time.monotonic()
    done = sshbench("algos", tmpdir=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 30
    assert planted.exists(), "not sshbench's: left alone"
    assert recorded.exists(), "its mark is not a regular file: not proven, so not removed"


_IN_NAMESPACE_RUN = ["--ciphers", "aes128-ctr,aes256-ctr", *ALGOS, "--no-controls", "--size", "16MiB",
                     "--runs", "26", "--directions", "upload"]


@pytest.mark.skipif(not ROOT or not shutil.which("unshare"), reason="a pid namespace of its own needs root")
def test_a_live_run_in_its_own_pid_namespace_survives_three_sweeping_host_runs(tmp_path: Path) -> None:
    """The old sweep read the inner run's mark (its pid there, 1) as a dead host pid and broke it."""
    inner_tmp, results = tmp_path / "inner", tmp_path / "inner.json"
    inner_tmp.mkdir()
    inner = subprocess.Popen(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-m", "sshbench",
                              *_IN_NAMESPACE_RUN, "--output", str(results)], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(inner_tmp)})
    sweeps: list[int] = []

    def sweep_while_it_runs(index: int) -> None:
        own = tmp_path / f"host{index}"
        own.mkdir()
        deadline = time.monotonic() + 300
        while inner.poll() is None and time.monotonic() < deadline:
            done = sshbench("algos", tmpdir=own, timeout=120)
            sweeps.append(done.returncode)

    threads = [threading.Thread(target=sweep_while_it_runs, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    try:
        _, err = inner.communicate(timeout=300)
    finally:
        if inner.poll() is None:
            inner.kill()
        for thread in threads:
            thread.join(timeout=150)
    assert inner.returncode == 0, err[-1500:]
    data = json.loads(results.read_text())
    failed = [s for s in data["samples"] if not s["ok"]]
    assert data["status"] == "complete" and len(data["samples"]) >= 52
    assert not failed, f"{len(failed)} samples failed: {failed[0].get('error')}"
    assert len(sweeps) >= 3 and not any(sweeps), f"the host runs: {sweeps}"


@pytest.mark.skipif(not ROOT or not os.path.exists("/usr/bin/python3"), reason="planting another user's dir needs root")
def test_the_state_dir_is_used_only_when_it_is_this_users_own(nobody_tmp: Path) -> None:
    """A state dir planted by another user is not used: nothing is recorded or swept, and the run goes on."""
    env = nobody_env(nobody_tmp)
    planted = nobody_tmp / f"sshbench-runs-{NOBODY}"
    planted.mkdir(mode=0o777)  # root's, world-writable: what an attacker would leave for the user
    probe = ("from sshbench.plumbing import runs\n"
             "c = runs.claim_run()\n"
             "print(c.record)\n")
    done = subprocess.run(as_nobody(["/usr/bin/python3", "-c", probe]), capture_output=True, text=True,
                          timeout=30, env=env, cwd=nobody_tmp, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
    assert os.listdir(planted) == []


@pytest.mark.skipif(not ROOT, reason="the privsep holder's namespace needs root")
def test_a_sweep_through_the_privsep_overlay_leaves_a_live_host_run_alone(tmp_path: Path) -> None:
    """The embedded sshd runs in sshbench's own mount namespace, with an overlay over /run (privsep.py), and so
    do its sessions: a fleet host's `sshbench run`, started through it, saw the host's records through the
    overlay, where a lock file is another inode and its flock never meets the live run's. Every live run
    looked dead and was ended by cgroup.kill (test_full_link's run, SIGKILLed beside test_fleet in CI)."""
    from sshbench.targets.servers.privsep import PrivsepDir

    run = start(LONG_RUN, tmp_path)
    holder = PrivsepDir(needed=True)
    try:
        wait_for_samples(run, tmp_path / "r.json", 1)
        holder.acquire()
        if holder.how != "namespace":
            pytest.skip(f"no holder namespace here (/run/sshd is {holder.how}'s)")
        inside = tmp_path / "inside"
        inside.mkdir()
        for _ in range(3):
            done = subprocess.run(holder.wrap([sys.executable, "-m", "sshbench", "algos"]), capture_output=True,
                                  text=True, timeout=120, env={**os.environ, "TMPDIR": str(inside)}, check=False)
            assert done.returncode == 0, done.stderr[-1500:]
            assert run.poll() is None, f"the host run was ended by a sweep inside the overlay (exit {run.poll()})"
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
    finally:
        holder.release()
        if run.poll() is None:
            run.kill()
            run.wait()
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["status"] == "interrupted", data["status"]
