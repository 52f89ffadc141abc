"""sshbench's own network namespaces: made, used and removed without touching the machine's own network.

Why two namespaces (client side and server side) and not one: every address
and route of an emulated link then lives only inside namespaces sshbench
made, so the machine's interfaces and routing table are never touched, and
deleting the two namespaces removes everything. sshbench's processes stay in
the machine's namespace: only sockets are made inside (a thread enters the
namespace with setns(2), makes the socket and ends; a socket keeps the
namespace it was made in), so ssh, sshd and the file tools run as usual.

Names are `sshbench-<pid>-<run token>-client` and `-server`, and each is
noted in the run's record (plumbing/runs.py) as it is made: a namespace
left by an sshbench killed with SIGKILL is removed by the next run's sweep,
which knows the run is dead from its lock, not from its pid (a pid names
another process in another pid namespace).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import os
import re
import socket
import stat
import struct
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from sshbench.plumbing import runs
from sshbench.vocabulary.errors import LinkError

T = TypeVar("T")
CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
TUNGETFEATURES = 0x800454CF
TUN_DEVICE = "/dev/net/tun"
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
NETNS_DIR = "/run/netns"
_OURS = re.compile(r"sshbench-\d{1,10}-([0-9a-f]{16})-(client|server)")
IP_TIMEOUT = 10.0


CAP_NET_ADMIN, CAP_SYS_ADMIN = 12, 21  # linux/capability.h: devices and addresses; namespaces and setns


def _effective_capabilities() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return 0


def check_can_emulate() -> None:
    """Fail early, with what to do, where --link cannot work (before anything is made)."""
    needed = (1 << CAP_NET_ADMIN) | (1 << CAP_SYS_ADMIN)
    if _effective_capabilities() & needed != needed:
        raise LinkError("--link needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN: it makes network namespaces and TUN "
                        "devices of its own): run it with sudo, or leave --link out")
    if not os.path.exists(TUN_DEVICE):
        raise LinkError("--link needs the TUN device /dev/net/tun (kernel module tun): load it with modprobe tun")
    _check_tun()
    if _ip_binary() is None:
        raise LinkError("--link needs the ip command: install the Debian package iproute2")


def _check_tun() -> None:
    """/dev/net/tun opens and answers as the TUN driver (a device cgroup may deny it; a file may stand in)."""
    info = os.stat(TUN_DEVICE)
    if not stat.S_ISCHR(info.st_mode) or (os.major(info.st_rdev), os.minor(info.st_rdev)) != (10, 200):
        raise LinkError(f"--link: {TUN_DEVICE} is not the TUN device (character device 10:200); recreate it with "
                        "mknod /dev/net/tun c 10 200, or load the tun module")
    try:
        fd = os.open(TUN_DEVICE, os.O_RDWR | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        raise LinkError(f"--link: {TUN_DEVICE} cannot be opened ({exc.strerror}): a container or device cgroup "
                        "denies it; allow the TUN device (c 10:200 rw) or run outside the container") from None
    try:
        fcntl.ioctl(fd, TUNGETFEATURES, b"\0" * 4)
    except OSError as exc:
        raise LinkError(f"--link: {TUN_DEVICE} does not answer as the TUN driver ({exc.strerror}); load the tun "
                        "module (modprobe tun)") from None
    finally:
        os.close(fd)


def _ip_binary() -> str | None:
    for path in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"):
        if os.access(path, os.X_OK):
            return path
    return None


def ip(*args: str) -> None:
    """Run `ip ARGS`; arguments are built by sshbench from validated numbers, never from user text."""
    binary = _ip_binary()
    assert binary is not None, "check_can_emulate() first"
    try:
        done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=IP_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise LinkError(f"ip {' '.join(args)}: no answer within {IP_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise LinkError(f"ip {' '.join(args)}: {detail}")


def in_netns(name: str, make: Callable[[], T]) -> T:
    """Run `make` in a thread that has entered network namespace `name`; sockets it makes stay there."""
    result: list[T] = []
    failure: list[BaseException] = []

    def enter_and_make() -> None:
        try:
            fd = os.open(os.path.join(NETNS_DIR, name), os.O_RDONLY | os.O_CLOEXEC)
            try:
                if _libc().setns(fd, CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"setns into {name}: {os.strerror(err)}")
            finally:
                os.close(fd)
            result.append(make())
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=enter_and_make, name=f"sshbench-netns-{name}")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]


# A tuned host's TCP buffers (ESnet's advice for 10 Gbit/s hosts, fasterdata.es.net): autotuning may grow each
# socket's buffers to 128 MiB, more than the bandwidth-delay product of any link sshbench emulates (1 Gbit/s at
# 1 s), so the kernel's window is never what limits a transfer. The minimum and default stay the kernel's.
TUNED_TCP_BUFFER = 128 * 1024 * 1024
_TCP_SYSCTLS = ("tcp_rmem", "tcp_wmem")


def _sysctl(key: str, value: str | None = None) -> list[int]:
    path = f"/proc/sys/net/ipv4/{key}"  # per network namespace: the one of the thread that opens it
    if value is not None:
        with open(path, "w", encoding="ascii") as fh:
            fh.write(value)
    with open(path, encoding="ascii") as fh:
        return [int(v) for v in fh.read().split()]


def tcp_buffers(name: str, tuned: bool) -> dict[str, list[int]]:
    """The namespace's TCP buffer limits (min, default, max of tcp_rmem and tcp_wmem), raised to a tuned
    host's maximum first when `tuned` (only these two, and only in our own namespace)."""
    def apply() -> dict[str, list[int]]:
        out = {}
        for key in _TCP_SYSCTLS:
            low, default, high = _sysctl(key)
            if tuned and high < TUNED_TCP_BUFFER:
                _sysctl(key, f"{low} {default} {TUNED_TCP_BUFFER}")
            out[key] = _sysctl(key)
        return out
    return in_netns(name, apply)


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def open_tun(netns: str, device: str) -> int:
    """A TUN device named `device` inside `netns` (gone when the fd is closed): its fd, non-inheritable."""
    def make() -> int:
        try:
            fd = os.open(TUN_DEVICE, os.O_RDWR | os.O_CLOEXEC)
        except OSError as exc:
            raise LinkError(f"--link: {TUN_DEVICE} cannot be opened ({exc.strerror})") from None
        try:
            fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", device.encode(), IFF_TUN | IFF_NO_PI))
        except OSError as exc:
            os.close(fd)
            raise LinkError(f"--link: the TUN device {device} could not be made ({exc.strerror})") from None
        except BaseException:
            os.close(fd)
            raise
        return fd
    return in_netns(netns, make)


