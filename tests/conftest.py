"""Shared fixtures: recorded tool outputs for unit tests, a real embedded sshd for integration tests.

Every test runs with a TMPDIR of its own (and the module- and session-wide
servers with theirs), so a test checks only what it created: other tests, or
another sshbench running on the same machine, cannot make it fail, and it
cannot make them fail.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from sshbench.clientparts import DriverRequest
from sshbench.results.codec import report_from_dict
from sshbench.results.model import Report
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.discovery import ClientInfo, discover_client
from sshbench.targets.servers.openssh import EmbeddedOpenSSH

DATA = Path(__file__).parent / "data"

# The tests send SIGINT, SIGTERM and SIGHUP to the sshbench they start and expect it to handle them. A child
# inherits a signal its parent ignores, and sshbench keeps a signal the shell ignores ignored (as a background job
# or under nohup should); so a suite started as `nohup make test &` saw its runs complete instead of being
# interrupted. The suite's own processes take the usual dispositions back, whoever started it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def recorded(name: str) -> str:
    """A recorded file's text; a .gz one (the larger real runs) uncompressed."""
    if name.endswith(".gz"):
        return gzip.decompress((DATA / name).read_bytes()).decode("utf-8")
    return (DATA / name).read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def signals_as_they_were() -> Iterator[None]:
    """Each test leaves SIGINT, SIGTERM and SIGHUP as it found them. A test that interrupts sshbench's handlers in
    this process (tests/unit/test_signals_held.py) leaves them ignored, as a command on its way out does
    (plumbing/signals.py); every child started after it, on the same worker, inherited them ignored, and the
    interrupt it was sent was lost ("(0, '')": test_rough_edges.py's private-dir test, only when the two files
    shared a worker)."""
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for sig, handler in before.items():
        if handler is not None and signal.getsignal(sig) is not handler:
            signal.signal(sig, handler)


@pytest.fixture(autouse=True)
def private_tmpdir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own TMPDIR, for it and for every sshbench it starts."""
    path = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # tempfile reads TMPDIR again
    # ssh started by a test itself runs the embedded config's ProxyCommand through $SHELL: no rc files
    monkeypatch.setenv("SHELL", "/bin/sh")
    return path


@pytest.fixture(scope="module")
def module_tmpdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A TMPDIR for fixtures shared by a module's tests (set while they are made and torn down)."""
    path = tmp_path_factory.mktemp("modtmp")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(path))
        patch.setattr(tempfile, "tempdir", None)
        yield path


def temp_entries(directory: Path | str | None = None) -> set[str]:
    """What is in a (private) temp dir now: anything new after a run is something it left behind."""
    return set(os.listdir(directory or tempfile.gettempdir()))


def _mentions(pid: str, marker: str) -> bool:
    """A process whose command line, environment, working directory or open files name `marker`."""
    base = f"/proc/{pid}"
    try:
        with open(f"{base}/cmdline", "rb") as fh:
            if marker.encode() in fh.read():
                return True
        with open(f"{base}/environ", "rb") as fh:
            if marker.encode() in fh.read():
                return True
        links = [os.readlink(f"{base}/cwd")] + [os.readlink(f"{base}/fd/{fd}") for fd in os.listdir(f"{base}/fd")]
    except OSError:  # gone, or not ours to read
        return False
    return any(marker in link for link in links)


def our_processes(marker: str) -> set[int]:
    """Live processes (not this one) tied to `marker`, a private TMPDIR: sshbench, ssh, sshd, tools."""
    me = str(os.getpid())
    return {int(pid) for pid in os.listdir("/proc") if pid.isdigit() and pid != me and _mentions(pid, marker)}


def only_rsa_pinned(server: EmbeddedOpenSSH, work: Path, cipher: str | None = None,
                    mac: str | None = None) -> tuple[DriverRequest, Path]:
    """A driver's request to `server` whose known_hosts pins only the server's RSA key (the server offers ed25519
    first), from a private 0700 dir of its own under `work` (returned: a client's prepared files go there too)."""
    private = work / "run"
    private.mkdir(mode=0o700)
    endpoint = server.endpoint()
    identity = private / "client_ed25519"
    shutil.copy(endpoint.identity, identity)
    known = private / "known_hosts"
    known.write_text("".join(line for line in Path(endpoint.known_hosts).read_text().splitlines(True)
                             if " ssh-rsa " in line))
    return DriverRequest(endpoint.host, endpoint.port, endpoint.user, str(identity), str(known), HOST_ALIAS,
                         endpoint.expect_dir, "echo reached", "upload", cipher, mac), private


def _listings(dirs: Sequence[str]) -> list[list[tuple[str, int, float]] | None]:
    return [sorted((e.name, e.stat().st_size, e.stat().st_mtime) for e in os.scandir(d)) if os.path.isdir(d) else None
            for d in dirs]


@contextlib.contextmanager
def untouched(dirs: Sequence[str], marker: str, comm: str) -> Iterator[None]:
    """The user's own directories (~/.ssh, ~/.putty...) as they were after the block (their entries' names, sizes and
    times), and no process `comm` of `marker`'s left: what a client program's driver must keep."""
    before = _listings(dirs)
    yield None
    assert _listings(dirs) == before, f"{comm} read or wrote in {', '.join(dirs)}"
    assert not named(marker, comm), f"a {comm} was left"


def named(marker: str, comm: str) -> list[int]:
    """Live processes tied to `marker` whose command name (/proc/PID/comm) is `comm`: a client program left behind."""
    found = []
    for pid in our_processes(marker):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == comm:
                found.append(pid)
        except OSError:
            continue
    return found


def leftovers(marker: str, wait: float = 3.0) -> set[int]:
    """Processes tied to `marker` that are still alive after a short grace period."""
    deadline = time.monotonic() + wait
    while (left := our_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def cpu_list(status_line: str) -> frozenset[int]:
    """The CPUs of a "Cpus_allowed_list:\t0-1,3" line of /proc/PID/status."""
    cpus: set[int] = set()
    for part in status_line.split(":", 1)[1].strip().split(","):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return frozenset(cpus)


@pytest.fixture(scope="session")
def client() -> ClientInfo:
    return discover_client()


@pytest.fixture(scope="module")
def server(client: ClientInfo, module_tmpdir: Path) -> Iterator[EmbeddedOpenSSH]:
    with EmbeddedOpenSSH(client) as srv:
        yield srv


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/data/golden/* from the current exporters instead of comparing")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def load_report(name: str = "results-small.json") -> Report:
    return report_from_dict(json.loads(recorded(name)))
