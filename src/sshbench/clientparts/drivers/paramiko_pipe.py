"""sshbench's paramiko driver: one connection, one remote command, stdin to the channel and the channel to stdout.

Run as a program by the interpreter that runs sshbench (clientparts/paramiko.py), never imported by it, so wait4
gives this whole process's CPU. It does what `ssh HOST COMMAND` does for the pipe, the way a paramiko user's
program would: `Transport(sock)`, `start_client`, `auth_publickey`, `open_session`, `exec_command`, then
`sendall` what arrives on stdin (and `shutdown_write` at its end) while `recv` goes to stdout, until the channel
closes; it exits with the remote command's status. paramiko's own defaults stay as they are (window, packet
size, its preference order), except what the request pins: only that cipher, MAC, key exchange or host key may
be negotiated (`disabled_algorithms`, paramiko's documented way), and a name paramiko lacks is refused before
connecting. Never another algorithm silently: what was agreed is checked again after the key exchange.

The socket is its own, made as targets/fdpass.py makes ssh's: bound first, its port announced to the embedded
server's listener (with `--server-log`, asking that server to log this connection's negotiation), then
connected as `SSHClient.connect` connects its own: without TCP_NODELAY (paramiko 5.1.0 sets it nowhere, so a
paramiko user's small writes wait on Nagle's algorithm; asyncssh, Go, PuTTY and ssh set it themselves). The host
key must be the one known_hosts holds under `--alias`.

Its last stderr line is `SSHBENCH-CLIENT {json}`: what paramiko agreed (as its attributes and its own "Kex:" log
line say), the window and packet size its channel advertised and the server's packet size, the bytes it carried, and its
clock (CLOCK_MONOTONIC). On any failure: one line `sshbench-client paramiko: why`, exit 255, as ssh exits.

Its arguments are every driver's (contract.py: `--probe`, or one connection's `--host H ... -- COMMAND`);
what the drivers share (the contract's spellings, the announced socket, the way out) is that module, beside it.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:  # imported as sshbench.clientparts.drivers.paramiko_pipe (mypy, the unit tests)
    from . import contract
else:  # the program: contract.py beside it (its directory, first on sys.path unless -P or PYTHONSAFEPATH)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import contract

NAME = "paramiko"
CHUNK = 1 << 16  # what one read of stdin or of the channel asks for
TIMEOUT = 20.0  # connect, banner, key exchange, authentication and the session's open, each


def offer(paramiko: Any) -> dict[str, list[str]]:
    """What this paramiko can negotiate, in its preference order (Transport's lists, which disabled_algorithms
    filters: its documentation names them)."""
    transport = paramiko.Transport
    return {"ciphers": list(transport._preferred_ciphers), "macs": list(transport._preferred_macs),
            "kex": list(transport._preferred_kex), "keys": list(transport._preferred_keys)}


def probe(paramiko: Any) -> dict[str, Any]:
    common = paramiko.common  # paramiko/__init__.py imports it: the constants every Transport starts from
    return {"client": NAME, "version": str(paramiko.__version__), **offer(paramiko),
            "window": int(common.DEFAULT_WINDOW_SIZE), "max_packet": int(common.DEFAULT_MAX_PACKET_SIZE),
            "python": sys.version.split()[0]}


def pinned(args: argparse.Namespace, paramiko: Any) -> dict[str, list[str]]:
    """disabled_algorithms that leave only the asked names: a name this paramiko lacks is refused here."""
    has = offer(paramiko)
    asked = contract.requested(args, f"paramiko {paramiko.__version__}", has)
    return {kind: [n for n in has[kind] if n != asked[kind]] for kind, _ in contract.KINDS if asked[kind]}


def transport_class(paramiko: Any) -> Any:
    class Recorded(paramiko.Transport):  # type: ignore[misc]
        """A Transport that keeps the key exchange it agreed: paramiko logs it ("Kex: NAME") and keeps no
        attribute of it once the keys are switched."""

        agreed_kex: str | None = None

        def _log(self, level: int, msg: Any, *args: Any) -> None:
            if isinstance(msg, str) and msg.startswith("Kex: "):
                self.agreed_kex = msg[len("Kex: "):]
            super()._log(level, msg, *args)

    return Recorded


def check_host_key(args: argparse.Namespace, paramiko: Any, transport: Any) -> None:
    key = transport.get_remote_server_key()
    known = paramiko.HostKeys(args.known_hosts).lookup(args.alias) or {}
    expected = known.get(key.get_name())
    if expected is None or expected.asbytes() != key.asbytes():
        raise contract.Failed(f"the server's {key.get_name()} host key is not the one {args.known_hosts} holds for "
                     f"{args.alias}")


def agreed(args: argparse.Namespace, transport: Any) -> dict[str, Any]:
    """What paramiko agreed, each direction, as its Transport holds it; checked against what was pinned."""
    aead = transport._cipher_info.get(transport.local_cipher, {}).get("is_aead", False)
    said = {"kex": transport.agreed_kex, "hostkey": transport.host_key_type,
            "cipher_c2s": transport.local_cipher, "cipher_s2c": transport.remote_cipher,
            "mac_c2s": "<implicit>" if aead else transport.local_mac,
            "mac_s2c": "<implicit>" if aead else transport.remote_mac,
            "compression_c2s": transport.local_compression, "compression_s2c": transport.remote_compression,
            "server_version": transport.remote_version}
    contract.check_agreed(args, NAME, said, aead)
    return said


class Pumps:
    """stdin -> channel (then shutdown_write) and the channel's stderr -> ours in threads; the channel's stdout
    -> ours on the caller's, until the channel closes. Counts and the first/last moments of each way."""

    def __init__(self, channel: Any) -> None:
        self.channel = channel
        self.bytes_in = self.bytes_out = 0
        self.first_in: float | None = None
        self.last_in: float | None = None
        self.last_out: float | None = None
        self.error: str | None = None

    def stdin(self) -> None:
        try:
            while data := os.read(0, CHUNK):
                if self.first_in is None:
                    self.first_in = contract.now()
                self.channel.sendall(data)
                self.bytes_in += len(data)
                self.last_in = contract.now()
            self.channel.shutdown_write()
        except Exception as exc:  # paramiko's and OSError alike: the transfer is broken, said once
            self.error = f"sending stdin: {type(exc).__name__}: {exc}"

    def stderr(self) -> None:
        while data := self.channel.recv_stderr(CHUNK):
            contract.write_all(2, data)

    def run(self) -> None:
        threading.Thread(target=self.stdin, daemon=True).start()  # ends with stdin; never waited for
        errors = threading.Thread(target=self.stderr, daemon=True)
        errors.start()
        while data := self.channel.recv(CHUNK):
            contract.write_all(1, data)
            self.bytes_out += len(data)
            self.last_out = contract.now()
        errors.join(timeout=5)


