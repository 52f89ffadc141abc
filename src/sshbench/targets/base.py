"""The seams between measuring and the servers measured: a Target, its server-side files, an embedded server.

A Target is how a sample reaches its server: the ssh command line, the
server side of the file methods and, where known, the server's CPU. There
are two: the embedded target (targets/embedded.py), over any EmbeddedServer
sshbench starts itself, and a real host (targets/remote.py). An
EmbeddedServer is a private server on loopback that runs one process per
connection, so each connection's server CPU is exact (targets/servers/:
OpenSSH today; one module per server).
"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol

from sshbench.implementations import Implementation, by_program
from sshbench.plumbing.negotiation import Negotiated
from sshbench.results.model import Case
from sshbench.targets.discovery import ClientInfo, ServerInfo
from sshbench.vocabulary.algorithms import AlgorithmLists

HOST_ALIAS = "sshbench-embedded"  # the Host every embedded server's client_config defines


# How long a connection's server may take to exit after its client ended (at once, as a rule; 10 s was too
# short for an scp's sshd beside two CPU hogs and another run)
SERVER_EXIT_SECONDS = 30.0


@dataclass(frozen=True)
class ServerProcess:
    """One server process that served one connection, as reaped by wait4."""

    peer_port: int
    exit_status: int
    cpu_user_s: float
    cpu_sys_s: float
    wall_s: float


@dataclass(frozen=True)
class ClientEndpoint:
    """How a client that is not the run's ssh reaches an embedded server on its own (a driver, clientparts/):
    the address, the login, the key and host keys every embedded server's client config names, and where a
    connection announces its source port first (servers/inetd.py)."""

    host: str
    port: int
    user: str
    identity: str  # the client's private key file
    known_hosts: str  # the server's host keys, under HOST_ALIAS
    expect_dir: str


@dataclass(frozen=True)
class ServerSaid:
    """What the server itself logged of one connection: what was negotiated, and the window and packet size the
    client's session channel advertised (OpenSSH's debug1 lines; None where its log did not say)."""

    negotiated: Negotiated
    client_window: int | None = None
    client_max_packet: int | None = None


class TcpEnds(Protocol):
    """Where the raw TCP control's two sockets are made: loopback, or the two ends of an emulated link."""

    def listener(self) -> socket.socket:
        """A listening socket on the receiving side."""
        ...

    def sender(self) -> socket.socket:
        """A bound, unconnected socket on the sending side."""
        ...


class FileOps(Protocol):
    """What the file methods need done on the server side, outside the timed part."""

    def make_dir(self, parent: str, room: int) -> str:
        """A new private directory for this run's files, on a filesystem with `room` bytes free.

        `parent` is the client's --workdir; a remote side uses its own (--remote-workdir or $TMPDIR).
        Not enough room is a UsageError, with nothing left behind.
        """
        ...

    def size(self, path: str) -> tuple[int, int] | None:
        """(bytes, regular files) under path, None when it does not exist."""
        ...

    def sha256(self, path: str) -> str: ...

    def remove(self, path: str) -> None: ...

    def place(self, local_source: str, path: str) -> None:
        """Put a copy of the local source at `path` on the server (the download source)."""
        ...


