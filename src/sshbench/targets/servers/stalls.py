"""Classic slow logins, reproduced in the embedded OpenSSH server (--slow-login): so the phase split can be seen
to put a stall where it belongs, and to name it (analysis/connections/stalls.py).

`gssapi`: the client tries GSSAPI first (`GSSAPIAuthentication yes` on both
ends, gssapi-with-mic before publickey in OpenSSH's order) and its Kerberos
library's lookups (the realm, the KDC, the host's canonical name) go to the
same silent resolver: a client-side wait between the methods, 4 s here.

`dns`: sshd with `UseDNS yes` looks up the client's address (and confirms the
name it gets) before it logs the login; where the resolver never answers,
each lookup waits out the resolver's timeout: the "ssh login takes 10
seconds" of countless questions. Here each sshd runs in a mount namespace of
its own in which /etc/resolv.conf names a resolver that sshbench holds and
never answers (a UDP socket on a loopback address of its own, port 53: no
ICMP refusal, so the lookup waits), with `timeout:2 attempts:1` (glibc's
defaults are 5 s and 2), and /etc/hosts is empty, so even 127.0.0.1 goes to
that resolver. Nothing outside that sshd sees either file: the system's
resolver, its files and every other process are untouched. Needs root (a
mount namespace) and util-linux's unshare.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket

from sshbench.vocabulary.errors import ServerError

TIMEOUT_SECONDS = 2  # vocabulary/commands.py SLOW_LOGINS says so
_ADDRESSES = tuple(f"127.83.83.{n}" for n in range(83, 93))  # loopback addresses nothing else is likely to bind


class SilentResolver:
    """A resolver address that takes queries and never answers, and the files that point an sshd at it."""

    def __init__(self, directory: str) -> None:
        if os.geteuid() != 0:
            raise ServerError("--slow-login dns needs root: each sshd gets a mount namespace of its own, whose "
                              "/etc/resolv.conf names sshbench's silent resolver; run it with sudo")
        unshare = shutil.which("unshare")
        if unshare is None:
            raise ServerError("--slow-login dns needs unshare (Debian package util-linux)")
        self.unshare = unshare
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for address in _ADDRESSES:
            with contextlib.suppress(OSError):
                self.sock.bind((address, 53))
                break
        else:
            self.sock.close()
            raise ServerError("--slow-login dns: no loopback address 127.83.83.83-92 has port 53 free")
        self.address = self.sock.getsockname()[0]
        self.resolv_conf = os.path.join(directory, "resolv.conf")
        self.hosts = os.path.join(directory, "hosts")
        with open(self.resolv_conf, "w", encoding="ascii") as fh:
            fh.write(f"nameserver {self.address}\noptions timeout:{TIMEOUT_SECONDS} attempts:1\n")
        with open(self.hosts, "w", encoding="ascii") as fh:
            fh.write("# sshbench --slow-login dns: no names here, every lookup goes to the silent resolver\n")

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` (sshd -i ...) run in a mount namespace of its own with the two files bound over the system's;
        the same process all along (unshare and sh exec), so wait4 still gives sshd's own CPU."""
        script = 'mount --bind "$1" /etc/resolv.conf && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"'
        return [self.unshare, "--mount", "--propagation", "private", "--", "sh", "-c", script,
                "sshbench-slow-login", self.resolv_conf, self.hosts, *argv]

    def close(self) -> None:
        self.sock.close()
