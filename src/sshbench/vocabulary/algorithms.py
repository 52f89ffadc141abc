"""Everything sshbench knows about SSH algorithm names, in one table.

Format of the table: one `Algorithm` per name, with its kind, whether it is
AEAD (a cipher that authenticates itself, so the MAC setting is ignored) or
encrypt-then-MAC, a grade and a one-line reason. Grades mean:

- recommended: safe to put first in a config
- acceptable: no practical weakness, but a policy concern or not post-quantum
- weak: deprecated or thin margin; measured, never recommended
- broken: practical attack or clearly inadequate; measured, flagged loudly
- unknown: a name this table does not list; never guessed

Sources (see docs/ALGORITHMS.md): the OpenSSH release notes and source tables
(cipher.c, mac.c, kex.c, sshkey.c, myproposal.h) at each release tag,
ssh-audit's algorithm database and hardening policies, the Terrapin paper
(CVE-2023-48795), NIST SP 800-131A/800-57 for group sizes, and the Sweet32
and Logjam papers for 64-bit blocks and 1024-bit groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sshbench.vocabulary.untrusted import AlgorithmName


class Kind(StrEnum):
    """The four kinds of algorithm SSH negotiates (what a case measures is results.model.CaseKind)."""

    CIPHER = "cipher"
    MAC = "mac"
    KEX = "kex"
    HOSTKEY = "hostkey"


ALGORITHM_KINDS = (Kind.CIPHER, Kind.MAC, Kind.KEX, Kind.HOSTKEY)


@dataclass(frozen=True)
class AlgorithmLists:
    """Names per kind, in the order a tool or a peer listed them."""

    cipher: tuple[AlgorithmName, ...] = ()
    mac: tuple[AlgorithmName, ...] = ()
    kex: tuple[AlgorithmName, ...] = ()
    hostkey: tuple[AlgorithmName, ...] = ()

    def of(self, kind: Kind) -> tuple[str, ...]:
        result: tuple[str, ...] = getattr(self, kind.value)
        return result


class Grade(StrEnum):
    RECOMMENDED = "recommended"
    ACCEPTABLE = "acceptable"
    WEAK = "weak"
    BROKEN = "broken"
    UNKNOWN = "unknown"

    @property
    def flagged(self) -> bool:
        """Weak and broken names are measured but must be marked wherever shown."""
        return self in (Grade.WEAK, Grade.BROKEN)


@dataclass(frozen=True)
class Algorithm:
    name: str
    kind: Kind
    grade: Grade
    reason: str
    aead: bool = False
    etm: bool = False
    # Not a real algorithm but a capability marker sent in KEXINIT.
    marker: bool = False


# Named reasons, reused by many rows (ssh-audit style).
PQ_HYBRID = "post-quantum hybrid key exchange"
CLASSIC_ECDH = "strong classical key exchange, not post-quantum"
NIST_CURVE = "NIST curve: not post-quantum, policy concern"
SHA1 = "uses SHA-1"
BLOCK64 = "64-bit block cipher (Sweet32)"
RC4 = "RC4 stream cipher, practical biases"
CBC = "CBC mode; Terrapin-exploitable together with EtM MACs"
CTR = "no practical weakness; pair with an EtM MAC"
GCM = "AEAD; not affected by Terrapin"
ETM_OK = "encrypt-then-MAC with a tag of 128 bits or more"
EAM = "encrypt-and-MAC (MAC over plaintext); prefer the -etm form"
TAG64 = "64-bit tag"
MD5 = "MD5-based"
RIPEMD = "RIPEMD-160, removed from OpenSSH 7.6"
CERT = "certificate form of the same signature"
SK = "FIDO security-key form (needs a hardware token)"

_R, _A, _W, _B = Grade.RECOMMENDED, Grade.ACCEPTABLE, Grade.WEAK, Grade.BROKEN


def _rows(kind: Kind, *rows: tuple[str, Grade, str]) -> list[Algorithm]:
    return [Algorithm(name, kind, grade, reason) for name, grade, reason in rows]


_CIPHERS = [
    Algorithm("aes128-gcm@openssh.com", Kind.CIPHER, _R, GCM, aead=True),
    Algorithm("aes256-gcm@openssh.com", Kind.CIPHER, _R, GCM, aead=True),
    Algorithm(
        "chacha20-poly1305@openssh.com",
        Kind.CIPHER,
        _R,
        "AEAD; safe only with strict KEX on both ends (Terrapin)",
        aead=True,
    ),
    Algorithm(  # HPN-SSH's multithreaded implementation of the same construction (HPN-README)
        "chacha20-poly1305-mt@hpnssh.org",
        Kind.CIPHER,
        _R,
        "AEAD, HPN-SSH only (multithreaded chacha20-poly1305); safe only with strict KEX on both ends (Terrapin)",
        aead=True,
    ),
    *_rows(
        Kind.CIPHER,
        ("aes128-ctr", _A, CTR),
        ("aes192-ctr", _A, CTR),
        ("aes256-ctr", _A, CTR),
        ("aes128-cbc", _W, CBC),
        ("aes192-cbc", _W, CBC),
        ("aes256-cbc", _W, CBC),
        ("3des-cbc", _B, BLOCK64),
        ("blowfish-cbc", _B, BLOCK64),
        ("cast128-cbc", _B, BLOCK64),
        ("3des-ctr", _B, "triple DES (Dropbear)"),
        ("arcfour", _B, RC4),
        ("arcfour128", _B, RC4),
        ("arcfour256", _B, RC4),
        ("rijndael-cbc@lysator.liu.se", _B, "non-standard CBC alias, removed in OpenSSH 8.5"),
        ("none", _B, "no encryption at all (HPN-SSH's NoneEnabled/NoneSwitch: data in the clear after login)"),
    ),
]

_MACS = [
    Algorithm("hmac-sha2-256-etm@openssh.com", Kind.MAC, _R, ETM_OK, etm=True),
    Algorithm("hmac-sha2-512-etm@openssh.com", Kind.MAC, _R, ETM_OK, etm=True),
    Algorithm("umac-128-etm@openssh.com", Kind.MAC, _R, ETM_OK, etm=True),
    Algorithm("umac-64-etm@openssh.com", Kind.MAC, _W, TAG64, etm=True),
    Algorithm("hmac-sha1-etm@openssh.com", Kind.MAC, _W, SHA1, etm=True),
    Algorithm("hmac-sha1-96-etm@openssh.com", Kind.MAC, _W, "truncated SHA-1", etm=True),
    Algorithm("hmac-md5-etm@openssh.com", Kind.MAC, _B, MD5, etm=True),
    Algorithm("hmac-md5-96-etm@openssh.com", Kind.MAC, _B, MD5, etm=True),
    Algorithm("hmac-ripemd160-etm@openssh.com", Kind.MAC, _W, RIPEMD, etm=True),
    *_rows(
        Kind.MAC,
        ("hmac-sha2-256", _A, EAM),
        ("hmac-sha2-512", _A, EAM),
        ("umac-128@openssh.com", _A, EAM),
        ("umac-64@openssh.com", _W, TAG64 + ", encrypt-and-MAC"),
        ("hmac-sha1", _W, SHA1),
        ("hmac-sha1-96", _W, "truncated SHA-1"),
        ("hmac-md5", _B, MD5),
        ("hmac-md5-96", _B, MD5),
        ("hmac-ripemd160", _W, RIPEMD),
        ("hmac-ripemd160@openssh.com", _W, RIPEMD),
        ("none", _B, "no integrity at all (HPN-SSH's NoneMacEnabled, with the none cipher: data can be altered)"),
    ),
]

_KEX = _rows(
    Kind.KEX,
    ("mlkem768x25519-sha256", _R, PQ_HYBRID + " (ML-KEM-768 + X25519)"),
    ("sntrup761x25519-sha512", _R, PQ_HYBRID + " (NTRU Prime + X25519)"),
    ("sntrup761x25519-sha512@openssh.com", _R, PQ_HYBRID + " (NTRU Prime + X25519)"),
    ("mlkem768nistp256-sha256", _A, PQ_HYBRID + " over P-256 (NIST curve policy)"),
    ("curve25519-sha256", _A, CLASSIC_ECDH),
    ("curve25519-sha256@libssh.org", _A, CLASSIC_ECDH),
    ("ecdh-sha2-nistp256", _A, NIST_CURVE),
    ("ecdh-sha2-nistp384", _A, NIST_CURVE),
    ("ecdh-sha2-nistp521", _A, NIST_CURVE),
    ("diffie-hellman-group16-sha512", _A, "4096-bit DH: slow, not post-quantum"),
    ("diffie-hellman-group18-sha512", _A, "8192-bit DH: slow, not post-quantum"),
    ("diffie-hellman-group-exchange-sha256", _A, "safe with moduli >= 3072 bits; costly for the server"),
    ("diffie-hellman-group14-sha256", _W, "2048-bit group: 112-bit strength"),
    ("diffie-hellman-group14-sha1", _W, SHA1),
    ("diffie-hellman-group-exchange-sha1", _W, SHA1),
    ("diffie-hellman-group1-sha1", _B, "1024-bit group (Logjam) and SHA-1"),
    ("sntrup4591761x25519-sha512@tinyssh.org", _B, "withdrawn post-quantum parameter set"),
) + [
    Algorithm(name, Kind.KEX, Grade.UNKNOWN, "capability marker, not a key exchange", marker=True)
    for name in (
        "ext-info-c",
        "ext-info-s",
        "kex-strict-c-v00@openssh.com",
        "kex-strict-s-v00@openssh.com",
        "kexguess2@matt.ucc.asn.au",
    )
]

_HOSTKEY_BASE = _rows(
    Kind.HOSTKEY,
    ("ssh-ed25519", _R, "Ed25519 signatures"),
    ("rsa-sha2-512", _A, "RSA with SHA-512; recommended with keys of 3072 bits or more"),
    ("rsa-sha2-256", _A, "RSA with SHA-256; recommended with keys of 3072 bits or more"),
    ("ecdsa-sha2-nistp256", _A, NIST_CURVE + "; nonce-RNG sensitive"),
    ("ecdsa-sha2-nistp384", _A, NIST_CURVE + "; nonce-RNG sensitive"),
    ("ecdsa-sha2-nistp521", _A, NIST_CURVE + "; nonce-RNG sensitive"),
    ("ssh-mldsa44-ed25519@openssh.com", _A, "experimental post-quantum hybrid signature"),
    ("ssh-rsa", _W, "RSA with SHA-1 signatures"),
    ("ssh-dss", _B, "1024-bit DSA with SHA-1"),
    ("sk-ssh-ed25519@openssh.com", _R, SK),
    ("sk-ecdsa-sha2-nistp256@openssh.com", _A, SK),
    ("webauthn-sk-ecdsa-sha2-nistp256@openssh.com", _A, SK),
)


def _with_certs(rows: list[Algorithm]) -> list[Algorithm]:
    """Each signature algorithm's -cert-v01 form shares its grade."""
    out = list(rows)
    for alg in rows:
        if alg.name.startswith("webauthn-") or alg.name.startswith("ssh-mldsa"):
            continue
        base = alg.name.partition("@")[0]
        out.append(Algorithm(f"{base}-cert-v01@openssh.com", alg.kind, alg.grade, f"{CERT}: {alg.reason}"))
    return out


