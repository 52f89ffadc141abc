"""What every driver shares: the contract's spellings, its arguments, the announced socket and the way out.

A driver is a program of its own (clientparts/base.py has the contract), started as `python [-S]
drivers/NAME.py ...` (ClientPart.command); this module sits beside the drivers and is imported by them as
`contract`: Python puts a script's own directory first on sys.path, and -S (no site-packages) keeps it there.
A driver also puts that directory there itself, since -P or PYTHONSAFEPATH in the environment a run passes on
would leave it out. Like the drivers, it imports the standard library only, nothing of sshbench, so a driver
started under `python -S` stays one (tests/unit/test_clientparts.py holds both, and that the spellings here are
the ones clientparts/base.py and servers/inetd.py read).

Every driver takes the arguments DriverRequest.argv writes (`arguments`; dbclient's also --window BYTES):

    NAME_pipe.py --probe         # its version and what it can negotiate, as JSON on stdout
    NAME_pipe.py --host H --port P --user U --identity KEY --known-hosts FILE --alias NAME
                 --expect-dir DIR [--server-log] --direction upload|download
                 [--cipher C] [--mac M] [--kex K] [--hostkey A] [--compression] -- COMMAND

(--compression, SSH's own, only for a driver whose client can be asked for it: plink's -C.)
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import socket
import stat
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

MARK = "SSHBENCH-CLIENT"  # the last stderr line: MARK, a space, one JSON object (clientparts/base.py DriverLine)
FAILED = "sshbench-client"  # ... or, on failure, "sshbench-client NAME: why" and a non-zero exit
LOGGED = "log"  # servers/inetd.py's words in an announcement: log this connection's negotiation
UNCOMPRESSED = "uncompressed"  # ... serve it without compression
PROCESS = "pid-"  # ... and an announcement named for the process that connects, not its port (inetd.PROCESS)
QUERY_SECONDS = 20.0  # a client program's short answers (its version, its lists) and a key conversion
KINDS = (("ciphers", "cipher"), ("macs", "MAC"), ("kex", "key exchange"), ("keys", "host key algorithm"))


class Failed(Exception):
    """What ends a driver: its message is the one line it prints."""


def now() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def fail(name: str, why: object) -> int:
    """The driver's one line on failure, and the exit status that goes with it (255, as ssh exits)."""
    print(f"{FAILED} {name}: {why}", file=sys.stderr, flush=True)
    return 255


def say(line: Mapping[str, Any]) -> None:
    """The driver's last stderr line: what it negotiated, its window, its clock."""
    print(f"{MARK} {json.dumps(line)}", file=sys.stderr, flush=True)


