"""Which process holds the connecting end of a loopback connection (plumbing/sockowner.py): the socket found in
/proc/net/tcp by its two addresses, and in a process's descriptors by its inode; what the listener's process
announcements stand on (targets/servers/inetd.py)."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from sshbench.plumbing.sockowner import holds_socket, socket_inode

# A real /proc/net/tcp's lines (tests/data; Linux 6.18, x86_64) while 127.0.0.1:46028 was connected to a listener on
# 127.0.0.1:37515: the listener, the accepted end, the connecting end; and a connection from 127.0.0.1:46036 that
# its client closed first, in TIME_WAIT, which has no inode
TABLE = Path(__file__).parents[1] / "data" / "proc-net-tcp-6.18-loopback.txt"


@pytest.mark.skipif(sys.byteorder != "little", reason="the recorded table is a little-endian machine's")
def test_a_recorded_table_names_the_connecting_socket_by_both_its_addresses(tmp_path: Path) -> None:
    table = TABLE
    assert socket_inode(("127.0.0.1", 46028), ("127.0.0.1", 37515), str(table)) == 211651  # the connecting end
    assert socket_inode(("127.0.0.1", 37515), ("127.0.0.1", 46028), str(table)) == 211652  # the accepted one
    assert socket_inode(("127.0.0.1", 46036), ("127.0.0.1", 37515), str(table)) is None, "TIME_WAIT: no inode"
    assert socket_inode(("127.0.0.1", 1), ("127.0.0.1", 37515), str(table)) is None
    assert socket_inode(("127.0.0.1", 1), ("127.0.0.1", 2), str(tmp_path / "absent")) is None


def test_a_live_loopback_connection_is_found_in_the_process_that_holds_it() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener, \
            socket.create_connection(listener.getsockname()) as connecting:
        accepted, _ = listener.accept()
        with accepted:
            inode = socket_inode(connecting.getsockname(), accepted.getsockname())
            assert inode == os.fstat(connecting.fileno()).st_ino
            assert holds_socket(os.getpid(), inode)
            assert not holds_socket(os.getppid(), inode), "another process never holds it"
            assert not holds_socket(2**22 + 1, inode), "a process that is not there holds nothing"
