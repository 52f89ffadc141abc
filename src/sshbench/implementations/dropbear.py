"""Dropbear: algorithms fixed at build time, a 24 KiB channel window."""

from __future__ import annotations

from types import MappingProxyType

from sshbench.implementations.base import Implementation, Window, WindowSetting

_DEFAULT_WINDOW = 24576  # default_options.h: DEFAULT_RECV_WINDOW 24576

DROPBEAR = Implementation(
    name="dropbear",
    aead_without_mac=True,
    title="Dropbear",
    banner_prefixes=("dropbear",),
    process="dropbear",
    window=Window(_DEFAULT_WINDOW),
    # dropbear(8) -W: "per-channel receive window buffer size" (dropbear -h: "default 24576, larger may be faster,
    # max 10MB"); by hand on loopback upload, aes128-ctr: 56-71 MB/s at the default, 120-124 MB/s with -W 4194304
    window_option="dropbear -W BYTES (up to 10 MB; e.g. -W 4194304)",
    # mkj/dropbear src/sysoptions.h: MAX_RECV_WINDOW (10*1024*1024); common-runopts.c parse_recv_window keeps the
    # default for 0 and lowers a larger -W to that maximum, warning where nobody reads it (inetd mode's syslog),
    # older releases exit: sizes outside are refused before a run, never measured as something else
    window_setting=WindowSetting("-W", _DEFAULT_WINDOW, 10 * 1024 * 1024),
    config_advice=("Dropbear reads no sshd_config: its algorithms are fixed when it is built (default_options.h, "
                   "overridden by localoptions.h), and SSH uses the client's first choice that the server offers "
                   "(RFC 4253, 7.1), so the client block above decides; to remove an algorithm from this server, "
                   "rebuild Dropbear without it"),
    strict_kex_release="Dropbear 2024.84",
    packages=MappingProxyType({"dropbear": "dropbear-bin", "dropbearkey": "dropbear-bin",
                               "dropbearconvert": "dropbear-bin", "dbclient": "dropbear-bin"}),
)