class Target(Protocol):
    destination: str  # what scp, sftp and rsync are given as the host
    ssh_program: str
    # True: the server is our child (wait4: exact CPU of its whole tree); False: a remote host, whose
    # CPU the remote command reads from /proc where it can
    server_cpu_exact: bool
    files: FileOps  # the server's side of the file methods
    tool_env: Mapping[str, str]  # added to the environment of ssh and the file tools

    def program_for(self, case: Case) -> str:
        """The ssh program that measures this case (a build's, with --build; else ssh_program)."""
        ...

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]: ...

    def tool_ssh_options(self, case: Case) -> list[str]:
        """ssh options (config, -v, algorithms) that scp and sftp take as they are and rsync takes in -e."""
        ...

    def server_process(self, peer_port: int) -> ServerProcess | None: ...

    def server_cpu_so_far(self, peer_port: int) -> float | None: ...

    def server_pid(self, peer_port: int) -> int | None:
        """The live server process of a connection, where it runs on this machine (an embedded server): its
        receiving `wc` and its TCP socket are read from /proc (measure/steady.py); None for a real host."""
        ...

    def link_cpu_so_far(self, case: Case) -> float | None:
        """CPU used so far by the emulator of the link this case crosses (None: no emulator process)."""
        ...

    def link_idle_so_far(self, case: Case, upstream: bool, at: float) -> float | None:
        """Seconds the line of the link this case crosses, toward the server (`upstream`) or back, has sat idle up
        to `at` (time.perf_counter), by the emulator's own account; None: no emulator, or a link without a rate."""
        ...

    def server_log_tail(self) -> list[str]: ...

    def client_endpoint(self, case: Case) -> ClientEndpoint | None:
        """Where a client driver (clientparts/) connects for this case, on its own: an embedded server's listener;
        None where it cannot (a real host is reached through the user's own ssh setup only)."""
        ...

    def server_said(self, peer_port: int) -> ServerSaid | None:
        """What the server logged of the connection from `peer_port`, once it has ended, where that connection
        asked for it (servers/inetd.LOGGED) and the server can say (None: it cannot, or said nothing)."""
        ...

    def client_argv(self, argv: list[str]) -> list[str]:
        """The final ssh argv of a connection, as started: a reproduced slow login (--slow-login gssapi) runs the
        client in a mount namespace of its own; otherwise `argv` as it is. Applied last, once every option is
        in (measure/connection.py)."""
        ...

    def identity(self, case: Case, kind: str) -> str | None:
        """The private key file of client key type `kind` (--user-keys) to log in with, where this target can
        give one (the embedded OpenSSH server makes and authorizes it); None where it cannot (a real host is
        logged in with the user's own keys, which sshbench never picks among)."""
        ...

    def tcp_ends(self, link: str) -> TcpEnds | None:
        """Where the raw TCP control's sockets go for this link (None: loopback)."""
        ...

    def check_alive(self) -> None:
        """Raise RunStopped when the way to the server is gone for good (a dead link emulator), so the run stops
        at once with that reason instead of failing every later sample at its timeout."""
        ...


class UserSetupOnly:
    """What a target reached through the user's own ssh setup alone (a real host) says to a client driver: no
    endpoint of its own to connect to, no server log of ours to read."""

    def client_endpoint(self, case: Case) -> ClientEndpoint | None:
        return None

    def server_said(self, peer_port: int) -> ServerSaid | None:
        return None


# Every connection sshbench makes to a real host is a connection of its own, whatever the user's ssh config says:
# with ControlMaster auto there, the first probe would start a master (ControlPersist: outliving the run) and every
# later sample would be a session over it, with its algorithms, not the case's. Given before the config's, these
# win (ssh takes the first value of an option); a reused short command puts its own ControlPath first
# (measure/masters.py), and a fresh one (measure/command.py) and every login of --logins say it too.
OWN_CONNECTION = ("-o", "ControlMaster=no", "-o", "ControlPath=none")

NONE = "none"  # the none cipher and none MAC (HPN-SSH's): switched to after login, never named in Ciphers


def algorithm_options(case: Case, program: str = "ssh") -> list[str]:
    """`-o` options that pin the algorithms a case asks for; the rest stay at ssh's defaults. The none cipher
    is not asked for by name: the client `program` switches to it after login, with the options its
    implementation declares (implementations/: none_cipher_client), which the server must allow."""
    argv: list[str] = []
    if case.cipher == NONE:
        client = by_program(program)
        switches = [*client.none_cipher_client, *(client.none_mac_client if case.mac == NONE else ())]
        argv += [word for option in switches for word in ("-o", option)]
    for keyword, value in (("Ciphers", case.cipher), ("MACs", case.mac),
                           ("KexAlgorithms", case.kex), ("HostKeyAlgorithms", case.hostkey)):
        if value and value != NONE:
            argv += ["-o", f"{keyword}={value}"]
    return argv


