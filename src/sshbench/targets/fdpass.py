"""ProxyCommand helper: connect with TCP_NODELAY and hand the socket to ssh (ProxyUseFdpass).

Why: OpenSSH's client leaves Nagle's algorithm on until the session starts.
During the handshake it sends two small packets back to back; the second
waits for the first's ACK, which the server delays by 40 ms. On loopback
this stall hit about 70% of handshakes at random (key exchange 7 ms or
47 ms), burying the few milliseconds that separate key exchange algorithms.
With the socket created here, ssh talks over the same TCP connection to the
same server, minus the stall; the helper exits as soon as ssh has the fd.

Run as a file by ssh (`python -S fdpass.py HOST PORT`): no sshbench imports,
so it starts in about 24 ms (a bare `python -S` is 13: bench/fdpass_start.py), before the banner: counted in
a short command's figure (its "start" phase), never in the handshake time.

It names its local port on stderr (which ssh passes through), because file
tools (scp, sftp, rsync) cannot print $SSH_CLIENT the way the pipe's remote
command does, and the port is what matches a connection to its sshd.

Usage: `fdpass.py HOST PORT [EXPECT_DIR [NETNS [CC]]]`. With EXPECT_DIR (the
embedded server's), the socket is bound first and its port announced there
before connecting: the server serves only announced connections
(servers/inetd.py). With NETNS (the client side of an emulated link,
targets/link), the socket is made inside that network namespace, so the
connection crosses the link; with CC it uses that TCP congestion control
(the link's cc=, --link).
"""

# The C module, not `socket`: that one imports enum, selectors and friends, ~6 ms of the helper's ~30 on a 2-vCPU
# VM, paid inside every short command's figure (bench/fdpass_start.py measures it beside a bare start)
import _socket as socket
import os
import sys

CONNECT_TIMEOUT = 15.0
CLONE_NEWNET = 0x40000000


def enter_netns(name: str) -> None:
    """Move this (single-threaded) process into /run/netns/NAME: sockets made afterwards live there (os.setns from
    Python 3.12; before it, libc's through ctypes, imported only here: a loopback connection never pays for it)."""
    fd = os.open(os.path.join("/run/netns", name), os.O_RDONLY)
    try:
        setns = getattr(os, "setns", None)
        if setns is not None:
            setns(fd, CLONE_NEWNET)
            return
        import ctypes

        if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {name}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def main() -> int:
    host, port = sys.argv[1], int(sys.argv[2])
    expect_dir = sys.argv[3] if len(sys.argv) > 3 else None
    try:
        if len(sys.argv) > 4:
            enter_netns(sys.argv[4])
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        if len(sys.argv) > 5:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[5].encode("ascii"))
        sock.bind(("", 0))
        if expect_dir is not None:  # announce our port before connecting (servers/inetd.py: announce)
            os.close(os.open(os.path.join(expect_dir, str(sock.getsockname()[1])), os.O_CREAT | os.O_WRONLY, 0o600))
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(address)
    except OSError as exc:
        print(f"sshbench fdpass: connect to {host} port {port}: {exc.strerror or exc}", file=sys.stderr)
        return 255
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(None)
    print(f"debug1: sshbench fdpass: local port {sock.getsockname()[1]}", file=sys.stderr, flush=True)
    channel = socket.socket(fileno=1)  # ssh gives us one end of a socketpair as stdout
    passed = sock.fileno().to_bytes(4, sys.byteorder)  # SCM_RIGHTS carries C ints
    channel.sendmsg([b"\0"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, passed)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
