"""sshbench's plink driver: runs one connection of PuTTY's `plink` as users script it, and says what plink said.

plink is a program, not a library: people run `plink -batch -ssh -P PORT -l USER -i KEY.ppk -hostkey FINGERPRINT
HOST COMMAND` with their data on its stdin and stdout (Windows batch files, WinSCP's and FileZilla's SSH code,
scripted network gear). This driver prepares that once per run, in the run's private 0700 dir: the run's OpenSSH
key converted to PuTTY's format (`puttygen KEY -O private -o KEY.ppk`), and plink's own storage (PUTTYDIR, with
HOME beside it), so the user's ~/.putty, ~/.config/putty and ~/.ssh are never read or written. The host key is
pinned by fingerprint: every host key the run's known_hosts holds for the server, as `-hostkey SHA256:...`, which
supersedes plink's host key cache (ssh/common.c verify_ssh_host_key: a key not listed ends the connection, in
-batch without a question). No agent (`-noagent`, SSH_AUTH_SOCK dropped), no connection sharing, no pty.

Why plink is this driver's child, not what it becomes (as dbclient is its driver's): plink says what it negotiated
only in its -v lines (its Event Log, on stderr), so this driver reads them as they come, passes every byte on to
its own stderr (the remote command's own stderr comes the same way), and ends with the contract's MARK line: the
algorithms as plink named them (plink_log.py turns its display names into SSH names), its window and packet size
(PuTTY 0.78 ssh.h, below), and its clock. wait4 on this driver still gives plink's CPU: a reaped child's is in
its parent's account. Its stdin and stdout are plink's own (inherited, never relayed), so the driver counts no
payload bytes: the receiver's count is the sample's (the server's `wc -c`, sshbench's sink), as for every client.

plink cannot bind a source port to announce (it has no option for one), so its connection is announced by its
process: the child writes `pid-PID` into the listener's directory (contract.PROCESS) and then execs plink, whose
pid it keeps; the listener serves the connection whose socket that process holds (targets/servers/inetd.py).

plink has no option to choose a cipher, MAC, key exchange or host key algorithm (`plink --help`; its preference
lists live only in a saved session, and its cipher list there orders families, "aes" being aes256-ctr first): it
takes its first the server offers. So a name it lacks is refused before connecting, and one it has but did not
agree (the server offered one it prefers) fails the connection afterwards in one line; a run holds each kind at
plink's first that the server offers, and skips its other cases saying so (orchestrate/client_sides.py).
Compression is its one choice: `--compression` gives plink -C, and its -v lines say which zlib was agreed.

Its arguments are every driver's (contract.py: `--probe`, or one connection's `--host H ... -- COMMAND`) and
`--compression`.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import os
import re
import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:  # imported as sshbench.clientparts.drivers.plink_pipe (mypy, the unit tests)
    from . import contract, plink_log
else:  # the program: contract.py and plink_log.py beside it (its directory, first on sys.path unless -P)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import contract
    import plink_log

PROGRAM = "plink"
INSTALL = "apt-get install putty-tools"
HOME = "plink-home"  # in the identity's (the run's private) dir: removed with it
WINDOW = 0x7FFFFFFF  # ssh.h: #define OUR_V2_BIGWIN 0x7fffffff, the one channel of plink's "simple" connection
MAX_PACKET = 0x4000  # ssh.h: #define OUR_V2_MAXPKT 0x4000UL
# Where PuTTY's Unix storage (unix/storage.c make_filename) would look instead of PUTTYDIR, and the agent
ENVIRONMENT_DROPPED = ("SSH_AUTH_SOCK", "XDG_CONFIG_HOME", "PUTTYSESSIONS", "PUTTYSSHHOSTKEYS", "PUTTYRANDOMSEED",
                       "PUTTYSSHHOSTCAS")
CHUNK = 4096


def offer(path: str) -> dict[str, Any]:
    """Its version as the installed plink says it (`plink -V`), and what it can negotiate, in its order."""
    version = re.search(r"plink: Release (\S+)", contract.said([path, "-V"]))
    if version is None:
        raise contract.Failed(f"{path} did not say its version: is it PuTTY's plink?")
    return {"client": PROGRAM, "version": version.group(1), "ciphers": list(plink_log.CIPHERS),
            "macs": list(plink_log.MACS), "kex": list(plink_log.KEX), "keys": list(plink_log.KEYS),
            "window": WINDOW, "max_packet": MAX_PACKET, "program": path}


def fingerprints(args: argparse.Namespace) -> list[str]:
    """The SHA256 fingerprint of every host key known_hosts holds under the alias, as -hostkey takes them."""
    found: list[str] = []
    with open(args.known_hosts, encoding="ascii") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) >= 3 and args.alias in fields[0].split(","):
                digest = hashlib.sha256(base64.b64decode(fields[2])).digest()
                found.append("SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("="))
    if not found:
        raise contract.Failed(f"{args.known_hosts} holds no host key for {args.alias}")
    return found


def home(args: argparse.Namespace, path: str) -> tuple[str, dict[str, Any]]:
    """plink's HOME and storage, made once per run (contract.prepared), and what it offers."""

    def make(draft: str) -> None:
        os.makedirs(os.path.join(draft, "putty"), mode=0o700)  # PUTTYDIR: sessions, host keys, random seed
        converted = os.path.join(draft, "identity.ppk")
        # puttygen saves its random seed as plink does: into this PUTTYDIR too (in ~/.putty it would make one)
        contract.converted([contract.program("puttygen", INSTALL), args.identity, "-O", "private", "-o", converted],
                           converted, environment(draft))

    return contract.prepared(args.identity, HOME, make, lambda: offer(path))


