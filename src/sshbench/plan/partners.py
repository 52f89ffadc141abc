"""The partners held fixed under the sweeps: the key exchange, the MAC of non-AEAD ciphers, the MAC sweep's cipher.

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

from dataclasses import dataclass

from sshbench.targets.discovery import ClientInfo
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind, is_aead, lookup
from sshbench.vocabulary.errors import UsageError

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


# The MAC sweep needs a non-AEAD cipher and the cipher sweep's non-AEAD ciphers a MAC. The defaults suit
# OpenSSH, but Dropbear 2022.83 has no hmac-sha2-256-etm and tinysshd no non-AEAD cipher at all: with
# "auto" the first of these that both sides offer is used, and the choice is recorded (options) and said.
CIPHER_MACS = ("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com", "umac-128-etm@openssh.com",
               "hmac-sha2-256", "hmac-sha2-512", "umac-128@openssh.com")
MAC_CIPHERS = ("aes128-ctr", "aes256-ctr", "aes192-ctr")


@dataclass(frozen=True)
class Partner:
    name: str | None  # None: nothing both sides offer (the cases that need it are skipped with `why`)
    note: str | None = None  # said when "auto" could not use the first choice
    why: str | None = None


def sweep_partner(kind: Kind, choice: str, option: str, client: ClientInfo, offered: AlgorithmLists) -> Partner:
    """`--cipher-mac` (kind MAC) or `--mac-cipher` (kind CIPHER): a name is checked, "auto" is resolved."""
    both = [n for n in client.supported.of(kind) if n in offered.of(kind) and not (kind is Kind.CIPHER
                                                                                   and is_aead(n))]
    if choice != AUTO:
        if kind is Kind.CIPHER and is_aead(choice):
            raise UsageError(f"{option} {choice} is AEAD and ignores MACs: pick a non-AEAD cipher, or leave "
                             f"{option} out (auto)")
        if choice not in client.supported.of(kind):
            raise UsageError(f"{option} {choice!r} is not supported by this ssh; valid: "
                             f"{', '.join(client.supported.of(kind))}")
        if choice not in offered.of(kind):
            raise UsageError(f"{option} {choice!r} is not offered by the server; pick one of "
                             f"{', '.join(both) or '(none)'}, or leave {option} out (auto)")
        return Partner(choice)
    preferred = CIPHER_MACS if kind is Kind.MAC else MAC_CIPHERS
    unflagged = [n for n in both if not lookup(n, kind).grade.flagged]
    pick = next((n for n in preferred if n in both), None) or next(iter(unflagged or both), None)
    if pick is None:
        what = "MAC" if kind is Kind.MAC else "non-AEAD cipher"
        return Partner(None, why=f"no {what} that both sides offer ({option} auto)")
    note = None if pick == preferred[0] else (f"{option} auto: {pick} ({preferred[0]} is not offered by "
                                              "both sides)")
    return Partner(pick, note)
