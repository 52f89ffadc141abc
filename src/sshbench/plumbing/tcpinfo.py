"""A TCP connection's own facts (TCP_INFO, its congestion control), read from the socket another process holds.

Why: what limits a transfer over a lossy link is TCP, not SSH or the
cipher: lost segments are resent, the congestion window shrinks, and every
loss holds up SSH's in-order stream for a round trip while the channel
window waits. The kernel counts all of it per socket (linux/tcp.h,
struct tcp_info: the same counters `ss -ti` prints). The socket belongs
to ssh (the client) or to the embedded server's process, so sshbench takes
a copy of its descriptor with pidfd_getfd(2) (Linux 5.6; needs the right
to ptrace that process: our own children and their descendants qualify),
reads the counters and closes the copy at once (a copy held on would keep
the connection open after its process exits).

Nothing here is a guess: a process or kernel that does not allow the copy
gives None, and the report says the facts were not read.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import struct
from dataclasses import dataclass

SYS_PIDFD_GETFD = 438  # the same number on every architecture (asm-generic unistd.h)
_TCP_INFO_LEN = 232  # up to tcpi_snd_wnd (kernel 5.4+); shorter answers from older kernels are padded
_CONGESTION_LEN = 16  # TCP_CA_NAME_MAX
MAX_FDS_SCANNED = 256  # a process holds a handful of sockets; never walk thousands of descriptors


@dataclass(frozen=True)
class TcpInfo:
    """The counters of one TCP socket at one moment (linux/tcp.h struct tcp_info; times in seconds)."""

    congestion: str  # the congestion control in use on this socket: "cubic", "bbr", "reno" ...
    mss: int  # bytes per segment it sends
    cwnd: int  # congestion window, segments
    rtt: float  # smoothed round-trip time, seconds
    min_rtt: float
    total_retrans: int  # segments resent over the connection's life
    data_segs_out: int  # data segments sent (resent ones included)
    bytes_sent: int  # payload bytes sent, resent ones included
    bytes_retrans: int
    bytes_acked: int
    busy: float  # seconds the socket had data to send (RFC 4898 chrono)
    rwnd_limited: float  # ... of which the receiver's window held it back
    sndbuf_limited: float  # ... of which its own send buffer held it back
    delivery_rate: float  # bytes/s of the most recent delivery sample


def parse_tcp_info(raw: bytes, congestion: str) -> TcpInfo | None:
    """A TcpInfo from the bytes getsockopt(TCP_INFO) returned (None when too short: a kernel before 4.10)."""
    if len(raw) < 200:
        return None
    raw = raw.ljust(_TCP_INFO_LEN, b"\0")

    def u32(offset: int) -> int:
        return int(struct.unpack_from("=I", raw, offset)[0])

    def u64(offset: int) -> int:
        return int(struct.unpack_from("=Q", raw, offset)[0])

    return TcpInfo(congestion=congestion, mss=u32(16), cwnd=u32(80), rtt=u32(68) / 1e6, min_rtt=u32(148) / 1e6,
                   total_retrans=u32(100), data_segs_out=u32(156), bytes_sent=u64(200), bytes_retrans=u64(208),
                   bytes_acked=u64(120), busy=u64(168) / 1e6, rwnd_limited=u64(176) / 1e6,
                   sndbuf_limited=u64(184) / 1e6, delivery_rate=float(u64(160)))


def read_socket(sock: socket.socket) -> TcpInfo | None:
    """The counters of a TCP socket this process holds (None where the kernel refuses)."""
    try:
        raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
        name = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, _CONGESTION_LEN)
    except OSError:
        return None
    return parse_tcp_info(raw, name.split(b"\0", 1)[0].decode("ascii", "replace"))


def _pidfd_getfd(pidfd: int, fd: int) -> int | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        copy = int(libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0))
    except (OSError, AttributeError):
        return None
    return copy if copy >= 0 else None


def _socket_fds(pid: int) -> list[int]:
    try:
        names = os.listdir(f"/proc/{pid}/fd")[:MAX_FDS_SCANNED]
    except OSError:
        return []
    out = []
    for name in names:
        with contextlib.suppress(OSError, ValueError):
            if os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                out.append(int(name))
    return out


def _matches(sock: socket.socket, port: int | None) -> bool:
    """A TCP socket (of IPv4 or IPv6), with `port` at either end where one is given."""
    try:
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
            return False
        if port is None:
            return True
        return port in (sock.getsockname()[1], sock.getpeername()[1])
    except OSError:
        return False


def tcp_info_of(pid: int, port: int | None = None) -> TcpInfo | None:
    """The counters of the TCP connection process `pid` holds (the one with `port` at either end, where given);
    None if it holds none, has gone, or may not be looked into."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return None
    try:
        for fd in _socket_fds(pid):
            copy = _pidfd_getfd(pidfd, fd)
            if copy is None:
                continue
            sock = socket.socket(fileno=copy)
            try:
                if _matches(sock, port):
                    return read_socket(sock)
            finally:
                sock.close()
        return None
    finally:
        os.close(pidfd)


def _sysctl(name: str) -> str | None:
    try:
        with open(f"/proc/sys/net/ipv4/{name}", encoding="ascii") as fh:
            return fh.read().strip() or None
    except OSError:
        return None


def default_congestion() -> str | None:
    """The congestion control new connections get in this thread's network namespace
    (net.ipv4.tcp_congestion_control): None where /proc does not say."""
    return _sysctl("tcp_congestion_control")


def available_congestion() -> str | None:
    """The congestion controls this kernel has loaded, space-separated (None where /proc does not say)."""
    return _sysctl("tcp_available_congestion_control")
