"""HPN-SSH: OpenSSH with receive windows that follow TCP's, multithreaded ciphers and the none cipher.

Facts from its 18.8.0 release (OpenSSH 10.2p1 base: HPN-README and the
source), cited in docs/builds.md:
- its banner is OpenSSH's with an `_hpn` suffix (`OpenSSH_10.2p1_hpn18.8.0`);
  it is packaged as its own programs, hpnssh and hpnsshd;
- the receiver's channel window starts at OpenSSH's 2 MiB and, with
  TcpRcvBufPoll yes and HPNDisabled no (the defaults), grows to the TCP
  receive buffer (SO_RCVBUF) whenever it tops the window up (channels.c:
  channel_tcpwinsz, channel_check_window), at most SSHBUF_SIZE_MAX (256 MiB),
  and at most 15 MiB towards OpenSSH 8.9 and 9.x peers (NON_HPN_WINDOW_MAX,
  compat.c's SSH_RESTRICT_WINDOW: 10.x peers are not matched);
- chacha20-poly1305-mt@hpnssh.org (its default) and AES-CTR are multithreaded;
  the none cipher and none MAC exist only with NoneEnabled (and NoneSwitch,
  NoneMacEnabled on the client): data in the clear, or unauthenticated.
"""

from __future__ import annotations

from sshbench.implementations.base import Implementation, Window

_TOWARDS_OLD_OPENSSH = 15 * 1024 * 1024  # NON_HPN_WINDOW_MAX: towards OpenSSH 8.9 and 9.x peers

HPNSSH = Implementation(
    name="hpnssh",
    aead_without_mac=True,
    title="HPN-SSH",
    banner_prefixes=("openssh_",),
    banner_marker="_hpn",
    process="hpnsshd",
    window=Window(64 * 32 * 1024, follows_tcp=True, cap=256 * 1024 * 1024,
                  peer_caps=(("OpenSSH_8.9", _TOWARDS_OLD_OPENSSH), ("OpenSSH_9", _TOWARDS_OLD_OPENSSH))),
    window_note=f"HPN-SSH: its TCP buffer, at most {_TOWARDS_OLD_OPENSSH // (1024 * 1024)} MiB from OpenSSH 9.x",
    config_advice=None,
    strict_kex_release="an HPN-SSH release based on OpenSSH 9.6",
    client="hpnssh",
    server="hpnsshd",
    settings=("hpndisabled", "tcprcvbufpoll", "noneenabled", "noneswitch", "nonemacenabled"),
    none_cipher_lines=("NoneEnabled yes",),
    none_mac_lines=("NoneMacEnabled yes",),
    none_cipher_client=("NoneEnabled=yes", "NoneSwitch=yes"),
    none_mac_client=("NoneMacEnabled=yes",),
    # its own config dir (README.md: "Configuation files and host keys can now be found in /etc/hpnssh"); its
    # shipped sshd_config has no Include line, where Debian's OpenSSH has one for sshd_config.d
    dropin_path="/etc/hpnssh/sshd_config.d/50-sshbench.conf",
    dropin_note="HPN-SSH's sshd_config includes no drop-ins: put `Include /etc/hpnssh/sshd_config.d/*.conf` first in "
                "/etc/hpnssh/sshd_config (sshd keeps the first value it reads)",
)
