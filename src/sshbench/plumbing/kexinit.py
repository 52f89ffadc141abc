"""The first packets of an SSH connection: identification banner and the unencrypted KEXINIT.

Just enough of the SSH transport (RFC 4253 sections 4.2, 6 and 7.1) to learn
what a peer offers, without authenticating or changing anything: used for a
server's offer (connect, read banner and KEXINIT, hang up) and for the local
client's first KEXINIT (run `ssh` against a socket of ours). The Terrapin
check (CVE-2023-48795) needs exactly these lists, from the *first* KEXINIT,
and detects strict KEX by its marker, never by the version string.

Every read is bounded in bytes and time, so a hostile or broken peer gives a
clear error, never a hang.
"""

from __future__ import annotations

import contextlib
import re
import socket
import struct
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import IO

from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind, lookup
from sshbench.vocabulary.errors import MissingToolError, ServerError
from sshbench.vocabulary.untrusted import UntrustedText, algorithm_name, printable

SSH_MSG_KEXINIT = 20
MAX_BANNER_LINES = 50  # RFC 4253 4.2 allows text lines before the identification string
MAX_LINE = 255
MAX_PACKET = 35000  # RFC 4253 6.1: implementations must handle 35000-byte packets
OUR_BANNER = b"SSH-2.0-sshbench\r\n"
STRICT_SERVER = "kex-strict-s-v00@openssh.com"
STRICT_CLIENT = "kex-strict-c-v00@openssh.com"


class KexinitError(ServerError):
    """The peer's first packets could not be read: names the host and what went wrong."""


@dataclass(frozen=True)
class Kexinit:
    """The ten name-lists of a KEXINIT, in wire order, and the peer's identification string."""

    banner: str
    kex: tuple[str, ...]
    hostkey: tuple[str, ...]
    cipher_c2s: tuple[str, ...]
    cipher_s2c: tuple[str, ...]
    mac_c2s: tuple[str, ...]
    mac_s2c: tuple[str, ...]
    compression_c2s: tuple[str, ...]
    compression_s2c: tuple[str, ...]
    first_kex_follows: bool = False

    @property
    def ciphers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.cipher_c2s, *self.cipher_s2c)))

    @property
    def macs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.mac_c2s, *self.mac_s2c)))

    @property
    def kex_algorithms(self) -> tuple[str, ...]:
        """Key exchange names without capability markers (ext-info, strict KEX)."""
        return tuple(n for n in self.kex if not lookup(n, Kind.KEX).marker)

    @property
    def lists(self) -> AlgorithmLists:
        """What this peer offers, per kind (both directions merged, markers dropped)."""
        return AlgorithmLists(cipher=self.ciphers, mac=self.macs, kex=self.kex_algorithms, hostkey=self.hostkey)

    @property
    def software_version(self) -> str:
        return software_version(self.banner)


def software_version(identification: str) -> str:
    """'SSH-2.0-tinyssh_20230101-1 kSqx4lWy' -> 'tinyssh_20230101-1': the softwareversion (RFC 4253, 4.2)
    without the comment, which can change per connection (tinysshd sends a random one)."""
    return identification.strip().removeprefix("SSH-2.0-").split(" ", 1)[0]


def parse_kexinit_payload(payload: bytes, banner: str = "") -> Kexinit:
    """Parse a KEXINIT message (message number, cookie, ten name-lists, flag, reserved)."""
    if not payload or payload[0] != SSH_MSG_KEXINIT:
        got = payload[0] if payload else "nothing"
        raise KexinitError(f"expected KEXINIT (message {SSH_MSG_KEXINIT}), got message {got}")
    offset = 17  # message number + 16-byte cookie
    lists: list[tuple[str, ...]] = []
    for _ in range(10):
        if offset + 4 > len(payload):
            raise KexinitError("KEXINIT is truncated inside its name-lists")
        (length,) = struct.unpack_from(">I", payload, offset)
        offset += 4
        if offset + length > len(payload):
            raise KexinitError("KEXINIT name-list runs past the end of the packet")
        try:
            text = payload[offset:offset + length].decode("ascii", errors="strict") if length else ""
        except UnicodeDecodeError:
            raise KexinitError("KEXINIT name-list is not US-ASCII") from None
        offset += length
        names = tuple(n for n in text.split(",") if n)
        for name in names:  # they reach tables, results files and configs: only the characters SSH names use
            try:
                algorithm_name(name, "a KEXINIT name")
            except UntrustedText as exc:
                raise KexinitError(str(exc)) from None
        lists.append(names)
    if offset + 1 > len(payload):
        raise KexinitError("KEXINIT is truncated before first_kex_packet_follows")
    kex, hostkey, enc_cs, enc_sc, mac_cs, mac_sc, comp_cs, comp_sc = lists[:8]  # then two language lists
    return Kexinit(banner, kex, hostkey, enc_cs, enc_sc, mac_cs, mac_sc, comp_cs, comp_sc,
                   first_kex_follows=bool(payload[offset]))