def checked(args: argparse.Namespace, offered: dict[str, Any]) -> None:
    """A name this plink lacks (or takes only after a question -batch refuses): refused here, before connecting. One
    it has may still not be the one it agrees: that is known only once connected (account)."""
    contract.requested(args, f"plink {offered['version']}", {kind: list(offered[kind]) for kind, _ in contract.KINDS})


def plink_argv(args: argparse.Namespace, path: str, made: str, pinned: list[str]) -> list[str]:
    hostkeys = [word for fingerprint in pinned for word in ("-hostkey", fingerprint)]
    return [path, "-v", "-batch", "-ssh", "-noagent", "-noshare", "-T", *(["-C"] if args.compression else []),
            "-P", str(args.port), "-l", args.user, "-i", os.path.join(made, "identity.ppk"), *hostkeys, args.host,
            args.command]


def environment(made: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ENVIRONMENT_DROPPED}
    env["HOME"] = made
    env["PUTTYDIR"] = os.path.join(made, "putty")  # first in unix/storage.c: never ~/.putty or ~/.config/putty
    return env


def started(args: argparse.Namespace, path: str, argv: list[str], env: dict[str, str]) -> tuple[int, int]:
    """plink as a child (its pid, and the read end of its stderr): the child announces its own process, then execs
    plink on the inherited stdin and stdout."""
    read, written = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            os.dup2(written, 2)
            os.close(written)
            contract.announce(args, f"{contract.PROCESS}{os.getpid()}")
            for number in (signal.SIGPIPE, signal.SIGXFSZ):  # as a shell starts it: Python ignores both
                signal.signal(number, signal.SIG_DFL)
            os.execve(path, argv, env)
        except BaseException as exc:  # the child never returns into the driver
            os.write(2, f"{contract.FAILED} {PROGRAM}: cannot start {path}: {exc}\n".encode(errors="replace"))
        os._exit(255)
    os.close(written)
    return pid, read


def relayed(read: int) -> plink_log.Said:
    """Every byte of plink's stderr passed on to ours as it comes, its lines read (each at the moment it came)."""
    said = plink_log.Said()
    pending = b""
    while chunk := os.read(read, CHUNK):
        at = contract.now()
        with contextlib.suppress(OSError):  # our reader has gone: plink's lines are still read
            contract.write_all(2, chunk)
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            said.read(line.decode("utf-8", "replace"), at)
    if pending:
        said.read(pending.decode("utf-8", "replace"), contract.now())
    os.close(read)
    return said


def account(args: argparse.Namespace, said: plink_log.Said, version: str) -> None:
    """What plink agreed, against what was pinned (Failed, in one line, where it took another)."""
    agreed = said.agreed
    aead = agreed["mac_c2s"] == plink_log.IMPLICIT
    try:
        contract.check_agreed(args, f"plink {version}", agreed, aead)
    except contract.Failed as exc:
        unread = f"; its lines that named no algorithm known here: {' | '.join(said.unread)}" if said.unread else ""
        raise contract.Failed(f"{exc}: plink has no option to choose it, and takes its first that the server "
                              f"offers{unread}") from None
    want = "zlib" if args.compression else "none"
    for key in ("compression_c2s", "compression_s2c"):
        if not str(agreed[key]).startswith(want):
            raise contract.Failed(f"asked for {'compression' if args.compression else 'none'} but plink {version} "
                                  f"agreed {agreed[key]} ({key})")


def session(args: argparse.Namespace, path: str, marks: dict[str, float]) -> int:
    made, offered = home(args, path)
    checked(args, offered)
    pid, read = started(args, path, plink_argv(args, path, made, fingerprints(args)), environment(made))
    nothing = os.open(os.devnull, os.O_RDWR)  # the payload is plink's alone: this process holds none of it
    os.dup2(nothing, 0)
    os.dup2(nothing, 1)
    os.close(nothing)
    said = relayed(read)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if said.fatal is not None or code < 0:
        raise contract.Failed(said.fatal or f"plink ended by signal {-code}")
    account(args, said, str(offered["version"]))
    contract.say({"client": PROGRAM, "version": offered["version"], **said.agreed, "window": WINDOW,
                  "max_packet": MAX_PACKET, "marks": {**marks, **said.marks}, "exit_status": code})
    return code


def arguments(argv: list[str]) -> argparse.Namespace:
    """The contract's arguments (contract.py, as every driver reads them) and --compression, plink's -C."""
    return contract.arguments(argv, "plink_pipe.py", compression=True)


def main(argv: list[str]) -> int:
    marks = {"started": contract.now()}
    args = arguments(argv)
    try:
        path = contract.program(PROGRAM, INSTALL)
        if args.probe:
            print(json.dumps(offer(path)), flush=True)
            return 0
        return session(args, path, marks)
    except (contract.Failed, OSError) as exc:
        return contract.fail(PROGRAM, exc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
