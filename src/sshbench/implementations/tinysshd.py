"""tinysshd: no configuration file, a fixed set of algorithms, inetd-native."""

from __future__ import annotations

from types import MappingProxyType

from sshbench.implementations.base import Implementation, Window

TINYSSHD = Implementation(
    name="tinysshd",
    aead_without_mac=True,
    title="tinysshd",
    banner_prefixes=("tinyssh",),
    process="tinysshd",
    # channel.h: CHANNEL_BUFSIZE 131072; channel.c tops the window up when half of it is consumed
    window=Window(131072),
    # tinysshd never sets TCP_NODELAY, and Debian's tinysshd.socket (systemd, Accept=yes) has no NoDelay=: Nagle
    # stays on, which over a 20 ms link makes uploads ~40% slower than with it off (measured by hand)
    nodelay=False,
    config_advice=("tinysshd has no configuration file: it offers a fixed set (ssh-ed25519; curve25519-sha256 and "
                   "sntrup761x25519-sha512@openssh.com; chacha20-poly1305@openssh.com only), switched only in groups "
                   "by -s/-S and -p/-P on its command line (tinysshd(8)); SSH uses the client's first choice that "
                   "the server offers (RFC 4253, 7.1), so the client block above decides"),
    strict_kex_release="tinysshd 20240101",
    packages=MappingProxyType({"tinysshd": "tinysshd", "tinysshd-makekey": "tinysshd",
                               "tinysshd-printkey": "tinysshd"}),
    install_hint=("sh scripts/install-deps unpacks its binaries into the venv; installing the package would enable "
                  "a tinysshd service on port 22"),
)
