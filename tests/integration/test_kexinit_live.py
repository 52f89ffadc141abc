"""The KEXINIT reader against the real embedded server, the real client, and servers that misbehave."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from sshbench.plumbing.kexinit import KexinitError, kexinit_over, read_client_kexinit, read_server_kexinit, terrapin
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.openssh import EmbeddedOpenSSH

pytestmark = pytest.mark.integration


def test_reads_the_embedded_servers_offer(server: EmbeddedOpenSSH) -> None:
    offer = kexinit_over(server.connect(), "embedded", timeout=10)
    assert offer.banner.startswith("SSH-2.0-OpenSSH_")
    assert server.info is not None
    assert set(offer.ciphers) == set(server.info.enabled.cipher)
    assert set(offer.kex_algorithms) == set(server.info.enabled.kex)
    assert set(offer.hostkey) == set(server.info.enabled.hostkey)
    assert terrapin(offer, "server").strict_kex  # Debian 12's OpenSSH has the fix backported


def test_reads_the_local_clients_first_kexinit(client: ClientInfo) -> None:
    offer = read_client_kexinit(client.path, timeout=10)
    assert offer.banner.startswith("SSH-2.0-OpenSSH_")
    assert offer.kex_algorithms == client.defaults.kex
    assert "kex-strict-c-v00@openssh.com" in offer.kex


Behaviour = Callable[[socket.socket], None]


@pytest.fixture
def fake_server() -> Iterator[Callable[[Behaviour], int]]:
    """Start a one-connection loopback server that behaves as told; returns its port."""
    sockets: list[socket.socket] = []
    threads: list[threading.Thread] = []

    def start(behave: Behaviour) -> int:
        listener = socket.create_server(("127.0.0.1", 0))
        sockets.append(listener)

        def serve() -> None:
            conn, _ = listener.accept()
            sockets.append(conn)
            with contextlib.suppress(OSError):
                behave(conn)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        threads.append(thread)
        return int(listener.getsockname()[1])

    yield start
    for sock in sockets:
        sock.close()
    for thread in threads:
        thread.join(timeout=5)


def silent(conn: socket.socket) -> None:
    time.sleep(3)


def banner_then_close(conn: socket.socket) -> None:
    conn.sendall(b"SSH-2.0-Fake\r\n")
    conn.shutdown(socket.SHUT_RDWR)


def chatter(conn: socket.socket) -> None:
    conn.sendall(b"hello, this is not ssh\r\n" * 60)


def ssh1(conn: socket.socket) -> None:
    conn.sendall(b"SSH-1.5-Ancient\r\n")


def huge_packet(conn: socket.socket) -> None:
    conn.sendall(b"SSH-2.0-Fake\r\n" + struct.pack(">I", 10_000_000))


def truncated_packet(conn: socket.socket) -> None:
    conn.sendall(b"SSH-2.0-Fake\r\n" + struct.pack(">I", 500) + b"\x04\x14" + bytes(20))
    conn.shutdown(socket.SHUT_RDWR)


def endless_line(conn: socket.socket) -> None:
    conn.sendall(b"x" * 10_000)
    time.sleep(2)


@pytest.mark.parametrize(("behave", "message"), [
    (silent, r"no complete SSH greeting within \d+s \(the --timeout\)"),
    (banner_then_close, "closed the connection before its KEXINIT"),
    (chatter, "is not an SSH server"),
    (ssh1, "not SSH 2"),
    (huge_packet, "not a KEXINIT"),
    (truncated_packet, "closed the connection before its KEXINIT"),
    (endless_line, "line longer than 255 bytes"),
])
def test_misbehaving_servers_give_clear_errors_quickly(fake_server: Callable[[Behaviour], int], behave: Behaviour,
                                                       message: str) -> None:
    port = fake_server(behave)
    start = time.monotonic()
    with pytest.raises(KexinitError, match=message):
        read_server_kexinit("127.0.0.1", port, timeout=1.0)
    assert time.monotonic() - start < 5


def test_nobody_listening() -> None:
    with pytest.raises(KexinitError, match="cannot connect"):
        read_server_kexinit("127.0.0.1", 1, timeout=2)
