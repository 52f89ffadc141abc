"""Which ciphers have no known weakness here, and which negotiated modes Terrapin can exploit.

The answers, the remedies and the recommendation all name only safe
ciphers, so they ask here, below all of them.
"""

from __future__ import annotations

from sshbench.analysis.security.policy import BUILT_IN
from sshbench.results.model import Report
from sshbench.vocabulary.algorithms import Kind, lookup

CHACHA = "chacha20-poly1305@openssh.com"
CHACHA_MT = "chacha20-poly1305-mt@hpnssh.org"  # HPN-SSH: the same construction, multithreaded


def terrapin_exposed(cipher: str | None, mac: str | None) -> bool:
    """The negotiated modes Terrapin can exploit without strict key exchange: chacha20-poly1305, CBC with EtM."""
    if cipher is None:
        return False
    if cipher in (CHACHA, CHACHA_MT):
        return True
    return cipher.endswith("-cbc") and mac is not None and lookup(mac, Kind.MAC).etm


def safe_cipher(report: Report, name: str) -> bool:
    """No known weakness: graded recommended or acceptable, and not Terrapin-exposed unless both ends are strict."""
    terrapin = report.environment.terrapin
    strict = terrapin is not None and terrapin.protected
    return lookup(name, Kind.CIPHER).grade in BUILT_IN["compatible"] and (strict or not terrapin_exposed(name, None))
