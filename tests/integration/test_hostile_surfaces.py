"""Hostile input at the newer surfaces: file names, FIFOs, policy files, links, stand-in servers and fleets.

Like test_hostile.py: every case ends with a documented exit code and one
line on stderr (no traceback), nothing left behind; and what was said must
be true (a fake Dropbear is not "needs root"), and no name from a file can
act on the terminal.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.conftest import DATA
from tests.integration.cli_helpers import sshbench
from tests.integration.test_hostile import ONE_CASE, assert_nothing_left, assert_one_clean_line

pytestmark = pytest.mark.integration

RESULTS = json.loads((DATA / "results-small.json").read_text())
ROOT = os.geteuid() == 0
HOSTILE_NAME = "x\x1b]0;pwned\x07\x1b[2J\nsshbench: forged line.json"


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    path = tmp_path / "cwd"
    path.mkdir()
    return path


def _results(path: Path, label: str = "", hostname: str = "vm") -> None:
    data: dict[str, Any] = copy.deepcopy(RESULTS)
    data["environment"]["host"]["label"] = label
    data["environment"]["host"]["hostname"] = hostname
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


# ---------------------------------------------------------------- 1: names that would act on the terminal

@pytest.mark.parametrize("command", ["report", "recommend", "compare"])
def test_a_hostile_file_name_is_shown_escaped_on_one_line(command: str, cwd: Path) -> None:
    bad = cwd / "d" / HOSTILE_NAME
    bad.parent.mkdir()
    bad.write_text("not json")
    args = [str(bad.parent)] if command == "report" else [str(bad)] * (2 if command == "compare" else 1)
    done = sshbench(command, *args, cwd=cwd)
    assert_one_clean_line(done, ExitCode.USAGE, "is not JSON")
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\nsshbench: forged line.json" in done.stderr


# ---------------------------------------------------------------- 5: FIFOs are not results files

@pytest.mark.parametrize("command", ["report", "recommend", "compare", "report-dir"])
def test_a_fifo_is_refused_not_waited_on(command: str, cwd: Path) -> None:
    fifo = cwd / "d" / "b.json"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    args = {"report": ["report", str(fifo)], "recommend": ["recommend", str(fifo)],
            "compare": ["compare", str(fifo), str(fifo)], "report-dir": ["report", str(fifo.parent)]}[command]
    done = sshbench(*args, cwd=cwd, timeout=20)
    assert_one_clean_line(done, ExitCode.USAGE, "is not a regular file")


# ---------------------------------------------------------------- 6: what used to be internal errors

@pytest.mark.parametrize("policy, words", [
    ('base = ["modern"]\n', "base must be modern or compatible"),
    ("[base]\nx = 1\n", "base must be modern or compatible"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ("name = 'x\\u001b[2J'\n", "name must be a short word"),
])
def test_a_hostile_policy_file_is_a_usage_error(policy: str, words: str, cwd: Path) -> None:
    path = cwd / "p.toml"
    path.write_text(policy)
    done = sshbench("recommend", str(DATA / "results-small.json"), "--policy", str(path), cwd=cwd)
    assert_one_clean_line(done, ExitCode.USAGE, words)
    assert "\x1b" not in done.stderr


def test_fleet_labels_that_leave_no_obvious_unique_name_still_get_one(cwd: Path) -> None:
    _results(cwd / "f" / "0" / "x.json", label="a-4")
    for n in (1, 2, 3):
        _results(cwd / "f" / str(n) / "a.json")
    done = sshbench("report", *(str(p) for p in sorted((cwd / "f").glob("*/*.json"))), "--markdown", "-", cwd=cwd)
    assert done.returncode == 0, done.stderr
    for name in ("a-4", "vm", "a", "a-2"):
        assert f"| {name} " in done.stdout or f"{name}" in done.stdout


def _in_private_mount_ns(script: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """sshbench run inside a mount namespace of the test's own, where `script` first changes /dev/net/tun."""
    runner = f"{script}\nexec {sys.executable} -m sshbench \"$@\""
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", runner, "sh", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd, check=False,
                          env={**os.environ, "TMPDIR": str(cwd.parent)})