class _Reader:
    """Bounded reads from a socket with an overall deadline."""

    def __init__(self, sock: socket.socket, deadline: float, peer: str) -> None:
        self.sock, self.deadline, self.peer = sock, deadline, peer
        self.buffer = b""
        self.started = time.monotonic()
        self.banner_seen = False

    def _late(self) -> KexinitError:
        waited = time.monotonic() - self.started
        what = "its banner but no KEXINIT" if self.banner_seen else "no complete SSH greeting"
        return KexinitError(f"{self.peer} sent {what} within {waited:.0f}s (the --timeout)")

    def _fill(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self._late()
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(4096)
        except TimeoutError:
            raise self._late() from None
        except OSError as exc:
            raise KexinitError(f"{self.peer}: {exc.strerror or exc}") from None
        if not chunk:
            raise KexinitError(f"{self.peer} closed the connection before its KEXINIT")
        self.buffer += chunk

    def line(self) -> bytes:
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE + 2:
                raise KexinitError(f"{self.peer} sent a line longer than {MAX_LINE} bytes before its banner")
            self._fill()
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.rstrip(b"\r")

    def exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self._fill()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data


def read_greeting(reader: _Reader) -> tuple[str, bytes]:
    """The peer's identification string, then its first binary packet's payload (must be KEXINIT)."""
    for _ in range(MAX_BANNER_LINES):
        line = reader.line()
        if line.startswith(b"SSH-"):
            banner = printable(line.decode("ascii", errors="replace"))  # shown and stored: no control bytes
            reader.banner_seen = True
            break
    else:
        raise KexinitError(f"{reader.peer} is not an SSH server: no SSH- identification in "
                           f"{MAX_BANNER_LINES} lines")
    if not banner.startswith(("SSH-2.0-", "SSH-1.99-")):
        raise KexinitError(f"{reader.peer} speaks {banner.split('-')[1] if '-' in banner else '?'}, not SSH 2")
    (length,) = struct.unpack(">I", reader.exactly(4))
    if not 5 <= length <= MAX_PACKET:
        raise KexinitError(f"{reader.peer} sent a packet of {length} bytes: not a KEXINIT")
    body = reader.exactly(length)
    padding = body[0]
    if padding + 1 > length:
        raise KexinitError(f"{reader.peer} sent a packet whose padding exceeds its length")
    return banner, body[1:length - padding]


def read_server_kexinit(host: str, port: int, timeout: float = 10.0) -> Kexinit:
    """Connect, exchange banners, read the server's KEXINIT, hang up. Changes nothing on the server."""
    peer = f"{host} port {port}"
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise KexinitError(f"cannot connect to {peer}: {exc.strerror or exc}") from None
    return kexinit_over(sock, peer, timeout)


def kexinit_over(sock: socket.socket, peer: str, timeout: float = 10.0) -> Kexinit:
    """The server's KEXINIT over a connection already open (closed afterwards)."""
    deadline = time.monotonic() + timeout
    with sock:
        try:
            sock.sendall(OUR_BANNER)
        except OSError as exc:
            raise KexinitError(f"{peer}: {exc.strerror or exc}") from None
        banner, payload = read_greeting(_Reader(sock, deadline, peer))
    return parse_kexinit_payload(payload, banner)


@dataclass(frozen=True)
class TerrapinVerdict:
    """Terrapin exposure of one peer's first KEXINIT (CVE-2023-48795)."""

    strict_kex: bool
    exploitable: bool
    reason: str


def terrapin(offer: Kexinit, side: str) -> TerrapinVerdict:
    """Exploitable = no strict-KEX marker AND (chacha20-poly1305, or a CBC cipher with an EtM MAC).

    CTR with EtM is theoretically affected but not practically; GCM and
    encrypt-and-MAC modes are not affected.
    """
    marker = STRICT_SERVER if side == "server" else STRICT_CLIENT
    strict = marker in offer.kex
    chacha = "chacha20-poly1305@openssh.com" in offer.ciphers
    cbc = [c for c in offer.ciphers if c.endswith("-cbc") or c == "rijndael-cbc@lysator.liu.se"]
    etm = [m for m in offer.macs if m.endswith("-etm@openssh.com")]
    if strict:
        return TerrapinVerdict(True, False, f"offers strict key exchange ({marker})")
    if chacha or (cbc and etm):
        why = "chacha20-poly1305@openssh.com" if chacha else f"CBC ({cbc[0]}) with an EtM MAC ({etm[0]})"
        return TerrapinVerdict(False, True, f"no strict key exchange and offers {why}")
    return TerrapinVerdict(False, False, "no strict key exchange, but offers no Terrapin-affected mode")


def read_client_kexinit(ssh: str, timeout: float = 10.0, extra: tuple[str, ...] = ()) -> Kexinit:
    """The local client's first KEXINIT: `ssh` connects to a socket of ours, which hangs up after reading it.

    `-F /dev/null` gives the compiled-in proposal (what an unconfigured client
    sends); known_hosts is /dev/null, so nothing in ~/.ssh is read or written.
    """
    argv = [ssh, "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "GlobalKnownHostsFile=/dev/null", "-o", f"ConnectTimeout={int(timeout)}", *extra,
            "-p", "{port}", "127.0.0.1", "true"]
    with socket.create_server(("127.0.0.1", 0)) as listener:
        return capture_client(listener, argv, timeout, who=f"{ssh} (client)")


def capture_client(listener: socket.socket, argv: list[str] | None, timeout: float, who: str = "the client",
                   env: dict[str, str] | None = None) -> Kexinit:
    """The first KEXINIT of whatever connects to `listener` first (the way `ssh-audit -c` audits a client).

    With `argv`, that command is started (`{port}` in an argument becomes the
    listener's port) and killed, with its whole process group, once its
    KEXINIT is read or the time is up; without, an outside client is awaited.
    Our banner is sent first, then the client's banner and first packet are
    read, bounded in bytes and time; nothing is negotiated.
    """
    port = str(listener.getsockname()[1])
    proc = None
    said = tempfile.TemporaryFile()  # noqa: SIM115 (closed in finally): what the client says, for its errors
    if argv is not None:
        try:
            proc = spawn([a.replace("{port}", port) for a in argv], stdin=subprocess.DEVNULL,
                         stdout=said, stderr=said, env=env)
        except OSError as exc:
            said.close()
            raise MissingToolError(f"cannot run {printable(argv[0])}: {exc.strerror or exc}; give the client's "
                                   "path, or put it on PATH") from None
    try:
        conn = _accept(listener, proc, time.monotonic() + timeout, who, timeout, said)
        with conn:
            conn.sendall(OUR_BANNER)
            banner, payload = read_greeting(_Reader(conn, time.monotonic() + timeout, who))
        return parse_kexinit_payload(payload, banner)
    finally:
        if proc is not None:
            kill_group(proc.pid)
            reap(proc)
        said.close()


_ERROR_LINE = re.compile(r"unknown option|illegal option|invalid option|unrecognized option|error|usage:",
                         re.IGNORECASE)
_USERINFO = re.compile(r"(\w[\w+.-]*://)[^/@\s]+@")  # scheme://user:password@host


def redact(text: str) -> str:
    """What a client printed, with any credentials in URLs (user:password@) masked before anyone sees it."""
    return _USERINFO.sub(r"\1***@", text)


def _last_words(said: IO[bytes]) -> str:
    """The client's own error line (ssh's "unknown option -- Z" rather than the last line of its usage text),
    else its last line; escaped and without credentials, or ""."""
    with contextlib.suppress(OSError):
        said.seek(0)
        lines = [ln.strip() for ln in said.read(1 << 16).decode(errors="replace").splitlines() if ln.strip()]
        chosen = next((ln for ln in lines if _ERROR_LINE.search(ln) and not ln.lower().startswith("usage:")),
                      lines[-1] if lines else None)
        return f": it said {printable(redact(chosen)[-200:])!r}" if chosen else ""
    return ""


def _accept(listener: socket.socket, proc: subprocess.Popen[bytes] | None, deadline: float, who: str,
            timeout: float, said: IO[bytes] | None = None) -> socket.socket:
    """The first connection; a started client that exits first is reported at once, not at the deadline."""
    while True:
        listener.settimeout(max(0.01, min(0.2, deadline - time.monotonic())))
        try:
            return listener.accept()[0]
        except TimeoutError:
            pass
        if proc is not None and proc.poll() is not None:
            words = _last_words(said) if said is not None else ""
            raise KexinitError(f"{who} exited (status {proc.returncode}) without connecting{words}; check its "
                               "command line and that {port} is where its port goes")
        if time.monotonic() >= deadline:
            raise KexinitError(f"{who} did not connect within {timeout:.0f}s")
