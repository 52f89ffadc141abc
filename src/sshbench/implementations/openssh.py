"""OpenSSH (portable): sshd, its drop-in directory and its channel window."""

from __future__ import annotations

from types import MappingProxyType

from sshbench.implementations.base import Implementation, Window

OPENSSH = Implementation(
    name="openssh",
    title="OpenSSH",
    banner_prefixes=("openssh_",),
    process="sshd",
    # channels.h: CHAN_SES_WINDOW_DEFAULT = 64 x CHAN_SES_PACKET_DEFAULT (32 KiB), topped up by
    # channel_check_window in channels.c when half is consumed
    window=Window(64 * 32 * 1024),
    config_advice=None,
    strict_kex_release="OpenSSH 9.6",
    packages=MappingProxyType({"ssh": "openssh-client", "ssh-keygen": "openssh-client", "scp": "openssh-client",
                               "sftp": "openssh-client", "sshd": "openssh-server"}),
)
