"""sshbench's dbclient driver: prepares one connection of Dropbear's `dbclient`, then becomes it (exec).

dbclient is a program, not a library: users run `dbclient -c CIPHER -m MAC -i KEY -p PORT user@host COMMAND` with
their data on its stdin and stdout, and that is all this driver does. Everything it needs before that (the run's
key in Dropbear's format, a private HOME whose .ssh/known_hosts pins the server's host keys, the source port
announced to the embedded server's listener) it does in its own process, then it replaces itself with dbclient
(os.execv) on the same stdin, stdout and stderr. Why exec, not fork and wait:

- wait4 then gives dbclient's CPU exactly as it gives ssh's: the same process, its TCP socket where the sample's
  counters look for the sender's, no relay and no parent left waiting. What this interpreter spent before the exec
  (`python -S`, about 20 ms, and on a run's first connection dropbearconvert and three `dbclient` queries) stays
  in the process's account as set-up: it is all over before the remote command's ready line, so none of it is in
  the data phase's CPU.
- The contract's last line (MARK) would carry nothing the sample lacks: dbclient prints nothing of what it
  negotiated (no -v in Debian's build: default_options.h DEBUG_TRACE 0), and the window and packet size it
  advertised are in the server's log. So this driver ends with no MARK line (clientparts/dbclient.py declares
  `says_negotiation=False`): the embedded OpenSSH server's log of the connection is the sample's only proof, and a
  run refuses a server that logs none (cli/refusals.py). A wrapper that forked dbclient and waited to print MARK
  would give the same CPU (wait4 counts a reaped child) with one process more and nothing more to say.

The host key is pinned without ever touching the real ~/.ssh: dbclient reads $HOME/.ssh/known_hosts (cli-kex.c
open_known_hosts_file), so HOME is a directory in the run's private 0700 dir, holding the run's host keys under
the address dbclient is given. Without -y an unknown key makes dbclient ask (on /dev/tty, else on stdin: our
payload), so every host key type dbclient knows gets a line: the server's own key, or a key that matches nothing,
which makes dbclient exit with "host key mismatch" instead of asking. -y (accept unknown) and -y -y (no check) are
never passed. SSH_AUTH_SOCK is dropped: only the run's key logs in.

dbclient has no option to choose the key exchange or the host key algorithm: it takes its first preference the
server offers (curve25519-sha256, ssh-ed25519 against the embedded sshd), so those are what it says it can
negotiate (--probe), and a request pinning another is refused. It always asks for zlib compression (cli-runopts.c:
`opts.compress_mode = DROPBEAR_COMPRESS_ON`, no option against it), so its announcement asks the server to serve it
without (`uncompressed`: OpenSSH's `Compression no`), and the server's log proves `none` was agreed.

Its arguments are every driver's (contract.py: `--probe`, or one connection's `--host H ... -- COMMAND`), and
`--window BYTES`, dbclient's -W; what the drivers share (the contract's spellings, the announced port, the failure
line) is that module, beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING or __package__:  # imported as sshbench.clientparts.drivers.dbclient_pipe (mypy, the unit tests)
    from . import contract
else:  # the program: contract.py beside it (its directory, first on sys.path unless -P or PYTHONSAFEPATH)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import contract

PROGRAM = "dbclient"
# Dropbear 2022.83 common-algo.c, in its order: sshkex[] starts with curve25519-sha256 and sigalgs[] with
# ssh-ed25519; dbclient sends them as they stand, with no option to change either
KEX_FIRST = "curve25519-sha256"
HOSTKEY_FIRST = "ssh-ed25519"
# signkey.c signkey_names[]: every key type whose name checkhostkey looks for in known_hosts
KEY_TYPES = ("ssh-rsa", "ssh-dss", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
             "sk-ecdsa-sha2-nistp256@openssh.com", "ssh-ed25519", "sk-ssh-ed25519@openssh.com")
UNPINNED = "c3NoYmVuY2g6IG5vIGhvc3Qga2V5IG9mIHRoaXMgdHlwZSBpcyBwaW5uZWQ="  # base64: matches no key
MAX_PACKET = 32768 - 9  # common-channel.c: RECV_MAX_CHANNEL_DATA_LEN (RECV_MAX_PAYLOAD_LEN-(1+4+4))
HOME = "dbclient-home"  # in the identity's (the run's private) dir: removed with it


def program(name: str = PROGRAM) -> str:
    return contract.program(name, "apt-get install dropbear-bin")


def said(argv: list[str]) -> str:
    """What a short run of a Dropbear tool printed (dbclient writes its answers on stderr)."""
    return contract.said(argv)


def offer(path: str) -> dict[str, object]:
    """Its version, ciphers and MACs as the installed dbclient says them; its window as its -h says it."""
    version = re.search(r"Dropbear v(\S+)", said([path, "-V"]))
    lists = {}
    for kind, flag, words in (("ciphers", "-c", "ciphers"), ("macs", "-m", "MACs")):
        found = re.search(rf"Available {words}: (\S+)", said([path, flag, "help"]))
        lists[kind] = found.group(1).split(",") if found else []
    window = re.search(r"-W <receive_window_buffer> \(default (\d+)", said([path, "-h"]))
    if version is None or not lists["ciphers"]:
        raise contract.Failed(f"{path} did not say its version and ciphers: is it Dropbear's dbclient?")
    return {"client": PROGRAM, "version": version.group(1), **lists, "kex": [KEX_FIRST], "keys": [HOSTKEY_FIRST],
            "window": int(window.group(1)) if window else None, "max_packet": MAX_PACKET, "program": path}


def known_hosts(args: argparse.Namespace) -> str:
    """The run's host keys under the address dbclient is given (it matches that name alone), and a line that
    matches nothing for every other key type it knows."""
    pinned: dict[str, str] = {}
    with open(args.known_hosts, encoding="ascii") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) >= 3 and args.alias in fields[0].split(",") and fields[1] in KEY_TYPES:
                pinned.setdefault(fields[1], fields[2])
    if not pinned:
        raise contract.Failed(f"{args.known_hosts} holds no host key for {args.alias}")
    return "".join(f"{args.host} {kind} {pinned.get(kind, UNPINNED)}\n" for kind in KEY_TYPES)


def home(args: argparse.Namespace, path: str) -> tuple[str, dict[str, object]]:
    """HOME for dbclient, made once per run (contract.prepared), and what it offers."""

    def make(draft: str) -> None:
        os.makedirs(os.path.join(draft, ".ssh"), mode=0o700)
        contract.write(os.path.join(draft, ".ssh", "known_hosts"), known_hosts(args))
        # dbclient 2022.83 reads Dropbear's key format only (an OpenSSH key: "Exited: String too long")
        converted = os.path.join(draft, "identity")
        contract.converted([program("dropbearconvert"), "openssh", "dropbear", args.identity, converted], converted)

    return contract.prepared(args.identity, HOME, make, lambda: offer(path))


def checked(args: argparse.Namespace, offered: dict[str, object]) -> None:
    """A name this dbclient lacks, or a key exchange or host key it cannot be told to use: refused here."""
    has: dict[str, list[str]] = {}
    for kind, _ in contract.KINDS:
        names = offered[kind]
        assert isinstance(names, list)
        has[kind] = names
    contract.requested(args, f"dbclient {offered['version']}", has, " (it has no option to choose one: it takes its "
                       "first)")


def announced(args: argparse.Namespace) -> int:
    """A free source port, announced to the listener (servers/inetd.py) before dbclient binds it (-b): the port
    is free again between this close and dbclient's bind, a few milliseconds in which only an explicit bind
    elsewhere could take it (the kernel hands ephemeral ports out at random), and then dbclient says so and
    exits."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("", 0))
        port = int(sock.getsockname()[1])
    contract.announce(args, port, contract.UNCOMPRESSED)
    return port