class EmbeddedServer(Protocol):
    """A private server on loopback, started and removed by sshbench, one process per connection.

    Implementations live in targets/servers/ (one module each) and are named
    in targets/servers/__init__.py's registry.
    """

    name: str  # the launcher's registry name ("openssh"): recorded in the results
    # Whether it takes --sshd (an OpenSSH-style server binary); others find their own programs
    takes_sshd: bool
    per_connection: str  # how each connection is served and its CPU measured, for the results
    # The channel receive window its command line sets (a window variant, --server dropbear:window=4MiB), in bytes;
    # None: its implementation's own
    receive_window: int | None
    # The server's command line as it ran (/proc/PID/cmdline of its first connection's server); empty: not read
    command: tuple[str, ...]
    client: ClientInfo
    port: int
    defaults: AlgorithmLists  # what this server offers with no algorithm settings (its compiled-in lists)

    @property
    def implementation(self) -> Implementation:
        """What it runs (implementations/): advice, drop-ins, the lock-out check and windows follow this, never
        the launcher's name."""
        ...

    @property
    def info(self) -> ServerInfo:
        """Path, version and the algorithms enabled; valid once started."""
        ...

    @property
    def address(self) -> str: ...

    @property
    def workdir(self) -> str:
        """The server's private (0700) directory; the run keeps its payload pattern there too."""
        ...

    @property
    def client_config(self) -> str:
        """An ssh_config file whose HOST_ALIAS reaches this server with its own key and known_hosts."""
        ...

    @property
    def strangers(self) -> int:
        """Connections refused because sshbench did not open them."""
        ...

    @property
    def expect_dir(self) -> str:
        """The private dir where our connections announce their source port (servers/inetd.py)."""
        ...

    def listen_also(self, listener: socket.socket, peers: frozenset[str],
                    congestion: Mapping[str, str] | None = None) -> None:
        """Also serve `listener` (made in an emulated link's namespace) for our connections from `peers`, with
        the congestion control `congestion` names for a peer address (a link's cc=)."""
        ...

    def __enter__(self) -> EmbeddedServer: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...

    def connect(self, timeout: float = 10.0) -> socket.socket: ...

    def server_process(self, peer_port: int, timeout: float = SERVER_EXIT_SECONDS) -> ServerProcess | None: ...

    def server_cpu_so_far(self, peer_port: int) -> float | None: ...

    def server_pid(self, peer_port: int) -> int | None: ...

    def log_tail(self, lines: int = 5) -> list[str]: ...

    def endpoint(self) -> ClientEndpoint:
        """How a client driver reaches this server on its own (ClientEndpoint)."""
        ...

    def server_said(self, peer_port: int) -> ServerSaid | None:
        """What this server logged of a connection announced LOGGED (servers/inetd.py); None where it logs
        nothing of it. Read once: the connection's log is removed."""
        ...

    def client_argv(self, argv: list[str]) -> list[str]:
        """A client's ssh argv as this server's run needs it (a reproduced slow login may change it)."""
        ...

    def identity(self, kind: str) -> str | None:
        """A client key of type `kind` this server authorizes (--user-keys), made on first use; None where it
        cannot (its users' keys are not its to choose)."""
        ...

    def place(self, cpus: frozenset[int] | None) -> None:
        """Fork every later connection's server onto `cpus` (None: anywhere; plumbing/placement.py)."""
        ...

    def check_dropin(self, text: str) -> subprocess.CompletedProcess[str]:
        """Validate a server config drop-in with this server's own checker (sshd -t for OpenSSH)."""
        ...
