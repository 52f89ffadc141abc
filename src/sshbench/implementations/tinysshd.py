"""tinysshd: no configuration file, a fixed set of algorithms, inetd-native."""

from __future__ import annotations

from types import MappingProxyType

from sshbench.implementations.base import Implementation

TINYSSHD = Implementation(
    name="tinysshd",
    title="tinysshd",
    banner_prefixes=("tinyssh",),
    process="tinysshd",
    receive_window=None,
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
