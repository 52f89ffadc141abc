"""The KEXINIT parser and the Terrapin predicate on recorded real KEXINITs and edited copies of them."""

from __future__ import annotations

import binascii
import dataclasses
import struct

import pytest

from sshbench.plumbing.kexinit import Kexinit, KexinitError, parse_kexinit_payload, terrapin
from tests.conftest import recorded


def load(name: str) -> Kexinit:
    lines = recorded(f"kexinit-{name}.txt").splitlines()
    banner = lines[0].lstrip("# ")
    return parse_kexinit_payload(binascii.unhexlify(lines[-1]), banner)


def encode(k: Kexinit) -> bytes:
    """A KEXINIT payload from its lists (to build edited variants of recorded ones)."""
    out = bytes([20]) + bytes(16)
    for names in (k.kex, k.hostkey, k.cipher_c2s, k.cipher_s2c, k.mac_c2s, k.mac_s2c, k.compression_c2s,
                  k.compression_s2c, (), ()):
        text = ",".join(names).encode()
        out += struct.pack(">I", len(text)) + text
    return out + bytes([int(k.first_kex_follows)]) + bytes(4)


def edited(base: Kexinit, **lists: tuple[str, ...]) -> Kexinit:
    changed = dataclasses.replace(base, **lists)  # type: ignore[arg-type]
    return parse_kexinit_payload(encode(changed), base.banner)


def test_openssh_92_offers_strict_kex_and_is_safe() -> None:
    k = load("openssh-9.2-all-enabled")
    assert k.banner.startswith("SSH-2.0-OpenSSH_9.2p1")
    assert "kex-strict-s-v00@openssh.com" in k.kex and "kex-strict-s-v00@openssh.com" not in k.kex_algorithms
    assert "chacha20-poly1305@openssh.com" in k.ciphers and "3des-cbc" in k.ciphers
    verdict = terrapin(k, "server")
    assert verdict.strict_kex and not verdict.exploitable


def test_marker_not_version_decides() -> None:
    # Debian's dropbear 2022.83 has strict KEX backported, although 2022.83 upstream predates it.
    verdict = terrapin(load("dropbear-2022.83"), "server")
    assert verdict.strict_kex and not verdict.exploitable


def test_tinysshd_with_chacha_and_no_strict_kex_is_exploitable() -> None:
    k = load("tinysshd-20230101")
    assert k.ciphers == ("chacha20-poly1305@openssh.com",)
    verdict = terrapin(k, "server")
    assert not verdict.strict_kex and verdict.exploitable and "chacha20" in verdict.reason


def test_cbc_with_etm_without_strict_kex_is_exploitable() -> None:
    base = load("openssh-9.2-all-enabled")
    k = edited(base, kex=tuple(n for n in base.kex if "strict" not in n), cipher_c2s=("aes128-cbc", "aes128-ctr"),
               cipher_s2c=("aes128-cbc", "aes128-ctr"), mac_c2s=("hmac-sha2-256-etm@openssh.com",),
               mac_s2c=("hmac-sha2-256-etm@openssh.com",))
    verdict = terrapin(k, "server")
    assert verdict.exploitable and "CBC (aes128-cbc)" in verdict.reason


@pytest.mark.parametrize(("ciphers", "macs"), [
    (("aes128-gcm@openssh.com", "aes256-gcm@openssh.com"), ("hmac-sha2-256-etm@openssh.com",)),  # GCM only
    (("aes128-ctr",), ("hmac-sha2-256-etm@openssh.com",)),  # CTR + EtM: theoretical only
    (("aes128-cbc",), ("hmac-sha2-256",)),  # CBC with encrypt-and-MAC
])
def test_not_exploitable_without_strict_kex(ciphers: tuple[str, ...], macs: tuple[str, ...]) -> None:
    base = load("openssh-9.2-all-enabled")
    k = edited(base, kex=("curve25519-sha256",), cipher_c2s=ciphers, cipher_s2c=ciphers, mac_c2s=macs,
               mac_s2c=macs)
    verdict = terrapin(k, "server")
    assert not verdict.strict_kex and not verdict.exploitable


def test_client_marker_is_checked_for_the_client_side() -> None:
    base = load("openssh-9.2-all-enabled")
    client = edited(base, kex=("curve25519-sha256", "kex-strict-c-v00@openssh.com"))
    assert terrapin(client, "client").strict_kex
    assert not terrapin(client, "server").strict_kex  # a client marker does not make a server strict


@pytest.mark.parametrize(("payload", "message"), [
    (b"", "got message nothing"),
    (bytes([21]) + bytes(16), "expected KEXINIT"),
    (bytes([20]) + bytes(16) + struct.pack(">I", 100) + b"curve", "runs past the end"),
    (bytes([20]) + bytes(16) + struct.pack(">I", 0) * 3, "truncated inside its name-lists"),
    (bytes([20]) + bytes(16) + struct.pack(">I", 0) * 10, "truncated before first_kex_packet_follows"),
])
def test_malformed_payloads_are_clear_errors(payload: bytes, message: str) -> None:
    with pytest.raises(KexinitError, match=message):
        parse_kexinit_payload(payload)


def test_round_trip_of_a_recorded_kexinit() -> None:
    k = load("openssh-9.2-all-enabled")
    assert parse_kexinit_payload(encode(k), k.banner) == k
