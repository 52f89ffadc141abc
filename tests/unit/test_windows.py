"""Each implementation's receive window, from its own source, and the link verdicts that use it.

OpenSSH's window is fixed (2 MiB, channels.h); Dropbear's 24 KiB; tinysshd's
128 KiB (channel.h CHANNEL_BUFSIZE). HPN-SSH's grows to the receiving end's
TCP receive buffer (channels.c channel_tcpwinsz), at most 256 MiB, and 15
MiB towards OpenSSH 8.9/9.x senders (compat.c SSH_RESTRICT_WINDOW): so over
an emulated link the verdict divides that window, not 2 MiB, by the RTT.
"""

from __future__ import annotations

from sshbench.analysis.physics.advice import receive_window
from sshbench.implementations import DROPBEAR, HPNSSH, OPENSSH, TINYSSHD, by_banner
from sshbench.results.environment import BuildFacts, ClientFacts, LinkFacts
from sshbench.results.model import Report

MiB = 1024 * 1024
HPN = "OpenSSH_10.2p1_hpn18.8.0, OpenSSL 3.0.19 27 Jan 2026"
STOCK_9 = "OpenSSH_9.2p1 Debian-2+deb12u10, OpenSSL 3.0.19 27 Jan 2026"
STOCK_10 = "OpenSSH_10.2p1, OpenSSL 3.0.19 27 Jan 2026"


def test_fixed_windows_are_their_sources_figures() -> None:
    assert OPENSSH.window.bytes_for(64 * MiB) == 2 * MiB
    assert DROPBEAR.window.bytes_for(None) == 24576
    assert TINYSSHD.window.bytes_for(None) == 131072


def test_hpn_follows_the_tcp_buffer_with_its_caps() -> None:
    assert HPNSSH.window.bytes_for(128 * MiB, "OpenSSH_10.2p1_hpn18.8.0") == 128 * MiB
    assert HPNSSH.window.bytes_for(1024 * MiB, "OpenSSH_10.2p1_hpn18.8.0") == 256 * MiB  # SSHBUF_SIZE_MAX
    assert HPNSSH.window.bytes_for(128 * MiB, "OpenSSH_9.2p1 Debian") == 15 * MiB  # NON_HPN_WINDOW_MAX
    assert HPNSSH.window.bytes_for(128 * MiB, "OpenSSH_10.2p1") == 128 * MiB  # compat.c matches 8.9 and 9.x only
    assert HPNSSH.window.bytes_for(1 * MiB, "OpenSSH_10.2p1_hpn18.8.0") == 2 * MiB  # never below OpenSSH's
    assert HPNSSH.window.bytes_for(None) is None, "grows with a buffer nobody recorded: not known"
    assert by_banner("OpenSSH_10.2p1_hpn18.8.0") is HPNSSH and by_banner("OpenSSH_10.2p1") is OPENSSH


def _report(client: str, server: str, rmem: int) -> Report:
    report = Report("test", "", 1)
    report.environment.builds = [BuildFacts("b", "b", ClientFacts("/x/ssh", client), ClientFacts("/x/sshd", server))]
    report.environment.links = [LinkFacts("rtt=80ms", "wire", client_tcp={"tcp_rmem": [4096, 131072, rmem]},
                                          server_tcp={"tcp_rmem": [4096, 131072, rmem]}, tcp_tuned=True)]
    return report


def test_the_link_verdict_uses_the_receivers_rule() -> None:
    tuned = 128 * MiB
    hpn = _report(HPN, HPN, tuned)
    assert receive_window(hpn, "upload", build="b", link="rtt=80ms") == tuned
    assert receive_window(hpn, "download", build="b", link="rtt=80ms") == tuned
    mixed = _report(HPN, STOCK_9, tuned)  # HPN client, stock server: only the receiver's rule counts
    assert receive_window(mixed, "upload", build="b", link="rtt=80ms") == 2 * MiB  # stock server receives
    assert receive_window(mixed, "download", build="b", link="rtt=80ms") == 15 * MiB  # HPN receives from 9.2
    assert receive_window(_report(STOCK_10, HPN, tuned), "upload", build="b", link="rtt=80ms") == tuned
    assert receive_window(_report(STOCK_10, STOCK_10, tuned), "upload", build="b", link="rtt=80ms") == 2 * MiB
    assert receive_window(hpn, "upload", build="b", link="rtt=80ms", method="sftp") == 64 * 32 * 1024
