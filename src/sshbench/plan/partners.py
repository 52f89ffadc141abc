"""The key exchange held fixed under every throughput and host key case.

A throughput figure does not depend on the key exchange (it only runs
before the data phase), but the sample's wall time does: on a 2-vCPU Xeon
the client's default, sntrup761x25519, took 250-290 ms per handshake, and
with it set-up was ~31% of each throughput sample. The host key table
measured mostly sntrup761. So every case except the key exchange sweep uses
one fast key exchange, the same for the whole run: the elliptic-curve
exchanges cost one or two scalar multiplications per side, far less than
the post-quantum hybrids or finite-field Diffie-Hellman.
"""

from __future__ import annotations

from sshbench.algorithms import AlgorithmLists, Kind
from sshbench.errors import UsageError
from sshbench.targets.discovery import ClientInfo

AUTO = "auto"
DEFAULT = "default"
# Fastest first; all graded acceptable or better (never a weak or broken exchange, even as a partner).
FAST_KEX = ("curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384",
            "ecdh-sha2-nistp521")


def partner_kex(choice: str, client: ClientInfo, offered: AlgorithmLists) -> str | None:
    """The key exchange for every case but the key exchange sweep; None leaves it to ssh's default.

    "auto": the first of FAST_KEX both sides offer (None when there is none:
    ssh then negotiates as it always would); "default": None; a name: that
    one, when both sides support it.
    """
    if choice == DEFAULT:
        return None
    both = [name for name in client.supported.of(Kind.KEX) if name in offered.of(Kind.KEX)]
    if choice == AUTO:
        return next((name for name in FAST_KEX if name in both), None)
    if choice not in both:
        raise UsageError(f"--partner-kex {choice!r} is not supported by both sides; pick auto, default or one of "
                         f"{', '.join(both) or '(none in common)'}")
    return choice
