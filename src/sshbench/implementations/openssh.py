"""OpenSSH (portable): sshd, its drop-in directory and its channel window."""

from __future__ import annotations

from types import MappingProxyType

from sshbench.implementations.base import Implementation, Window

# channels.h: CHAN_SES_WINDOW_DEFAULT = 64 x CHAN_SES_PACKET_DEFAULT (32 KiB), topped up by channel_check_window in
# channels.c when half is consumed
_WINDOW = 64 * 32 * 1024

OPENSSH = Implementation(
    name="openssh",
    aead_without_mac=True,
    title="OpenSSH",
    banner_prefixes=("openssh_",),
    process="sshd",
    window=Window(_WINDOW),
    window_note=f"OpenSSH {_WINDOW // (1024 * 1024)} MiB, channels.h CHAN_SES_WINDOW_DEFAULT",
    config_advice=None,
    strict_kex_release="OpenSSH 9.6",
    packages=MappingProxyType({"ssh": "openssh-client", "ssh-keygen": "openssh-client", "scp": "openssh-client",
                               "sftp": "openssh-client", "sshd": "openssh-server"}),
)
