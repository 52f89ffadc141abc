"""The order of algorithms in a recommended config: security first, speed only where it is proven.

The rule (docs/configs.md, "The ordering rule"), in three steps:

1. Grade first: every *recommended* algorithm before every *acceptable* one.
2. Within a grade, a stated security preference (PREFERENCE below, with the
   reason for each step): post-quantum hybrids, then curve25519, then NIST
   ECDH, then finite-field DH; AES-GCM before chacha20-poly1305 (safe even
   against a peer without strict key exchange) before CTR; 256-bit keys
   before 128-bit; encrypt-then-MAC before encrypt-and-MAC, larger tags
   before smaller; ed25519 before ECDSA before RSA.
3. A faster algorithm moves ahead of a more preferred neighbour of the same
   grade only when it is *proven* faster by more than the tie margin: the
   distribution-free (Moses) interval of the speed ratio, at a level
   corrected for every pair of one grade the line could compare (Bonferroni), lies wholly
   above 1 + margin, in every direction both were measured in. A case with
   fewer samples than an interval needs never moves anything.

Why not "fastest first": on a shared machine one sample varies 10-40%, so a
median order of five samples is mostly noise, and a config is what people
act on. A swap needs evidence; without it the safer choice leads.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from sshbench.analysis.stats.robust import min_samples_for_interval, shift_interval
from sshbench.vocabulary.algorithms import Grade, Kind, lookup
from sshbench.vocabulary.case_terms import Direction

ALPHA = 0.05  # family-wise error of all the swaps in one line

# Within one grade, earlier is preferred. Names not listed come after the listed ones, alphabetically.
PREFERENCE: Mapping[Kind, tuple[str, ...]] = {
    Kind.CIPHER: (
        "aes256-gcm@openssh.com",  # AEAD, not affected by Terrapin; 256-bit key (CNSA 2.0 asks for AES-256)
        "aes128-gcm@openssh.com",
        "chacha20-poly1305@openssh.com",  # AEAD, but Terrapin-exploitable without strict key exchange
        "aes256-ctr", "aes192-ctr", "aes128-ctr",  # need a separate MAC; EtM for safety
    ),
    Kind.MAC: (
        "hmac-sha2-512-etm@openssh.com", "hmac-sha2-256-etm@openssh.com", "umac-128-etm@openssh.com",
        "hmac-sha2-512", "hmac-sha2-256", "umac-128@openssh.com",  # encrypt-and-MAC: MAC over the plaintext
    ),
    Kind.KEX: (
        "mlkem768x25519-sha256",  # ML-KEM (FIPS 203) + X25519; OpenSSH 10.0's default
        "sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com",
        "mlkem768nistp256-sha256",
        "curve25519-sha256", "curve25519-sha256@libssh.org",
        "ecdh-sha2-nistp521", "ecdh-sha2-nistp384", "ecdh-sha2-nistp256",
        "diffie-hellman-group-exchange-sha256", "diffie-hellman-group18-sha512", "diffie-hellman-group16-sha512",
    ),
    Kind.HOSTKEY: (
        "ssh-ed25519",
        "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp256",
        "rsa-sha2-512", "rsa-sha2-256",
        "ssh-mldsa44-ed25519@openssh.com",  # experimental
    ),
}
GRADE_ORDER = (Grade.RECOMMENDED, Grade.ACCEPTABLE, Grade.WEAK, Grade.BROKEN, Grade.UNKNOWN)


class Evidence(NamedTuple):
    """What one list of a candidate's speeds is evidence of: a direction over a link (a cipher or MAC; link "" for
    loopback or a real host), or the handshake (no direction: key exchange, host key); in a fleet, on which host."""

    direction: Direction | None = None
    link: str = ""
    host: str = ""


HANDSHAKE = Evidence()


@dataclass
class Candidate:
    """One algorithm with the evidence for its speed: per direction and link (or the handshake), one speed per
    sample; only the same evidence of two candidates is compared."""

    name: str
    kind: Kind
    speeds: dict[Evidence, list[float]] = field(default_factory=dict)  # bigger is better (bytes/s, 1/seconds)
    costs: dict[Evidence, list[float]] = field(default_factory=dict)  # the busier side's CPU s per GiB, per sample

    @property
    def grade(self) -> Grade:
        return lookup(self.name, self.kind).grade


@dataclass(frozen=True)
class Move:
    """Why `name` stands ahead of the more preferred `over`: proven faster, by at least `low` (a ratio)."""

    name: str
    over: str
    ratio: float  # Hodges-Lehmann estimate of how many times faster, worst direction
    low: float  # the lower end of its corrected interval, worst direction


def security_rank(name: str, kind: Kind) -> tuple[int, int, str]:
    """Sort key of the stated preference: grade, then the PREFERENCE list, then the name."""
    listed = PREFERENCE.get(kind, ())
    position = listed.index(name) if name in listed else len(listed)
    return GRADE_ORDER.index(lookup(name, kind).grade), position, name


def comparisons(candidates: Sequence[Candidate]) -> int:
    """Pairs a line could compare (within a grade, where swaps happen): the Bonferroni divisor of every test."""
    per_grade = Counter(c.grade for c in candidates)
    return max(1, sum(k * (k - 1) // 2 for k in per_grade.values()))


def proven_faster(fast: Candidate, slow: Candidate, margin: float, level: float) -> Move | None:
    """A Move when `fast` beats `slow` by more than 1 + margin at `level` in every shared direction."""
    shared = [d for d in fast.speeds if d in slow.speeds]
    need = min_samples_for_interval()
    if not shared or fast.grade is not slow.grade:
        return None
    worst: tuple[float, float] | None = None
    for direction in shared:
        a = [math.log(v) for v in fast.speeds[direction] if v > 0]
        b = [math.log(v) for v in slow.speeds[direction] if v > 0]
        if len(a) < need or len(b) < need:
            return None  # no interval, no evidence
        found = shift_interval(a, b, level)
        if found is None or found[1] is None:
            return None
        estimate, low = found[0], found[1]
        if low <= math.log1p(margin):
            return None
        if worst is None or low < worst[1]:
            worst = (estimate, low)
    assert worst is not None
    return Move(fast.name, slow.name, math.exp(worst[0]), math.exp(worst[1]))


def order(candidates: Sequence[Candidate], margin: float, alpha: float = ALPHA) -> tuple[list[str], list[Move]]:
    """The names in recommended order, and the proven speed-ups that overrode the security preference.

    Starts from the preference order and swaps neighbours only on proof
    (adjacent swaps, so every pair that ends up against the preference was
    itself compared and proven). Bounded: at most len(candidates) passes.
    """
    ordered = sorted(candidates, key=lambda c: security_rank(c.name, c.kind))
    level = 1 - alpha / comparisons(ordered)
    moves: dict[tuple[str, str], Move] = {}
    for _ in range(len(ordered)):
        swapped = False
        for i in range(len(ordered) - 1):
            ahead, behind = ordered[i], ordered[i + 1]
            move = proven_faster(behind, ahead, margin, level)
            if move is not None:
                ordered[i], ordered[i + 1] = behind, ahead
                moves[(behind.name, ahead.name)] = move
                swapped = True
        if not swapped:
            break
    names = [c.name for c in ordered]
    position = {name: i for i, name in enumerate(names)}
    kept = [m for m in moves.values() if position[m.name] < position[m.over]]
    return names, sorted(kept, key=lambda m: (position[m.name], position[m.over]))
