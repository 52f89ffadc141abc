"""What an SSH client sshbench measures declares about itself, and the one contract every client's driver keeps.

Why a family of its own: OpenSSH's `ssh` was the only client sshbench ran,
so "the client" was a program path (targets/discovery.py) and nothing more.
A client users drive from code (paramiko under Ansible and Fabric, asyncssh,
Go's x/crypto/ssh) is a different thing: a library in some language's
environment, whose version comes from that environment, whose channel window
and packet size are constants in its source, and which moves bytes only
through a small program written against it, its driver. Each such client is a
`ClientPart`, one module each, one line in the registry (clientparts/__init__.py),
read by the parser (`--client`, axes/client.py), the plan, the measuring code
and the results alike. It is not one of `implementations/`: those are SSH
*servers* (banner, serving process, drop-in, strict-KEX release); a client
library has none of that, and OpenSSH's client part points at the OpenSSH
implementation by name instead of being it.

The driver contract (`DriverRequest.argv`, `MARK`, `FAILED`) is the same for
every client, whatever language its driver is in, so the measuring side
(measure/drivers.py) never knows which one it runs: the driver connects on
its own (announcing its source port to the embedded server first, like
targets/fdpass.py), logs in with the run's key and pinned host keys, can
negotiate only the algorithms asked for, runs the remote command, carries
stdin to the channel and the channel to stdout as `ssh` does, and ends with
one `MARK` line (what it negotiated, its window, its own clock) on stderr; or,
for anything it cannot do, one `FAILED` line and a non-zero exit. A driver of
a client *program* that says nothing of what it negotiated (Dropbear's
dbclient) does its set-up and then becomes that program (exec), so the
program is the connection's process and wait4 its CPU: it writes no `MARK`
line (`says_negotiation=False`), the program's own "NAME: why" lines are its
failures, and the server's log is the only proof (measure/drivers.py). A driver
in a compiled language (Go's x/crypto/ssh) is a program built from its sources
in drivers/ into the venv's opt/ (`built`, clientparts/built.py) and started
as itself; it keeps the same contract. Nothing here runs a program: it is data
and the text of that contract.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import sys
from dataclasses import dataclass
from enum import StrEnum

from sshbench.clientparts.built import DRIVERS as DRIVERS  # where every driver stands (re-exported)
from sshbench.clientparts.built import Built
from sshbench.vocabulary.algorithms import Kind

# The driver's last stderr line: MARK, a space, one JSON object (DriverLine.parse); and its one line on failure:
# "sshbench-client NAME: why" with a non-zero exit. A driver is a program of its own (no sshbench imports): the
# drivers spell both in drivers/contract.py, the one module they share, and tests/unit/test_clientparts.py keeps
# the spellings equal.
MARK = "SSHBENCH-CLIENT"
FAILED = "sshbench-client"


class Can(StrEnum):
    """What a client can be asked to do, as its driver does it."""

    PIPE_UPLOAD = "pipe upload"  # exec a command, our stdin to its stdin (the pipe, measure/pipe.py)
    PIPE_DOWNLOAD = "pipe download"  # exec a command, its stdout to ours
    SFTP = "sftp"  # put/get a file over its SFTP client (none yet)
    SSH_COMPRESSION = "ssh compression"  # SSH's own zlib when the case asks for it (--compression ssh: plink -C)


@dataclass(frozen=True)
class Cited:
    """A figure read in the client's own source: its value, and where it stands (file, release, the line)."""

    value: int
    file: str  # "paramiko/common.py"
    release: str  # the release it was read in: "paramiko 5.1.0"
    line: str  # the source line: "DEFAULT_WINDOW_SIZE = 64 * 2**15"

    @property
    def source(self) -> str:
        return f"{self.release} {self.file}: {self.line}"


