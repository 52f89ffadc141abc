"""The stream leader with real processes: its children share one session that is not ours, each leads a group,
their pipes carry data, their wait status and CPU time come back exact, and nothing outlives the leader."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sshbench.plumbing.leader import Leader, LeaderError

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_children_share_one_session_that_is_not_ours_each_leading_its_group() -> None:
    with Leader() as leader:
        children = [leader.start(["sleep", "30"], stdin=leader.devnull(), stdout=leader.devnull(),
                                 stderr=leader.devnull(), env=ENV) for _ in range(3)]
        sessions = {os.getsid(c.pid) for c in children}
        assert len(sessions) == 1 and os.getsid(0) not in sessions
        assert all(os.getpgid(c.pid) == c.pid for c in children)
        for child in children:
            os.killpg(child.pid, signal.SIGTERM)
            status, usage = leader.wait(child.pid)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
            assert usage is not None


def test_pipes_carry_the_payload_and_the_cpu_time_is_the_childs_own() -> None:
    with Leader() as leader:
        child = leader.start(["sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; wc -c"],
                             stdin=None, stdout=None, stderr=None, env=ENV)
        assert child.stdin is not None and child.stdout is not None and child.stderr is not None
        child.stdin.write(b"x" * 100_000)
        child.stdin.close()
        out = child.stdout.read()
        status, usage = leader.wait(child.pid)
        assert out.strip() == b"100000" and os.waitstatus_to_exitcode(status) == 0
        assert usage is not None and usage.ru_utime + usage.ru_stime > 0.0  # the loop's CPU, as wait4 gave it
        child.stdout.close()
        child.stderr.close()


def test_a_missing_program_is_one_clear_error_and_the_leader_goes_on() -> None:
    with Leader() as leader:
        with pytest.raises(LeaderError, match="FileNotFoundError"):
            leader.start(["sshbench-no-such-program"], stdin=leader.devnull(), stdout=leader.devnull(),
                         stderr=leader.devnull(), env=ENV)
        child = leader.start(["true"], stdin=leader.devnull(), stdout=leader.devnull(), stderr=leader.devnull(),
                             env=ENV)
        assert os.waitstatus_to_exitcode(leader.wait(child.pid)[0]) == 0


def test_closing_the_leader_ends_what_still_runs() -> None:
    leader = Leader()
    child = leader.start(["sleep", "30"], stdin=leader.devnull(), stdout=leader.devnull(), stderr=leader.devnull(),
                         env=ENV)
    leader.close()
    assert _gone_within(child.pid, 5)


def test_a_killed_leader_takes_its_children_with_it() -> None:
    """A link that dies has sshbench kill its children's groups, the leader's among them: the streams must end
    too (they would wait for a dead link until the timeout)."""
    with Leader() as leader:
        child = leader.start(["sleep", "30"], stdin=leader.devnull(), stdout=leader.devnull(),
                             stderr=leader.devnull(), env=ENV)
        os.killpg(leader._proc.pid, signal.SIGKILL)
        assert _gone_within(child.pid, 5)
        status, _ = leader.wait(child.pid)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def test_a_killed_sshbench_leaves_nothing_running(tmp_path: Path) -> None:
    """SIGKILL cannot be cleaned up after by the process itself: the leader sees its socket close and ends its
    children."""
    script = textwrap.dedent("""
        import sys, time
        from sshbench.plumbing.leader import Leader
        leader = Leader()
        null = leader.devnull
        child = leader.start(["sleep", "30"], stdin=null(), stdout=null(), stderr=null(), env={"PATH": "/usr/bin:/bin"})
        print(leader._proc.pid, child.pid, flush=True)
        time.sleep(60)
    """)
    owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        assert owner.stdout is not None
        leader_pid, child_pid = (int(word) for word in owner.stdout.readline().split())
        assert _alive(child_pid)
        owner.kill()
        owner.wait(timeout=10)
        assert _gone_within(child_pid, 5) and _gone_within(leader_pid, 5)
    finally:
        owner.kill()
        owner.wait(timeout=10)
