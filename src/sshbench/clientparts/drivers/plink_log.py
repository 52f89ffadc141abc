"""What PuTTY's plink 0.78 says of a connection in its -v lines (its Event Log), as the SSH names it agreed.

plink names no algorithm the way the protocol does: it logs each one's display name ("Initialised AES-256 SDCTR
(AES-NI accelerated) outbound encryption", "Doing NTRU Prime / Curve25519 hybrid key exchange, using hash
SHA-512"), so this module holds the display names of PuTTY 0.78's source (ssh/bpp2.c and ssh/kex2-client.c write
the lines; crypto/aes.h, des.c, blowfish.c, arcfour.c, chacha20-poly1305.c, hmac.c, ecc-ssh.c, ntru.c,
diffie-hellman.c and ssh/zlib.c name the algorithms) beside the SSH names they stand for, in plink's own order of
preference. Where one display name stands for two SSH names (AES-256 CBC is aes256-cbc and
rijndael-cbc@lysator.liu.se, Curve25519 with SHA-256 is curve25519-sha256 and its @libssh.org twin, an RSA host
key is rsa-sha2-512, rsa-sha2-256 or ssh-rsa), the first in plink's order is taken: the one it agrees whenever the
server offers it, as every OpenSSH server does; a server's own log (the embedded OpenSSH sshd's) says the exact
name and is compared with this, field by field (measure/drivers.py).

Its lists are plink 0.78's KEXINIT as recorded (clients/offers/putty-0.78.json; tests/unit/test_clientparts_plink.py
holds them equal) less what plink takes only after asking the user, which `-batch` refuses: its defaults
(settings.c) put diffie-hellman-group1-sha1 and the blowfish and arcfour ciphers below the "WARN" line.

Like the drivers, this module imports the standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# plink 0.78's KEXINIT, in its order (the pseudo-names ext-info-c and kex-strict-c-v00@openssh.com left out), less
# what its default settings put below the warning line (settings.c: "...,rsa,WARN,dh-group1-sha1" and
# "aes,chacha20,aesgcm,3des,WARN,des,blowfish,arcfour")
KEX = ("sntrup761x25519-sha512@openssh.com", "curve448-sha512", "curve25519-sha256", "curve25519-sha256@libssh.org",
       "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256",
       "diffie-hellman-group-exchange-sha1", "diffie-hellman-group18-sha512", "diffie-hellman-group17-sha512",
       "diffie-hellman-group16-sha512", "diffie-hellman-group15-sha512", "diffie-hellman-group14-sha256",
       "diffie-hellman-group14-sha1", "rsa2048-sha256", "rsa1024-sha1")
KEYS = ("ssh-ed448", "ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
        "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa", "ssh-dss")
CIPHERS = ("aes256-ctr", "aes256-cbc", "rijndael-cbc@lysator.liu.se", "aes192-ctr", "aes192-cbc", "aes128-ctr",
           "aes128-cbc", "chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
           "3des-ctr", "3des-cbc")
MACS = ("hmac-sha2-256", "hmac-sha1", "hmac-sha1-96", "hmac-md5", "hmac-sha2-256-etm@openssh.com",
        "hmac-sha1-etm@openssh.com", "hmac-sha1-96-etm@openssh.com", "hmac-md5-etm@openssh.com")
BELOW_WARN = ("diffie-hellman-group1-sha1", "blowfish-ctr", "blowfish-cbc", "arcfour256", "arcfour128")
IMPLICIT = "<implicit>"  # the MAC of an AEAD cipher, as ssh -v and sshd say it

# Display names (text_name, without the implementation in brackets) -> SSH names, plink's preference first
_CIPHERS = {"AES-256 SDCTR": ("aes256-ctr",), "AES-256 CBC": ("aes256-cbc", "rijndael-cbc@lysator.liu.se"),
            "AES-192 SDCTR": ("aes192-ctr",), "AES-192 CBC": ("aes192-cbc",), "AES-128 SDCTR": ("aes128-ctr",),
            "AES-128 CBC": ("aes128-cbc",), "ChaCha20": ("chacha20-poly1305@openssh.com",),
            "AES-128 GCM": ("aes128-gcm@openssh.com",), "AES-256 GCM": ("aes256-gcm@openssh.com",),
            "triple-DES SDCTR": ("3des-ctr",), "triple-DES CBC": ("3des-cbc",),
            "Blowfish-256 SDCTR": ("blowfish-ctr",), "Blowfish-128 CBC": ("blowfish-cbc",),
            "Arcfour-256": ("arcfour256",), "Arcfour-128": ("arcfour128",)}
# hmac.c: "HMAC-" + the hash's text_basename + its suffix; in ETM mode the SSH name is NAME-etm@openssh.com
_MACS = {"HMAC-SHA-256": "hmac-sha2-256", "HMAC-SHA-1": "hmac-sha1", "HMAC-SHA-1-96": "hmac-sha1-96",
         "HMAC-MD5": "hmac-md5"}
_CURVES = {("Curve25519", "sha256"): ("curve25519-sha256", "curve25519-sha256@libssh.org"),
           ("Curve448", "sha512"): ("curve448-sha512",), ("nistp256", "sha256"): ("ecdh-sha2-nistp256",),
           ("nistp384", "sha384"): ("ecdh-sha2-nistp384",), ("nistp521", "sha512"): ("ecdh-sha2-nistp521",)}
_RSA_KEX = {"sha256": "rsa2048-sha256", "sha1": "rsa1024-sha1"}
_RSA_KEYS = ("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa")  # the key type its fingerprint line names is ssh-rsa
_ZLIB = "zlib (RFC1950)"  # ssh/zlib.c: its text_name, for zlib and zlib@openssh.com alike

_BRACKETS = re.compile(r"(?: \([^()]*\))+$")  # " (AES-NI accelerated)", " (unaccelerated)"
_HASH = re.compile(r"SHA-(\d+)")
_ENCRYPTION = re.compile(r"Initialised (.+) (outbound|inbound) encryption$")
_MAC = re.compile(r"Initialised (.+?) (outbound|inbound) MAC algorithm((?: \([^()]*\))*)$")
_COMPRESSION = re.compile(r"(?:Initialised (delayed )?(.+) |Will enable (.+) )(compression|decompression)"
                          r"(?: after user authentication)?$")
_ECDH = re.compile(r"Doing ECDH key exchange with curve (\S+), using hash (.+)$")
_HYBRID = re.compile(r"Doing NTRU Prime / Curve25519 hybrid key exchange, using hash (.+)$")
_DH = re.compile(r"Doing Diffie-Hellman key exchange using \d+-bit modulus and hash (.+?) "
                 r"with (?:a server-supplied group|standard group \"(group\d+)\")$")
_RSA = re.compile(r"Doing RSA key exchange with hash (.+)$")
_FINGERPRINT = re.compile(r"(\S+) \d+ SHA256:\S+$")
# The moments of the contract's clock (clientparts/base.py MARKS) plink's lines stand for
_MARKS = (("connected", re.compile(r"Connected to \S+$")),
          ("kex_done", re.compile(r"Initialised .+ inbound encryption$")),
          ("authenticated", re.compile(r"Access granted$")), ("session_open", re.compile(r"Opened main channel$")))
_FATAL = ("FATAL ERROR: ", "Unable to open connection", "Disconnected: ", "Server refused our key",
          "No supported authentication methods available")


def _plain(name: str) -> str:
    return _BRACKETS.sub("", name.strip())


def _hash(text: str) -> str | None:
    found = _HASH.search(text)
    return None if found is None else "sha" + ("1" if found.group(1) == "1" else found.group(1))


def _kex(text: str) -> str | None:
    """The SSH name of the key exchange a "Doing ..." line names (None: a line of another kind)."""
    if (found := _HYBRID.match(text)) is not None:
        return "sntrup761x25519-sha512@openssh.com" if _hash(found.group(1)) == "sha512" else None
    if (found := _ECDH.match(text)) is not None:
        names = _CURVES.get((found.group(1), _hash(found.group(2)) or ""))
        return names[0] if names else None
    if (found := _DH.match(text)) is not None:
        hashed, group = _hash(found.group(1)), found.group(2)
        if hashed is None:
            return None
        return f"diffie-hellman-{group}-{hashed}" if group else f"diffie-hellman-group-exchange-{hashed}"
    if (found := _RSA.match(text)) is not None:
        return _RSA_KEX.get(_hash(found.group(1)) or "")
    return None


def _host_key(kind: str) -> str:
    return _RSA_KEYS[0] if kind == "ssh-rsa" else kind


class Said:
    """What the lines of one plink -v run said, read one line at a time (`read`) as they come."""

    def __init__(self) -> None:
        self.agreed: dict[str, str | None] = dict.fromkeys(
            ("kex", "hostkey", "cipher_c2s", "cipher_s2c", "mac_c2s", "mac_s2c", "compression_c2s",
             "compression_s2c", "server_version"))
        self.marks: dict[str, float] = {}
        self.fatal: str | None = None  # its line that ended the connection, with the warning that led to it
        self._warning: list[str] = []  # "The first cipher supported by the server is ... below the ... threshold."
        self.unread: list[str] = []  # what the first key exchange's lines named that no table here holds
        self._fingerprint_next = False
        self._keyed = {"outbound": False, "inbound": False}

    def read(self, text: str, at: float) -> None:
        """One stderr line of plink's (`at`: when it came, CLOCK_MONOTONIC seconds)."""
        text = text.rstrip("\r\n")
        for mark, pattern in _MARKS:
            if mark not in self.marks and pattern.match(text):
                self.marks[mark] = at
        if text.startswith("The first ") or (self._warning and not self._warning[-1].endswith(".")):
            self._warning.append(text)
        if self.fatal is None and text.startswith(_FATAL):
            self.fatal = text + (f" ({' '.join(self._warning)})" if self._warning else "")
        if text.startswith("Remote version: ") and self.agreed["server_version"] is None:
            self.agreed["server_version"] = text[len("Remote version: "):]
        elif self._fingerprint_next:
            self._fingerprint_next = False
            if (found := _FINGERPRINT.match(text)) is not None and self.agreed["hostkey"] is None:
                self.agreed["hostkey"] = _host_key(found.group(1))
        elif text == "Host key fingerprint is:":
            self._fingerprint_next = True
        elif text.startswith("Doing ") and self.agreed["kex"] is None and "group exchange" not in text[:40]:
            self.agreed["kex"] = _kex(text)
            if self.agreed["kex"] is None:
                self.unread.append(text)
        else:
            self._crypto(text)

    def _crypto(self, text: str) -> None:
        """The lines that start a direction's encryption, MAC and compression: the first key exchange's only (a
        re-exchange, after plink's 1 GB or 60 minutes, logs them again with the same names)."""
        if (found := _ENCRYPTION.match(text)) is not None:
            way = found.group(2)
            key = "cipher_c2s" if way == "outbound" else "cipher_s2c"
            if self._keyed[way]:
                return
            self._keyed[way] = True
            names = _CIPHERS.get(_plain(found.group(1)))
            self.agreed[key] = names[0] if names else None
            if names is None:
                self.unread.append(text)
            self._default_compression(way)
        elif (found := _MAC.match(text)) is not None:
            key = "mac_c2s" if found.group(2) == "outbound" else "mac_s2c"
            if self.agreed[key] is not None:
                return
            if "(required by cipher)" in found.group(3):
                self.agreed[key] = IMPLICIT
            elif (name := _MACS.get(_plain(found.group(1)))) is not None:
                self.agreed[key] = f"{name}-etm@openssh.com" if "(in ETM mode)" in found.group(3) else name
            else:
                self.unread.append(text)
        elif (found := _COMPRESSION.match(text)) is not None:
            key = "compression_c2s" if found.group(4) == "compression" else "compression_s2c"
            shown = found.group(2) or found.group(3)
            if shown != _ZLIB:
                self.unread.append(text)
            elif found.group(3) is not None:  # "Will enable ... after user authentication": zlib@openssh.com
                self.agreed[key] = "zlib@openssh.com"
            elif found.group(1) is None and self.agreed[key] in (None, "none"):  # at once: plain zlib
                self.agreed[key] = "zlib"

    def _default_compression(self, way: str) -> None:
        """No compression line follows the encryption's when none was agreed (bpp2.c logs only a compressor it
        starts): "none" until a compression line says otherwise."""
        key = "compression_c2s" if way == "outbound" else "compression_s2c"
        if self.agreed[key] is None:
            self.agreed[key] = "none"


def read_all(lines: Iterable[tuple[float, str]]) -> Said:
    """A whole run's lines at once (a recorded one, in the tests)."""
    said = Said()
    for at, text in lines:
        said.read(text, at)
    return said
