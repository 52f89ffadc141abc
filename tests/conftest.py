"""Shared fixtures: recorded tool outputs for unit tests, a real embedded sshd for integration tests."""

from __future__ import annotations

import glob
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sshbench.discovery import ClientInfo, probe_client
from sshbench.model import Report, report_from_dict
from sshbench.servers.openssh import EmbeddedOpenSSH

DATA = Path(__file__).parent / "data"


def recorded(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def sshd_pids() -> set[int]:
    """Live processes named sshd (sshd rewrites its command line, so the name is what is left)."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8") as fh:
                if fh.read().strip() == "sshd":
                    found.add(int(pid))
        except OSError:
            continue
    return found


def leftover_sshd(before: set[int], wait: float = 3.0) -> set[int]:
    """sshd processes that appeared since `before` and are still alive after a short grace period."""
    deadline = time.monotonic() + wait
    while (left := sshd_pids() - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def sshbench_temp_dirs() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "sshbench-*")))


@pytest.fixture(scope="session")
def client() -> ClientInfo:
    return probe_client()


@pytest.fixture(scope="module")
def server(client: ClientInfo) -> Iterator[EmbeddedOpenSSH]:
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