# By name and kind: "none" is both a cipher and a MAC (HPN-SSH offers both)
ROWS: dict[tuple[str, Kind], Algorithm] = {
    (alg.name, alg.kind): alg for alg in (*_CIPHERS, *_MACS, *_KEX, *_with_certs(_HOSTKEY_BASE))
}
TABLE: dict[str, Algorithm] = {name: alg for (name, _), alg in ROWS.items()}  # by name (for "none", its MAC row)


def lookup(name: str, kind: Kind) -> Algorithm:
    """The table row for `name`, or an explicit 'unknown' row: never a guess."""
    alg = ROWS.get((name, kind))
    if alg is not None:
        return alg
    return Algorithm(name, kind, Grade.UNKNOWN, "not in sshbench's algorithm table")


def is_aead(cipher: str) -> bool:
    return lookup(cipher, Kind.CIPHER).aead


def needs_certificate(hostkey: str) -> bool:
    """Certificate and security-key host key algorithms need material the embedded server cannot make."""
    return "-cert-v01@" in hostkey or hostkey.startswith(("sk-", "webauthn-"))

# SSH cipher -> the OpenSSL EVP cipher its implementation uses. chacha20-poly1305@openssh.com is
# OpenSSH's own construction over the same ChaCha20 and Poly1305; the IETF AEAD is its closest
# single EVP equivalent. CBC figures are for encryption (decryption can be parallel and faster).
EVP_OF: dict[str, str] = {
    "aes128-ctr": "aes-128-ctr",
    "aes192-ctr": "aes-192-ctr",
    "aes256-ctr": "aes-256-ctr",
    "aes128-cbc": "aes-128-cbc",
    "aes192-cbc": "aes-192-cbc",
    "aes256-cbc": "aes-256-cbc",
    "aes128-gcm@openssh.com": "aes-128-gcm",
    "aes256-gcm@openssh.com": "aes-256-gcm",
    "chacha20-poly1305@openssh.com": "chacha20-poly1305",
    "chacha20-poly1305-mt@hpnssh.org": "chacha20-poly1305",
    "3des-cbc": "des-ede3-cbc",
}