@dataclass(frozen=True)
class Knob:
    """A setting of the client that changes how it moves bytes: measured as a variant in a later slice; declared
    now so the results and docs say what the default run used."""

    name: str  # "window_size"
    default: str  # "2097152 (DEFAULT_WINDOW_SIZE)"
    how: str  # the code or config line that sets it: "Transport(sock, default_window_size=N)"
    low: int | None = None  # the values it takes as given, where its source bounds them (None: not said)
    high: int | None = None
    # Whether it sets the channel receive window the client advertises: the one a download's limit names as what
    # enlarges that window (analysis/physics/windows.py)
    window: bool = False


@dataclass(frozen=True)
class ClientPart:
    """One SSH client: what it is, how it is installed, what it can do, its window, its knobs, its driver."""

    name: str  # as --client, case ids (after ^) and results spell it: "openssh", "paramiko"
    title: str  # as sentences name it: "OpenSSH's ssh", "paramiko"
    implementation: str  # whose SSH it is: an implementations/ name (openssh) or the library's own
    # The Python distribution whose metadata says its version, in the interpreter that runs its driver (this one);
    # None: a program whose version its own output says (the run's ssh -V, targets/discovery.py)
    distribution: str | None
    install: str  # the one command that installs it where sshbench runs it
    can: frozenset[Can]
    window: Cited  # the channel receive window it advertises when left alone
    max_packet: Cited  # the largest packet it asks its peer for
    knobs: tuple[Knob, ...] = ()
    # its driver program's file in clientparts/drivers/ (a compiled one's source directory); None: the run's own ssh
    driver: str | None = None
    # The client program its driver runs (found on PATH), where it is a program and not a library; None: a library
    program: str | None = None
    # Whether its driver ends with MARK, saying what was negotiated; False: it execs a program that says nothing,
    # and only a server that logs its negotiation can prove a sample (cli/refusals.py, measure/drivers.py)
    says_negotiation: bool = True
    # before the driver's path: "-S" for a driver that imports the standard library only (and drivers/contract.py)
    interpreter_flags: tuple[str, ...] = ()
    # The kinds of algorithm it has no option to choose: it takes its first (in its probe's order) that the server
    # offers, so a run can hold it at that one only (orchestrate/client_sides.py), and `unchosen_why` says why
    unchosen: frozenset[Kind] = frozenset()
    unchosen_why: str = ""
    # A driver compiled from drivers/<sources> into the venv's opt/ (`sshbench clients install NAME`), started as
    # itself; None: a Python driver, run by this interpreter
    built: Built | None = None

    @property
    def is_program(self) -> bool:
        """The run's own ssh (no driver): measured exactly as sshbench always has."""
        return self.driver is None

    def version(self) -> str | None:
        """Its installed version, read now (None: not installed here; a program's: its own -V, elsewhere; a built
        driver's: the release its build pinned)."""
        if self.built is not None:
            return self.built.release if self.built.missing() is None else None
        if self.distribution is None:
            return None
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return None

    def unavailable(self) -> str | None:
        """Why it cannot run here, with the command that fixes it (None: it can)."""
        if self.built is not None:
            why = self.built.missing()
            return None if why is None else (
                f"{self.title}'s driver is not built here ({why}); install it: {self.install}")
        if self.program is not None:
            return None if shutil.which(self.program) else (
                f"{self.title} is not installed here (no {self.program} on PATH); install it: {self.install}")
        if self.distribution is None or self.version() is not None:
            return None
        return (f"{self.title} is not installed in the Python that runs sshbench ({sys.executable}); install it: "
                f"{self.install}")

    def command(self) -> list[str]:
        """The argv that starts its driver (before the request's own arguments)."""
        assert self.driver is not None, f"{self.name} has no driver: it is the run's own ssh"
        if self.built is not None:
            return [self.built.path]
        return [sys.executable, *self.interpreter_flags, os.path.join(DRIVERS, self.driver)]