def tcp_socket_in(netns: str) -> socket.socket:
    """An IPv4 TCP socket that belongs to `netns`."""
    return in_netns(netns, lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))


def namespace_names() -> tuple[str, str]:
    """(client, server) namespace names of this run."""
    stem = f"sshbench-{os.getpid()}-{runs.current().token}"
    return f"{stem}-client", f"{stem}-server"


def remove_of_run(token: str, names: Sequence[str]) -> int:
    """Delete the namespaces a dead run recorded (sweep.sweep calls this); how many were there.

    Only names of that run's own form are touched: a record is ours, but is read as untrusted text."""
    removed = 0
    for name in names:
        found = _OURS.fullmatch(name)
        if found and found.group(1) == token and os.path.exists(os.path.join(NETNS_DIR, name)):
            with contextlib.suppress(LinkError):
                ip("netns", "delete", name)
                removed += 1
    return removed


@contextlib.contextmanager
def namespace_pair() -> Iterator[tuple[str, str]]:
    """Two fresh namespaces with loopback up; both deleted afterwards, whatever happens."""
    client, server = namespace_names()
    try:
        for name in (client, server):
            runs.current().namespace(name)  # noted before it exists: a kill in between leaves nothing unnamed
            ip("netns", "add", name)
            ip("-n", name, "link", "set", "lo", "up")
        yield client, server
    finally:
        # by what exists, not by what `ip` said it made: an interrupt that lands after `ip netns add` created
        # the namespace but before it returned would otherwise leave it behind (the names are this run's own)
        for name in (client, server):
            if os.path.lexists(os.path.join(NETNS_DIR, name)):
                with contextlib.suppress(LinkError):
                    ip("netns", "delete", name)