def session(args: argparse.Namespace, paramiko: Any, marks: dict[str, float]) -> int:
    disabled = pinned(args, paramiko)
    sock = contract.connected(args, TIMEOUT, nodelay=False)  # paramiko's own sockets keep Nagle's algorithm
    marks["connected"] = contract.now()
    transport = transport_class(paramiko)(sock, disabled_algorithms=disabled)
    try:
        transport.banner_timeout = TIMEOUT
        transport.start_client(timeout=TIMEOUT)
        marks["kex_done"] = contract.now()
        check_host_key(args, paramiko, transport)
        said = agreed(args, transport)
        transport.auth_publickey(args.user, paramiko.PKey.from_path(args.identity))
        if not transport.is_authenticated():
            raise contract.Failed(f"the server did not accept {args.identity} for {args.user}")
        marks["authenticated"] = contract.now()
        channel = transport.open_session(timeout=TIMEOUT)
        channel.exec_command(args.command)
        marks["session_open"] = contract.now()
        pumps = Pumps(channel)
        pumps.run()
        status = int(channel.recv_exit_status())
        if pumps.error is not None:
            raise contract.Failed(pumps.error)
        upload = args.direction == "upload"
        start, end = (pumps.first_in, pumps.last_in) if upload else (pumps.first_in, pumps.last_out)
        marks.update({k: v for k, v in (("data_started", start), ("data_ended", end)) if v is not None})
        contract.say({"client": NAME, "version": str(paramiko.__version__), **said,
                      "window": int(channel.in_window_size), "max_packet": int(channel.in_max_packet_size),
                      "peer_max_packet": int(channel.out_max_packet_size), "marks": marks,
                      "bytes_in": pumps.bytes_in, "bytes_out": pumps.bytes_out, "exit_status": status})
        return status if status >= 0 else 255
    finally:
        transport.close()


def main(argv: list[str]) -> int:
    return contract.library_main(argv, "paramiko_pipe.py", NAME, probe, session)  # paramiko: untyped, Any here


if __name__ == "__main__":
    contract.exit_now(main(sys.argv[1:]))