@dataclass(frozen=True)
class DriverRequest:
    """One connection a driver makes: where, as whom, with what pinned, and the remote command it runs."""

    host: str
    port: int
    user: str
    identity: str  # the private key file to log in with
    known_hosts: str  # its host keys, under `alias`
    alias: str  # the name known_hosts gives the server (targets/base.HOST_ALIAS)
    expect_dir: str  # where the driver announces its source port before connecting (servers/inetd.py)
    command: str  # the remote command (measure/pipe.remote_command), as for ssh
    direction: str  # "upload" or "download": which way its own data marks are read
    cipher: str | None = None  # pinned: the only one it may negotiate (None: its own preference)
    mac: str | None = None
    kex: str | None = None
    hostkey: str | None = None
    server_log: bool = True  # ask the embedded server to log this connection's negotiation (its word, not ours)
    compression: bool = False  # SSH's own compression (a part that has Can.SSH_COMPRESSION: plink -C)

    def argv(self, part: ClientPart) -> list[str]:
        pinned = [word for flag, value in (("--cipher", self.cipher), ("--mac", self.mac), ("--kex", self.kex),
                                           ("--hostkey", self.hostkey)) if value for word in (flag, value)]
        return [*part.command(), "--host", self.host, "--port", str(self.port), "--user", self.user,
                "--identity", self.identity, "--known-hosts", self.known_hosts, "--alias", self.alias,
                "--expect-dir", self.expect_dir, *(["--server-log"] if self.server_log else []),
                "--direction", self.direction, *pinned, *(["--compression"] if self.compression else []), "--",
                self.command]


# The moments a driver's line names, on CLOCK_MONOTONIC (the same clock in every process of this machine)
MARKS = ("started", "connected", "kex_done", "authenticated", "session_open", "data_started", "data_ended")


@dataclass(frozen=True)
class DriverLine:
    """What a driver said of its connection: the algorithms as the library agreed them, its window, its clock."""

    client: str
    version: str
    kex: str | None
    hostkey: str | None
    cipher_c2s: str | None
    cipher_s2c: str | None
    mac_c2s: str | None  # "<implicit>" under an AEAD cipher, as ssh -v says it
    mac_s2c: str | None
    compression_c2s: str | None
    compression_s2c: str | None
    server_version: str | None
    window: int | None  # the channel window it advertised, and its largest packet
    max_packet: int | None
    marks: tuple[tuple[str, float], ...]  # (one of MARKS, CLOCK_MONOTONIC seconds) in the order they came
    bytes_in: int | None  # stdin -> channel, and channel -> stdout, as it counted them
    bytes_out: int | None

    @staticmethod
    def parse(text: str) -> DriverLine | None:
        """The line's object (None: not a driver line, or one that does not hold what it must)."""
        if not text.startswith(MARK + " "):
            return None
        try:
            data = json.loads(text[len(MARK) + 1:])
        except ValueError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("client"), str):
            return None
        marks = data.get("marks")
        named = tuple((k, float(v)) for k, v in marks.items() if k in MARKS and isinstance(v, int | float)) \
            if isinstance(marks, dict) else ()

        def text_of(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) and value else None

        def count(key: str) -> int | None:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None

        return DriverLine(data["client"], text_of("version") or "unknown", text_of("kex"), text_of("hostkey"),
                          text_of("cipher_c2s"), text_of("cipher_s2c"), text_of("mac_c2s"), text_of("mac_s2c"),
                          text_of("compression_c2s"), text_of("compression_s2c"), text_of("server_version"),
                          count("window"), count("max_packet"), named, count("bytes_in"), count("bytes_out"))

    def mark(self, name: str) -> float | None:
        return dict(self.marks).get(name)


def failure(lines: list[str], program: str | None = None) -> str | None:
    """A driver's own one-line reason it failed ("paramiko 5.1.0 cannot use cipher X: ..."), else the last line of
    its program's own ("dbclient: Exited: ..."), None if neither gave one."""
    for text in reversed(lines):
        if text.startswith(FAILED + " "):
            return text[len(FAILED) + 1:]
    if program is not None:
        return next((text for text in reversed(lines) if text.startswith(f"{program}: ")), None)
    return None
