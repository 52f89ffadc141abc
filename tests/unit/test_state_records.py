"""Records in the state dir are untrusted input: a corrupt one is set aside with one warning, never the run's end.

A crash or a full disk can leave a record half written; a hostile probe planted
them on purpose (an `info` of 100,000 `[`, a cgroup path or a `dirs` line with a
NUL byte). Each made every `run`, `algos` and `recommend` exit 70 until someone
deleted it by hand. Real files in a real (temporary) state dir, swept for real.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sshbench.plumbing import cgroups, runs, sweep

TOKENS = ("0123456789abcdef", "fedcba9876543210", "00112233445566aa", "aabbccddeeff0011")


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = tmp_path / "state"
    base.mkdir(mode=0o700)
    monkeypatch.setattr(sweep, "state_dir", lambda: str(base))
    return base


def _record(base: Path, token: str, info: bytes, **lists: bytes) -> Path:
    record = base / f"run-{token}"
    record.mkdir(mode=0o700)
    (record / "lock").write_bytes(b"")
    (record / "info").write_bytes(info)
    for name, text in lists.items():
        (record / name).write_bytes(text)
    return record


def test_corrupt_records_are_set_aside_and_a_good_one_beside_them_is_still_swept(state: Path, tmp_path: Path) -> None:
    mine = tmp_path / "sshbench-dead"
    mine.mkdir(mode=0o700)
    (mine / runs.MARK_FILE).write_text(TOKENS[3])
    info = {"token": TOKENS[3], "pid": 1, "pid_ns": cgroups.namespace_id("pid"), "cgroup_ns": "", "cgroup": None}
    _record(state, TOKENS[0], b"[" * 100_000)
    _record(state, TOKENS[1], json.dumps({**info, "token": TOKENS[1], "cgroup": "/a\0b",
                                          "cgroup_ns": cgroups.namespace_id("cgroup")}).encode())
    _record(state, TOKENS[2], json.dumps({**info, "token": TOKENS[2]}).encode(), dirs=b"/tmp/x\0y\n/not\n")
    _record(state, TOKENS[3], json.dumps(info).encode(), dirs=f"{mine}\n".encode())
    done = sweep.sweep()
    assert len(done.unreadable) == 1, done.unreadable  # the NUL dirs line is skipped, the record swept
    assert "RecursionError" in done.unreadable[0] and TOKENS[0] in done.unreadable[0]
    assert (state / f"{sweep.QUARANTINE}run-{TOKENS[0]}").is_dir(), "kept for its user, under another name"
    assert not mine.exists(), "the good record's private dir was removed"
    assert not any(p.name.startswith("run-") for p in state.iterdir()), list(state.iterdir())
    assert sweep.sweep().unreadable == (), "a record set aside is never read again"


def test_a_nul_byte_in_a_cgroup_path_is_set_aside_where_cgroups_are_read(state: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "mount_point", lambda: "/sys/fs/cgroup")
    cgroup_ns = cgroups.namespace_id("cgroup")
    _record(state, TOKENS[1], json.dumps({"token": TOKENS[1], "pid": 1, "pid_ns": "", "cgroup_ns": cgroup_ns,
                                          "cgroup": f"/x\0/sshbench-run-{TOKENS[1]}"}).encode())
    done = sweep.sweep()
    assert len(done.unreadable) == 1 and "null byte" in done.unreadable[0], done.unreadable


def test_info_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    record = tmp_path / "run-x"
    record.mkdir(mode=0o700)
    claim = runs.Claim(TOKENS[0], record=str(record))
    runs._write_info(claim)
    assert json.loads((record / "info").read_text())["token"] == TOKENS[0]
    assert sorted(os.listdir(record)) == ["info"], "no temp file left beside it"


def test_a_lock_that_is_not_the_recorded_file_proves_nothing(state: Path, tmp_path: Path) -> None:
    """Through an overlay a record's lock is another inode: taking it says nothing of the run, so nothing of the
    record is touched; the same record naming its own lock file is swept."""
    mine = tmp_path / "sshbench-alive"
    mine.mkdir(mode=0o700)
    (mine / runs.MARK_FILE).write_text(TOKENS[3])
    info = {"token": TOKENS[3], "pid": 1, "pid_ns": cgroups.namespace_id("pid"), "cgroup_ns": "", "cgroup": None,
            "lock": [0, 0]}
    record = _record(state, TOKENS[3], json.dumps(info).encode(), dirs=f"{mine}\n".encode())
    assert sweep.sweep().runs == 0
    assert mine.exists() and record.exists(), "a lock on another inode swept the record"
    lock = os.stat(record / "lock")
    (record / "info").write_text(json.dumps({**info, "lock": [lock.st_dev, lock.st_ino]}))
    assert sweep.sweep().runs == 1 and not mine.exists()
