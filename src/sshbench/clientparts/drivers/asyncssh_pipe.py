"""sshbench's asyncssh driver: one connection, one remote command, stdin to the channel and the channel to stdout.

Run as a program by the interpreter that runs sshbench (clientparts/asyncssh.py), never imported by it, so wait4
gives this whole process's CPU: the interpreter, its event loop, asyncssh and its crypto through `cryptography`.
It does what `ssh HOST COMMAND` does for the pipe, the way an asyncssh user's program would: `asyncssh.connect`
on its own socket with the run's key and known_hosts, `open_session(command, encoding=None)` (bytes, not text),
then its stdin (an asyncio pipe reader) written to the session's writer with `drain`, and `write_eof` at its end,
while the session's stdout is read in large reads and written to ours, until the channel closes; it exits with the
remote command's status. asyncssh's own defaults stay as they are (window, packet size, its preference order),
except what the request pins: only that cipher, MAC, key exchange or host key may be negotiated (the connect
options `encryption_algs`, `mac_algs`, `kex_algs`, `server_host_key_algs`), and a name asyncssh lacks is refused
before connecting. Never another algorithm silently: what was agreed is checked again once connected.

Nothing of the user's own setup is read: no ~/.ssh/config (`config=None`), no agent, no default keys, no
~/.ssh/known_hosts or X.509 bundle, no GSS; the host key must be the one known_hosts holds under `--alias`
(`host_key_alias`, as ssh's HostKeyAlias). The socket is its own, made as targets/fdpass.py makes ssh's: bound
first, its port announced to the embedded server's listener (with `--server-log`, asking that server to log this
connection's negotiation), then connected with TCP_NODELAY, and given to asyncssh (`sock=`).

Its last stderr line is `SSHBENCH-CLIENT {json}`: what asyncssh agreed (its connection's extra info for the
ciphers, MACs and compression each way; the key exchange and host key algorithm by asyncssh's own rule,
`_choose_alg`, over the two KEXINITs it keeps for the exchange hash, since it keeps no attribute of either), the
window and packet size its channel advertised and the server's packet size, the bytes it carried, and its clock
(CLOCK_MONOTONIC). On any failure: one line `sshbench-client asyncssh: why`, exit 255, as ssh exits.

Its arguments are every driver's (contract.py: `--probe`, or one connection's `--host H ... -- COMMAND`);
what the drivers share (the contract's spellings, the announced socket, the way out) is that module, beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import socket
import stat
import struct
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:  # imported as sshbench.clientparts.drivers.asyncssh_pipe (mypy, the unit tests)
    from . import contract
else:  # the program: contract.py beside it (its directory, first on sys.path unless -P or PYTHONSAFEPATH)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import contract

NAME = "asyncssh"
CHUNK = 1 << 18  # what one read of stdin or of the channel asks for (asyncio's pipe reader reads 256 KiB too)
TIMEOUT = 20.0  # the TCP connect; then key exchange and authentication together get 3 of these
# The connect option that pins each kind of contract.KINDS
OPTIONS = {"ciphers": "encryption_algs", "macs": "mac_algs", "kex": "kex_algs", "keys": "server_host_key_algs"}
KEX_DONE = "Completed key exchange"  # asyncssh's debug1 line once the first NEWKEYS is in (connection.py)


def names(algs: Any) -> list[str]:
    return [alg.decode("ascii") for alg in algs]


def offer(asyncssh: Any) -> dict[str, list[str]]:
    """What this asyncssh can negotiate when asked by name, in its preference order: every algorithm it has, not
    only its defaults (asking for 3des-cbc by name gets it); GSS key exchanges need a Kerberos setup and are left
    out, as the driver never enables GSS."""
    kex = [n for n in names(asyncssh.kex.get_kex_algs()) if not n.startswith("gss-")]
    keys = names(asyncssh.public_key.get_certificate_algs()) + names(asyncssh.public_key.get_public_key_algs())
    return {"ciphers": names(asyncssh.encryption.get_encryption_algs()), "macs": names(asyncssh.mac.get_mac_algs()),
            "kex": kex, "keys": keys}


def probe(asyncssh: Any) -> dict[str, Any]:
    connection = asyncssh.connection  # the defaults every client session starts from (its connect options')
    return {"client": NAME, "version": str(asyncssh.__version__), **offer(asyncssh),
            "window": int(connection._DEFAULT_WINDOW), "max_packet": int(connection._DEFAULT_MAX_PKTSIZE),
            "python": sys.version.split()[0]}


def pinned(args: argparse.Namespace, asyncssh: Any) -> dict[str, list[str]]:
    """The connect options that leave only the asked names: a name this asyncssh lacks is refused here."""
    asked = contract.requested(args, f"asyncssh {asyncssh.__version__}", offer(asyncssh))
    return {option: [asked[kind]] for kind, option in OPTIONS.items() if asked[kind]}


def connected(args: argparse.Namespace) -> socket.socket:
    sock = contract.connected(args, TIMEOUT)
    sock.setblocking(False)  # asyncssh's event loop owns it from here
    return sock


class KexDone(logging.Handler):
    """The moment asyncssh says its first key exchange is complete (its debug1 line; it has no callback for it).
    Attached only while connecting: the data phase logs through no handler of ours."""

    def __init__(self, marks: dict[str, float]) -> None:
        super().__init__(logging.DEBUG)
        self.marks = marks

    def emit(self, record: logging.LogRecord) -> None:
        if "kex_done" not in self.marks and record.getMessage().endswith(KEX_DONE):
            self.marks["kex_done"] = contract.now()


def client_class(asyncssh: Any, marks: dict[str, float]) -> Any:
    class Client(asyncssh.SSHClient):  # type: ignore[misc]
        def auth_completed(self) -> None:
            marks["authenticated"] = contract.now()

    return Client


def kexinit_lists(payload: bytes) -> tuple[list[str], list[str]]:
    """A KEXINIT's key exchange and host key name-lists (RFC 4253 7.1: its type byte, a 16-byte cookie, then
    name-lists, each a uint32 length and comma-separated names)."""
    lists: list[list[str]] = []
    at = 17
    for _ in range(2):
        (length,) = struct.unpack_from(">I", payload, at)
        lists.append(payload[at + 4:at + 4 + length].decode("ascii").split(","))
        at += 4 + length
    return lists[0], lists[1]


def agreed(args: argparse.Namespace, conn: Any) -> dict[str, Any]:
    """What asyncssh agreed, each direction, as its connection holds it; checked against what was pinned."""
    info = conn.get_extra_info
    ours, theirs = kexinit_lists(conn._client_kexinit), kexinit_lists(conn._server_kexinit)
    choose = conn._choose_alg  # asyncssh's own rule: the first of the client's list the server's holds
    said = {"kex": choose("key exchange", [n.encode() for n in ours[0]], [n.encode() for n in theirs[0]]),
            "hostkey": choose("host key", [n.encode() for n in ours[1]], [n.encode() for n in theirs[1]]),
            "cipher_c2s": info("send_cipher"), "cipher_s2c": info("recv_cipher"),
            "mac_c2s": info("send_mac"), "mac_s2c": info("recv_mac"),
            "compression_c2s": info("send_compression"), "compression_s2c": info("recv_compression"),
            "server_version": info("server_version")}
    said["kex"], said["hostkey"] = said["kex"].decode("ascii"), said["hostkey"].decode("ascii")
    for mac, cipher in (("mac_c2s", "cipher_c2s"), ("mac_s2c", "cipher_s2c")):
        if said[mac] == said[cipher]:  # an AEAD cipher: asyncssh names its MAC as the cipher, ssh -v "<implicit>"
            said[mac] = "<implicit>"
    contract.check_agreed(args, NAME, said, said["mac_c2s"] == "<implicit>")
    return said


class Stdin:
    """Our stdin for the event loop: asyncio's pipe reader where it is a pipe, socket or terminal (what a user's
    asyncio program gets from connect_read_pipe); a blocking read in the loop's thread pool otherwise (a file)."""

    def __init__(self) -> None:
        self.reader: asyncio.StreamReader | None = None

    async def open(self) -> None:
        mode = os.fstat(0).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
            reader = self.reader = asyncio.StreamReader(limit=CHUNK)
            pipe = open(0, "rb", buffering=0, closefd=False)  # noqa: SIM115 (the transport owns it)
            await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)

    async def read(self) -> bytes:
        if self.reader is not None:
            return await self.reader.read(CHUNK)
        return await asyncio.get_running_loop().run_in_executor(None, os.read, 0, CHUNK)


