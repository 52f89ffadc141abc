"""`sshbench algos HOST` exits by what the server offers, as ssh-audit does: 0 clean, 12 weak, 13 broken or Terrapin,
14 when a list is empty (no client can connect).

The servers here are loopback listeners that send a real SSH greeting and a
KEXINIT with exactly the lists each case needs (what a real server sends
first; `algos` reads nothing more), reached through a user's ssh config
entry as a real host would be. A real Dropbear is judged in test_hints.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench

pytestmark = pytest.mark.integration

CLEAN = {"kex": "curve25519-sha256,kex-strict-s-v00@openssh.com", "hostkey": "ssh-ed25519",
         "cipher": "aes256-gcm@openssh.com,aes256-ctr", "mac": "hmac-sha2-256-etm@openssh.com"}


def _name_list(text: str) -> bytes:
    return struct.pack(">I", len(text)) + text.encode()


def kexinit_packet(lists: dict[str, str]) -> bytes:
    """An SSH binary packet holding one KEXINIT (RFC 4253, 7.1) with these lists, both directions alike."""
    payload = b"\x14" + os.urandom(16) + b"".join(_name_list(v) for v in (
        lists["kex"], lists["hostkey"], lists["cipher"], lists["cipher"], lists["mac"], lists["mac"],
        "none", "none", "", "")) + b"\x00" + bytes(4)
    padding = 8 - (len(payload) + 5) % 8 + 8
    return struct.pack(">IB", len(payload) + padding + 1, padding) + payload + bytes(padding)


@pytest.fixture
def server_offering(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], Path]]:
    """A loopback server answering every connection with this offer; returns an ssh config naming it `srv`."""
    listeners: list[socket.socket] = []

    def start(lists: dict[str, str]) -> Path:
        listener = socket.create_server(("127.0.0.1", 0))
        listener.settimeout(30)
        listeners.append(listener)

        def serve() -> None:
            for _ in range(4):  # bounded: a command reads one offer
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    conn.sendall(b"SSH-2.0-FakeServer_1.0\r\n" + kexinit_packet(lists))
                    conn.settimeout(2)
                    with contextlib.suppress(OSError):
                        conn.recv(4096)

        threading.Thread(target=serve, daemon=True).start()
        config = tmp_path / f"config-{len(listeners)}"
        config.write_text(f"Host srv\n  HostName 127.0.0.1\n  Port {listener.getsockname()[1]}\n  User nobody\n")
        return config

    yield start
    for listener in listeners:
        listener.close()


@pytest.mark.parametrize(("extra", "expected", "finding"), [
    ({}, ExitCode.OK, None),
    ({"mac": "hmac-sha2-256-etm@openssh.com,hmac-sha1"}, ExitCode.OFFERS_WEAK, "weak, offered: hmac-sha1 (mac)"),
    ({"cipher": "aes256-gcm@openssh.com,3des-cbc"}, ExitCode.OFFERS_BROKEN, "broken, offered: 3des-cbc (cipher)"),
    ({"kex": "curve25519-sha256", "cipher": "chacha20-poly1305@openssh.com"}, ExitCode.OFFERS_BROKEN, "Terrapin"),
    ({"kex": "", "hostkey": "", "cipher": "", "mac": ""}, ExitCode.OFFERS_NOTHING, "no client can connect"),
], ids=["clean", "weak", "broken", "terrapin", "empty"])
def test_the_exit_status_says_what_the_server_offers(server_offering: Callable[[dict[str, str]], Path],
                                                     extra: dict[str, str], expected: ExitCode,
                                                     finding: str | None) -> None:
    config = server_offering({**CLEAN, **extra})
    table = sshbench("algos", "srv", "--ssh-config", str(config), timeout=60)
    assert table.returncode == expected, table.stderr
    assert ("verdict: clean" if finding is None else finding) in table.stdout
    doc = sshbench("algos", "srv", "--ssh-config", str(config), "--json", timeout=60)
    assert doc.returncode == expected
    verdict = json.loads(doc.stdout)
    assert verdict["schema"] == "sshbench/algos" and verdict["schema_version"] == 1
    severity = {ExitCode.OK: "clean", ExitCode.OFFERS_WEAK: "weak", ExitCode.OFFERS_NOTHING: "unusable"}.get(
        expected, "broken")
    assert verdict["verdict"]["severity"] == severity


def test_fail_on_chooses_the_level_that_fails(server_offering: Callable[[dict[str, str]], Path]) -> None:
    weak = server_offering({**CLEAN, "mac": "hmac-sha1"})
    assert sshbench("algos", "srv", "--ssh-config", str(weak), "--fail-on", "broken").returncode == ExitCode.OK
    broken = server_offering({**CLEAN, "cipher": "3des-cbc,aes256-gcm@openssh.com", "mac": "hmac-sha1"})
    assert sshbench("algos", "srv", "--ssh-config", str(broken), "--fail-on", "broken").returncode == \
        ExitCode.OFFERS_BROKEN
    assert sshbench("algos", "srv", "--ssh-config", str(broken), "--fail-on", "never").returncode == ExitCode.OK


def test_the_embedded_server_is_shown_but_never_judged() -> None:
    done = sshbench("algos", timeout=120)
    assert done.returncode == ExitCode.OK, done.stderr
    assert "verdict: not judged" in done.stdout
