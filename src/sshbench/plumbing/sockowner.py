"""Whether a given process holds the connecting end of a TCP connection on this machine, from /proc.

Why: the embedded servers' listener (targets/servers/inetd.py) serves only
connections sshbench announced. An opener that binds its own socket names
its source port before connecting; a client program that cannot be told a
source port (PuTTY's plink has no option for one) is announced by its
process instead, and the listener, once it has accepted a connection from
an unannounced port, asks here whether an announced process holds that
connection's other end: /proc/net/tcp names the socket (its inode) by its
two addresses, and /proc/PID/fd names the sockets a process holds. Both
ends are on this machine, in this network namespace (loopback); a socket
in another namespace, or a process that may not be looked into, is never
found, so its connection stays a stranger's.
"""

from __future__ import annotations

import os
import socket
import struct

from sshbench.plumbing.tcpinfo import MAX_FDS_SCANNED

TCP_TABLE = "/proc/net/tcp"  # IPv4 sockets of this network namespace: the embedded servers listen on 127.0.0.1


def _address(host: str, port: int) -> str:
    """An IPv4 address as /proc/net/tcp spells it: the 32-bit address in this machine's byte order, in hex, then
    the port in hex ("0100007F:1F90" for 127.0.0.1:8080 on a little-endian machine)."""
    return f"{struct.unpack('=I', socket.inet_aton(host))[0]:08X}:{port:04X}"


def socket_inode(local: tuple[str, int], remote: tuple[str, int], table: str = TCP_TABLE) -> int | None:
    """The inode of the TCP socket whose own address is `local` and whose peer is `remote` (None: no such socket,
    or none with an inode, as a connection in TIME_WAIT has)."""
    want = (_address(*local), _address(*remote))
    try:
        with open(table, encoding="ascii") as fh:
            next(fh, None)  # the header
            for line in fh:
                fields = line.split()
                if len(fields) >= 10 and (fields[1], fields[2]) == want and fields[9].isdigit() and fields[9] != "0":
                    return int(fields[9])
    except OSError:
        return None
    return None


def holds_socket(pid: int, inode: int) -> bool:
    """Whether process `pid` has socket `inode` open (among its first MAX_FDS_SCANNED descriptors)."""
    wanted = f"socket:[{inode}]"
    try:
        names = os.listdir(f"/proc/{pid}/fd")[:MAX_FDS_SCANNED]
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") == wanted:
                return True
        except OSError:
            continue
    return False