class Pumps:
    """stdin -> the session's writer (then write_eof), its stdout -> ours and its stderr -> ours, as three tasks,
    until the channel closes. Counts and the first/last moments of each way."""

    def __init__(self, writer: Any, stdout: Any, stderr: Any) -> None:
        self.writer, self.stdout, self.stderr = writer, stdout, stderr
        self.bytes_in = self.bytes_out = 0
        self.first_in: float | None = None
        self.last_in: float | None = None
        self.last_out: float | None = None
        self.error: str | None = None

    async def stdin(self) -> None:
        try:
            source = Stdin()
            await source.open()
            while data := await source.read():
                if self.first_in is None:
                    self.first_in = contract.now()
                self.writer.write(data)
                await self.writer.drain()
                self.bytes_in += len(data)
                self.last_in = contract.now()
            self.writer.write_eof()
        except Exception as exc:  # asyncssh's and OSError alike: the transfer is broken, said once
            self.error = f"sending stdin: {type(exc).__name__}: {exc}"

    async def out(self) -> None:
        while data := await self.stdout.read(CHUNK):
            contract.write_all(1, data)
            self.bytes_out += len(data)
            self.last_out = contract.now()

    async def err(self) -> None:
        while data := await self.stderr.read(CHUNK):
            contract.write_all(2, data)

    async def run(self) -> None:
        sending = asyncio.ensure_future(self.stdin())  # ends with stdin; a download's may outlive the channel
        await asyncio.gather(self.out(), self.err())
        await self.writer.channel.wait_closed()
        if not sending.done():
            sending.cancel()