@pytest.mark.skipif(not ROOT, reason="--link needs root")
@pytest.mark.parametrize("script, words", [
    ('touch "$TMPDIR/not-tun" && mount --bind "$TMPDIR/not-tun" /dev/net/tun', "is not the TUN device"),
    ("mount --bind /dev/null /dev/net/tun", "is not the TUN device"),
    ("mount -t tmpfs -o nodev none /dev/net && mknod /dev/net/tun c 10 200", "cannot be opened"),
])
def test_a_tun_device_that_is_not_one_or_is_denied_is_exit_10(script: str, words: str, cwd: Path) -> None:
    done = _in_private_mount_ns(script, cwd, "--link", "rtt=1ms", *ONE_CASE, "--runs", "1")
    assert_one_clean_line(done, ExitCode.LINK, words)
    assert not [n for n in os.listdir("/run/netns") if n.startswith(f"sshbench-{os.getpid()}")] \
        if os.path.isdir("/run/netns") else True


# ---------------------------------------------------------------- 7 and 9: links

@pytest.mark.parametrize("link, code, words", [
    ("rtt=20.00001ms,20.00002ms", ExitCode.USAGE, "whole microseconds"),
    ("rtt=-5ms", ExitCode.USAGE, "cannot be negative"),
    ("rtt=0.00001ms", ExitCode.USAGE, "give e.g. rtt=0"),
    ("rtt=5ms,loss=0.00001%", ExitCode.USAGE, "at most 4 decimals"),
])
def test_links_that_would_share_a_label_or_echo_what_was_not_typed_are_refused(link: str, code: int, words: str,
                                                                                cwd: Path) -> None:
    done = sshbench("--link", link, *ONE_CASE, "--runs", "1", cwd=cwd)
    assert_one_clean_line(done, code, words)
    assert "e-05" not in done.stderr and "e-0" not in done.stderr
    assert_nothing_left(cwd)


def _fake(directory: Path, name: str, body: str) -> None:
    directory.mkdir(exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


@pytest.mark.parametrize("body", ["exec sleep 600\n", "exit 3\n", "echo 'SSH-2.0-notdropbear'; cat >/dev/null\n"])
def test_a_dropbear_that_hangs_crashes_or_is_not_dropbear_is_named_as_such(body: str, cwd: Path,
                                                                            tmp_path: Path) -> None:
    fakes = tmp_path / "bin"
    _fake(fakes, "dropbear", body)
    env_path = f"{fakes}:{os.environ['PATH']}"
    done = subprocess.run([sys.executable, "-m", "sshbench", "--server", "dropbear", *ONE_CASE, "--runs", "1"],
                          capture_output=True, text=True, timeout=120, cwd=cwd, check=False,
                          env={**os.environ, "PATH": env_path})
    assert_one_clean_line(done, ExitCode.SERVER, "did not answer a test connection")
    assert str(fakes / "dropbear") in done.stderr
    if ROOT:
        assert "needs root" not in done.stderr
    assert_nothing_left(cwd)


# ---------------------------------------------------------------- 10: fleet charts

def test_fleet_charts_of_labels_that_map_to_one_folder_do_not_overwrite_each_other(cwd: Path) -> None:
    _results(cwd / "f" / "one.json", label="fe80::1")
    _results(cwd / "f" / "two.json", label="fe80__1")
    done = sshbench("report", str(cwd / "f"), "--charts", str(cwd / "charts"), cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr
    folders = sorted(p.name for p in (cwd / "charts").iterdir() if p.is_dir())
    assert folders == ["fe80__1", "fe80__1-2"], folders
    counts = [len(list((cwd / "charts" / f).iterdir())) for f in folders]
    assert counts[0] == counts[1] > 0
    written = int(done.stderr.split("wrote ", 1)[1].split()[0])
    assert written == sum(1 for p in (cwd / "charts").rglob("*") if p.is_file())
