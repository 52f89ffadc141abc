"""What a dead run's record proves: sessions and groups only while their recorded leader lives, with the
descendants of their members; a private dir only while it is still the one the run made."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from sshbench.plumbing import runs
from sshbench.plumbing.sweep import _Proc, _session_members

TOKEN = "0123456789abcdef"


def _table() -> dict[int, _Proc]:
    return {
        100: _Proc(ppid=1, pgid=100, sid=100, start="500"),   # a recorded session leader (ssh)
        101: _Proc(ppid=100, pgid=100, sid=100, start="501"),  # its ProxyCommand
        102: _Proc(ppid=101, pgid=102, sid=102, start="502"),  # which started a session of its own
        200: _Proc(ppid=1, pgid=200, sid=5, start="600"),      # a pipeline's group leader, in the user's session
        201: _Proc(ppid=1, pgid=200, sid=5, start="601"),      # its second stage
        5: _Proc(ppid=1, pgid=5, sid=5, start="10"),           # the user's shell: same session, never ours
        300: _Proc(ppid=1, pgid=300, sid=300, start="700"),    # someone else's daemon
    }


def test_a_live_recorded_session_and_group_are_ended_with_their_descendants_and_nothing_else() -> None:
    found = _session_members("S 100 500\nG 200 600\n", _table())
    assert found == {100, 101, 102, 200, 201}


def test_a_reused_pid_or_a_gone_leader_proves_nothing() -> None:
    assert _session_members("S 100 499\n", _table()) == set(), "same pid, other start time: not the leader"
    assert _session_members("S 400 800\n", _table()) == set(), "the leader is gone: its number proves nothing"
    assert _session_members("S 200 600\n", _table()) == set(), "recorded as a session, but it leads none"
    assert _session_members("G 101 501\n", _table()) == set(), "recorded as a group, but it leads none"


@given(st.text(max_size=200))
def test_any_record_text_names_only_recorded_leaders(text: str) -> None:
    found = _session_members(text, _table())
    assert found <= {100, 101, 102, 200, 201}
    assert 5 not in found and 300 not in found


def _dir(tmp: Path, name: str, token: str = TOKEN, mode: int = 0o700) -> Path:
    path = tmp / name
    path.mkdir(mode=mode)
    path.chmod(mode)
    (path / runs.MARK_FILE).write_text(token)
    return path


def test_only_a_private_dir_that_still_holds_the_runs_mark_is_removed(tmp_path: Path) -> None:
    record = tmp_path / "record"
    record.mkdir()
    ours = _dir(tmp_path, "sshbench-ours")
    other_token = _dir(tmp_path, "sshbench-other", token="fedcba9876543210")
    open_to_all = _dir(tmp_path, "sshbench-open", mode=0o755)
    fifo = _dir(tmp_path, "sshbench-fifo")
    (fifo / runs.MARK_FILE).unlink()
    os.mkfifo(fifo / runs.MARK_FILE)
    link = tmp_path / "sshbench-link"
    link.symlink_to(ours)
    listed = [ours, other_token, open_to_all, fifo, link, Path("relative/path"), tmp_path / "gone"]
    (record / "dirs").write_text("".join(f"{p}\n" for p in listed))
    assert runs.remove_marked(runs.read_private(str(record / "dirs")).splitlines(), TOKEN) == 1
    assert not ours.exists()
    assert other_token.exists() and open_to_all.exists() and fifo.exists() and link.is_symlink()


def test_a_state_dir_must_be_a_private_directory_of_this_user(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.mkdir(mode=0o700)
    good.chmod(0o700)
    loose = tmp_path / "loose"
    loose.mkdir()
    loose.chmod(0o777)
    link = tmp_path / "link"
    link.symlink_to(good)
    assert runs.private(str(good))
    assert not runs.private(str(loose)) and not runs.private(str(link))