def dbclient_argv(args: argparse.Namespace, path: str, made: str, port: int) -> list[str]:
    return [path, *(["-c", args.cipher] if args.cipher else []), *(["-m", args.mac] if args.mac else []),
            *(["-W", str(args.window)] if args.window else []), "-i", os.path.join(made, "identity"),
            "-b", f":{port}", "-p", str(args.port), "-l", args.user, args.host, args.command]


def arguments(argv: list[str]) -> argparse.Namespace:
    """The contract's arguments (contract.py, as every driver reads them) and --window, dbclient's -W (the default run
    passes none: dbclient's own 24576)."""
    return contract.arguments(argv, "dbclient_pipe.py", window=True)


def main(argv: list[str]) -> int:
    args = arguments(argv)
    try:
        path = program()
        if args.probe:
            print(json.dumps(offer(path)), flush=True)
            return 0
        made, offered = home(args, path)
        checked(args, offered)
        command = dbclient_argv(args, path, made, announced(args))
    except (contract.Failed, OSError) as exc:
        return contract.fail(PROGRAM, exc)
    env = {key: value for key, value in os.environ.items() if key != "SSH_AUTH_SOCK"}
    env["HOME"] = made  # its known_hosts and default key come from here, never from the user's ~/.ssh
    for number in (signal.SIGPIPE, signal.SIGXFSZ):  # as a shell starts it: Python ignores both
        signal.signal(number, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(path, command, env)  # never returns: dbclient is this connection's process from here on


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
