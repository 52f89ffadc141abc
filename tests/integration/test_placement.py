"""--placement split on real servers: each connection's server runs on the server's CPUs, and the run says so."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from sshbench.plumbing import placement
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.conftest import cpu_list

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(len(placement.allowed() or ()) < 2, reason="needs two CPUs to split")]


def _remote_cpus(server: EmbeddedOpenSSH, client: ClientInfo) -> frozenset[int]:
    """The CPUs the command of a fresh connection may use: what the server forked it with."""
    argv = [client.path, "-F", server.client_config, HOST_ALIAS, "grep Cpus_allowed_list /proc/self/status"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True, stdin=subprocess.DEVNULL).stdout
    return cpu_list(out)


def test_each_server_is_forked_onto_the_server_cpus_and_freed_after(server: EmbeddedOpenSSH,
                                                                     client: ClientInfo) -> None:
    where = placement.split(placement.allowed())
    assert where is not None
    everything = _remote_cpus(server, client)
    try:
        server.place(where.server)
        assert _remote_cpus(server, client) == where.server
    finally:
        server.place(None)
    assert _remote_cpus(server, client) == everything


def test_the_run_records_its_placement(small_run: tuple[Any, dict[str, Any], Any, Any, Any]) -> None:
    where = placement.split(placement.allowed())
    assert where is not None
    assert small_run[1]["environment"]["host"]["placement"] == where.describe()