async def session(args: argparse.Namespace, asyncssh: Any, marks: dict[str, float]) -> int:
    algorithms = pinned(args, asyncssh)
    sock = connected(args)
    marks["connected"] = contract.now()
    logger = logging.getLogger("asyncssh")
    watch = KexDone(marks)
    logger.addHandler(watch)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        conn = await asyncssh.connect(
            sock=sock, host=args.host, port=args.port, username=args.user, client_keys=[args.identity],
            known_hosts=args.known_hosts, host_key_alias=args.alias, config=None, agent_path=None,
            x509_trusted_certs=None, gss_auth=False, gss_kex=False, preferred_auth="publickey",
            client_factory=client_class(asyncssh, marks), connect_timeout=3 * TIMEOUT, **algorithms)
    finally:
        logger.removeHandler(watch)
        logger.setLevel(logging.WARNING)
    try:
        said = agreed(args, conn)
        writer, stdout, stderr = await asyncio.wait_for(conn.open_session(args.command, encoding=None), TIMEOUT)
        marks["session_open"] = contract.now()
        channel = writer.channel
        pumps = Pumps(writer, stdout, stderr)
        await pumps.run()
        status = channel.get_exit_status()
        if pumps.error is not None:
            raise contract.Failed(pumps.error)
        upload = args.direction == "upload"
        start, end = (pumps.first_in, pumps.last_in) if upload else (pumps.first_in, pumps.last_out)
        marks.update({k: v for k, v in (("data_started", start), ("data_ended", end)) if v is not None})
        contract.say({"client": NAME, "version": str(asyncssh.__version__), **said,
                      "window": int(channel.get_recv_window()), "max_packet": int(channel._recv_pktsize),
                      "peer_max_packet": int(channel._send_pktsize), "marks": marks,
                      "bytes_in": pumps.bytes_in, "bytes_out": pumps.bytes_out, "exit_status": status})
        return status if status is not None and status >= 0 else 255
    finally:
        conn.close()


def main(argv: list[str]) -> int:
    return contract.library_main(argv, "asyncssh_pipe.py", NAME, probe,
                                 lambda args, asyncssh, marks: asyncio.run(session(args, asyncssh, marks)))


if __name__ == "__main__":
    contract.exit_now(main(sys.argv[1:]))  # out at once, as paramiko_pipe.py is (contract.exit_now says why)
