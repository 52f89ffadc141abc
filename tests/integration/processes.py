"""Starting, killing and finding real sshbench processes in tests (shared by the leftovers and ownership tests)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from sshbench.plumbing.runs import ROOT_STATE_DIR

ROOT = os.geteuid() == 0
NOBODY = 65534
ALGOS = ["--macs", "none", "--kex", "none", "--hostkeys", "none"]
SRC = str(Path(__file__).resolve().parents[2] / "src")
_DEFAULT_SIGNALS = ("import os, signal, sys\n"
                    "for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_DFL)\n"
                    "os.execv(sys.executable, [sys.executable, '-m', 'sshbench', *sys.argv[1:]])\n")


def start(args: list[str], tmp: Path) -> subprocess.Popen[str]:
    """A real run in the background with its TMPDIR and results in `tmp` (signals as a shell leaves them)."""
    return subprocess.Popen([sys.executable, "-c", _DEFAULT_SIGNALS, *args, "--output", str(tmp / "r.json")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp)})


@contextlib.contextmanager
def killed_if_left(proc: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """Around a test's wait for a run and its signal: a run still alive when the block ends (a failed wait, a
    run that ignored the signal) is killed and reaped, never left for the next test."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def nobody_env(tmp: Path) -> dict[str, str]:
    """The environment of sshbench as uid 65534 (whose home, /nonexistent, does not exist): the system Python
    with the venv's packages on PYTHONPATH, since the venv's interpreter may live in root's home (0700)."""
    site = next(p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p))
    opt = os.path.join(sys.prefix, "opt", "usr", "sbin")
    return {"PATH": f"{opt}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": "/nonexistent",
            "TMPDIR": str(tmp), "PYTHONPATH": f"{SRC}:{site}"}


def as_nobody(argv: list[str]) -> list[str]:
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]


def start_as_nobody(args: list[str], tmp: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(as_nobody(["/usr/bin/python3", "-m", "sshbench", *args, "--output", str(tmp / "r.json")]),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=nobody_env(tmp), cwd=tmp)


def run_as_nobody(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(as_nobody(["/usr/bin/python3", "-m", "sshbench", *args, "--output", str(tmp / "r.json")]),
                          capture_output=True, text=True, timeout=300, env=nobody_env(tmp), cwd=tmp, check=False)


def kill_all(pids: set[int]) -> None:
    for pid in pids:  # a failing test must not leave its own mess for the next one
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def descendants(pid: int) -> set[int]:
    """Every descendant of `pid`."""
    found: set[int] = set()
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rpartition(")")[2].split()[1])
            except (OSError, ValueError):
                continue
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def started_at(pid: int) -> int | None:
    """When a process started, in clock ticks since boot (field 22 of /proc/PID/stat); None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rpartition(")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def described(pids: set[int]) -> str:
    """What each process is (state, cgroup, command line), for a failing assertion's message."""
    lines = []
    for pid in sorted(pids):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                state = fh.read().rpartition(")")[2].split()[0]
            cgroup = Path(f"/proc/{pid}/cgroup").read_text().strip()
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            lines.append(f"{pid}: gone")
            continue
        lines.append(f"{pid} [{state}] {cgroup}: {argv[:200]}")
    return "; ".join(lines)


def alive(pid: int) -> bool:
    """Running (not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def wait_for_samples(proc: subprocess.Popen[str], results: Path, count: int = 1, within: float = 240) -> None:
    """Until the run has saved `count` samples (servers, clients and private dirs exist by then)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError, ValueError):
            if len(json.loads(results.read_text())["samples"]) >= count:
                return
        time.sleep(0.05)
    raise AssertionError(f"no {count} samples within {within} s (exit {proc.poll()})")


class SweepsHeldOff:
    """Keeps other sshbench runs' sweeps off one run once it is killed, while a test looks at what it left.

    Any sshbench command sweeps dead runs as it starts, and other tests run them beside this one: as root
    they once ended a killed run's processes before the test could look (5 of 6 tries beside the CI). A sweep
    passes over a record whose lock is held, so the test opens the lock while the run lives and takes it once
    the run is dead. Only root's shared state dir needs it; a normal user's follows its own TMPDIR."""

    def __init__(self, pid: int) -> None:
        self._fd: int | None = None
        if ROOT and os.path.isdir(ROOT_STATE_DIR):
            for name in os.listdir(ROOT_STATE_DIR):
                with contextlib.suppress(OSError, ValueError):
                    if json.loads((Path(ROOT_STATE_DIR) / name / "info").read_text()).get("pid") == pid:
                        self._fd = os.open(Path(ROOT_STATE_DIR) / name / "lock", os.O_RDWR | os.O_CLOEXEC)
                        break

    def __enter__(self) -> SweepsHeldOff:
        return self

    def take(self) -> bool:
        """Once the run is dead: False where another run's sweep got to it first (in the moment between)."""
        if self._fd is None:
            return True
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def __exit__(self, *_: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