def arguments(argv: list[str], prog: str, window: bool = False, compression: bool = False) -> argparse.Namespace:
    """The contract's arguments as DriverRequest.argv gives them; `window`: also --window BYTES (dbclient -W);
    `compression`: also --compression, SSH's own (plink -C), which a driver without it refuses as an argument."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--probe", action="store_true")
    for name in ("--host", "--user", "--identity", "--known-hosts", "--alias", "--expect-dir", "--cipher", "--mac",
                 "--kex", "--hostkey"):
        parser.add_argument(name)
    parser.add_argument("--port", type=int)
    if window:
        parser.add_argument("--window", type=int)
    if compression:
        parser.add_argument("--compression", action="store_true")
    parser.add_argument("--server-log", action="store_true")
    parser.add_argument("--direction", choices=("upload", "download"), default="upload")
    parser.add_argument("command", nargs="?")
    args = parser.parse_args(argv)
    if not args.probe and None in (args.host, args.port, args.user, args.identity, args.known_hosts, args.alias,
                                   args.expect_dir, args.command):
        parser.error("--host, --port, --user, --identity, --known-hosts, --alias, --expect-dir and COMMAND are "
                     "needed")
    return args


def requested(args: argparse.Namespace, who: str, has: Mapping[str, Sequence[str]], unchosen: str = "",
              unchosen_kinds: Sequence[str] = ("kex", "keys")) -> dict[str, Any]:
    """The names the request pins, by kind (KINDS; None: not pinned); a name the client lacks is refused here, before
    connecting. `unchosen`: said of a name it lacks of `unchosen_kinds` (those it has no option to choose: dbclient's
    key exchange and host key, every kind of plink's)."""
    pinned = {"ciphers": args.cipher, "macs": args.mac, "kex": args.kex, "keys": args.hostkey}
    for kind, words in KINDS:
        name = pinned[kind]
        if name and name not in has[kind]:
            how = unchosen if kind in unchosen_kinds else ""
            raise Failed(f"{who} cannot use {words} {name}{how} (it has: {', '.join(has[kind])})")
    return pinned


def check_agreed(args: argparse.Namespace, who: str, said: Mapping[str, Any], aead: bool) -> None:
    """What the library agreed, each direction, against what was pinned (under an AEAD cipher no MAC is)."""
    for key, want in (("cipher_c2s", args.cipher), ("cipher_s2c", args.cipher), ("kex", args.kex),
                      ("hostkey", args.hostkey), *((("mac_c2s", args.mac), ("mac_s2c", args.mac)) if not aead
                                                   else ())):
        if want and said[key] != want:
            raise Failed(f"asked for {want} but {who} agreed {said[key]} ({key})")


def announce(args: argparse.Namespace, port: int | str, *words: str) -> None:
    """Tell the embedded server's listener (servers/inetd.py), which serves only announced ports, that a connection
    comes from `port` (or, as PROCESS and a pid, from that process): with --server-log asking it to log that
    connection's negotiation, and any other words."""
    said = " ".join([*([LOGGED] if args.server_log else []), *words])
    fd = os.open(os.path.join(args.expect_dir, str(port)), os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        os.write(fd, said.encode("ascii"))
    finally:
        os.close(fd)


def connected(args: argparse.Namespace, timeout: float, nodelay: bool = True) -> socket.socket:
    """A TCP socket of the driver's own, made as targets/fdpass.py makes ssh's: bound, its port announced, then
    connected (within `timeout`), with TCP_NODELAY where the library sets it on its own sockets (`nodelay`: a
    driver's socket is the one its library would have made, Nagle's algorithm included); blocking, with no
    timeout, when it is handed over."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("", 0))
        announce(args, sock.getsockname()[1])
        sock.settimeout(timeout)
        sock.connect((args.host, args.port))
        if nodelay:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(None)
    except OSError as exc:
        sock.close()
        raise Failed(f"connect to {args.host} port {args.port}: {exc.strerror or exc}") from None
    return sock


def program(name: str, install: str) -> str:
    """A client program's path on PATH (Failed, with the command that installs it, where there is none)."""
    for where in os.environ.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.join(where or ".", name)
        if os.access(path, os.X_OK) and not os.path.isdir(path):
            return path
    raise Failed(f"no {name} on PATH ({os.environ.get('PATH', '')}): install it: {install}")


def said(argv: list[str], env: Mapping[str, str] | None = None) -> str:
    """What a short run of a client's tool printed, stderr first (dbclient writes its answers there); `env`: its
    environment (None: this one)."""
    import subprocess  # here: only a run's first connection (and --probe) runs anything before the client

    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=QUERY_SECONDS,
                              env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Failed(f"{' '.join(argv)}: {exc}") from None
    return done.stderr + done.stdout


def private(directory: str, kept: str) -> None:
    """`directory` must be this user's and 0700 (the run's private dir): what `kept` names stays in it."""
    info = os.stat(directory)
    if info.st_uid != os.geteuid() or stat.S_IMODE(info.st_mode) & 0o077:
        raise Failed(f"{directory} is not a private 0700 directory of this user: {kept} stay out of it")


def write(path: str, text: str) -> None:
    """A new file only this user reads."""
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def prepared(identity: str, name: str, make: Callable[[str], None],
             offer: Callable[[], Mapping[str, Any]]) -> tuple[str, dict[str, Any]]:
    """A client program's own directory `name` beside the run's key, in the run's private dir (removed with it), made
    once per run by `make(draft)` with what the program offers (`offer()`, kept as offer.json): a run's streams may
    race to make it, and the first rename wins. The directory, and what it offers."""
    where = os.path.dirname(os.path.abspath(identity))
    private(where, "the key and HOME")
    made = os.path.join(where, name)
    if not os.path.isdir(made):
        draft = f"{made}.{os.getpid()}"
        os.makedirs(draft, mode=0o700)
        make(draft)
        write(os.path.join(draft, "offer.json"), json.dumps(offer()))
        try:
            os.rename(draft, made)
        except OSError:  # another stream's came first: the same files
            import shutil

            shutil.rmtree(draft, ignore_errors=True)
    with open(os.path.join(made, "offer.json"), encoding="utf-8") as fh:
        return made, json.load(fh)


def converted(argv: list[str], out: str, env: Mapping[str, str] | None = None) -> None:
    """The run's key converted by a client's own tool (argv, writing `out`): Failed, with what the tool said, where
    it wrote nothing."""
    why = said(argv, env)
    if not os.path.isfile(out):
        raise Failed(f"{os.path.basename(argv[0])} could not convert the key ({' '.join(argv[1:])}): "
                     f"{why.strip()[-200:]}")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


Session = Callable[[argparse.Namespace, Any, dict[str, float]], int]


def library_main(argv: list[str], prog: str, name: str, probe: Callable[[Any], Mapping[str, Any]],
                 session: Session) -> int:
    """A library client's driver from its argv to its exit status: the library `name` imported (untyped: every
    value of it is Any to its driver), `--probe` answered with what it can negotiate, or one session run; every
    failure is the driver's one line."""
    marks = {"started": now()}
    args = arguments(argv, prog)
    try:
        library = importlib.import_module(name)
    except ImportError as exc:
        return fail(name, f"cannot import {name} ({exc}) in {sys.executable}")
    if args.probe:
        print(json.dumps(probe(library)), flush=True)
        return 0
    try:
        return session(args, library, marks)
    except Failed as exc:
        return fail(name, exc)
    except Exception as exc:  # the library's own errors (authentication, host key, protocol), OSError, timeouts
        return fail(name, f"{type(exc).__name__}: {exc}")


def exit_now(code: int) -> NoReturn:
    """Out at once, as ssh is once its channel has closed: the interpreter's teardown (paramiko's atexit hook, every
    module's objects) took 2-5 s of wall time in a niced driver on a loaded 2-core machine, and the sample's watch
    ends a client still running 2 s after its server has gone (measure/connection.py, SERVER_GONE_GRACE)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
