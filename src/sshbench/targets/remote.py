"""A real host as the target: the user's own ssh setup, unchanged, in BatchMode, and nothing left behind.

sshbench never writes to the user's config, known_hosts or the server. It
runs the user's `ssh` with their config (or `--ssh-config FILE`), adding only
`-v` (to read what was negotiated), BatchMode (never a password or host-key
prompt), a connect timeout and the algorithms of the case. The remote side
is the same POSIX sh protocol as for the embedded server; on Linux servers it
also reads the CPU of the server's session process from /proc.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sshbench.plumbing import procs
from sshbench.plumbing.kexinit import Kexinit, KexinitError, read_client_kexinit, read_server_kexinit
from sshbench.results.environment import RemoteFacts, ServerFacts, ServerKind, TerrapinFacts, terrapin_report
from sshbench.results.model import Case
from sshbench.targets.base import OWN_CONNECTION, FileOps, ServerProcess, UserSetupOnly, algorithm_options
from sshbench.targets.discovery import ClientInfo, find_tool
from sshbench.targets.known_hosts import key_type, known_types, lookup_name, skip_reason
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.errors import ServerError, UsageError
from sshbench.vocabulary.units import format_bytes
from sshbench.vocabulary.untrusted import UntrustedText, clean, destination, stripped

RTT_PROBES = 5
SYSTEM_MARK = "SSHBENCH-SYSTEM"  # the preflight's line: `uname -s` follows it
_SYSTEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./ -]{0,63}")


@dataclass(frozen=True)
class Destination:
    """What `ssh -G` resolved the user's destination to, through their own config."""

    given: str  # as typed: alias, host, user@host (a :port suffix is split off into port_option)
    port_option: int | None
    hostname: str
    port: int
    user: str
    proxied: bool  # ProxyJump or ProxyCommand: we cannot open a TCP connection of our own to it
    known_hosts_files: tuple[str, ...] = ()  # UserKnownHostsFile and GlobalKnownHostsFile, as ssh -G says
    host_key_alias: str | None = None
    strict_host_key_checking: str = "ask"


def parse_destination(text: str) -> tuple[str, int | None]:
    """'user@host:2222' -> ('user@host', 2222), checked strictly (untrusted.destination); IPv6 as [::1]:2222.

    The destination reaches `ssh -G`, ssh's command line and, as a Host
    pattern, a generated config: anything but a plain user, host and port is
    refused here, before any of them.
    """
    try:
        user, host, port = destination(text)
    except UntrustedText as exc:
        raise UsageError(f"bad destination: {exc}") from None
    return (f"{user}@{host}" if user else host), port


def host_pattern(destination_text: str | None) -> str:
    """The ssh_config Host pattern a recommendation for this destination goes under ("*" for the embedded server).

    The host as typed, without user@ and :port, so the block matches the same alias or host name again.
    """
    if not destination_text:
        return "*"
    return parse_destination(destination_text)[0].rpartition("@")[2]


def config_options(ssh_config: str | None) -> list[str]:
    return ["-F", ssh_config] if ssh_config else []


def connect_options(ssh_config: str | None) -> list[str]:
    """The user's ssh config, and a connection of sshbench's own (OWN_CONNECTION)."""
    return [*config_options(ssh_config), *OWN_CONNECTION]


def resolve(ssh: str, text: str, ssh_config: str | None) -> Destination:
    given, port = parse_destination(text)
    argv = [ssh, *config_options(ssh_config), *(["-p", str(port)] if port else []), "-G", given]
    try:
        done = procs.run_text(argv, timeout=20)
    except subprocess.TimeoutExpired:
        raise UsageError(f"ssh -G {given} did not finish within 20 s: check your ssh config (a Match exec that "
                         "hangs?)") from None
    if done.returncode != 0:
        last = clean((done.stderr.strip().splitlines() or [""])[-1])
        raise UsageError(f"ssh -G {given} failed: {last}; check the destination and your ssh config")
    values: dict[str, str] = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        values.setdefault(key.lower(), value)
    proxied = values.get("proxyjump", "none") != "none" or values.get("proxycommand", "none") != "none"
    files = tuple(os.path.expanduser(f) for key in ("userknownhostsfile", "globalknownhostsfile")
                  for f in values.get(key, "").split())
    return Destination(given, port, values.get("hostname", given), int(values.get("port", "22")),
                       values.get("user", ""), proxied, files, values.get("hostkeyalias"),
                       values.get("stricthostkeychecking", "ask"))


_SAFE = re.compile(r"/[A-Za-z0-9_./-]+")


def parse_df(output: str) -> int | None:
    """Available bytes from `df -Pk DIR` (POSIX format: 1024-byte blocks, one line per filesystem).

    None when the output is not that (a df without -P): the check is then skipped, not guessed.
    """
    lines = [line.split() for line in output.strip().splitlines()]
    if len(lines) < 2 or len(lines[-1]) < 6 or not lines[-1][3].isdigit():
        return None
    return int(lines[-1][3]) * 1024


class RemoteFiles:
    """The server's side of the file methods, in POSIX sh over the user's ssh, outside the timing.

    Everything lives in one `mktemp -d` directory, and only paths inside it
    are ever removed; the directory goes at the end of the run.
    """

    def __init__(self, run: Callable[[str, bytes | None], str], label: str, workdir: str | None = None) -> None:
        self._run = run
        self._label = label  # the host, for error messages
        self._workdir = workdir  # --remote-workdir; default the server's $TMPDIR or /tmp
        self._root: str | None = None

    def _inside(self, path: str) -> str:
        if self._root is None or not _SAFE.fullmatch(path) or not (path + "/").startswith(self._root + "/") \
                or "/../" in path:
            raise ValueError(f"refusing to touch {path!r} on the server: not inside sshbench's temp dir")
        return path

    def make_dir(self, parent: str, room: int) -> str:
        base = self._workdir or "${TMPDIR:-/tmp}"
        made = self._run(f'mktemp -d "{base}/sshbench-XXXXXXXX"', None).strip()
        if not _SAFE.fullmatch(made):
            raise ServerError(f"the server's mktemp -d gave {made!r}; need a plain path")
        self._root = made
        free = parse_df(self._run(f"df -Pk {made}", None))
        if free is not None and free < room:
            self.remove(made)
            self._root = None
            raise UsageError(f"not enough free space on {self._label} in {made.rsplit('/', 1)[0]}: the file test "
                             f"needs {format_bytes(room)} there (the download source and one received copy), "
                             f"{format_bytes(free)} is free; use --remote-workdir on a larger filesystem, a smaller "
                             "--size, or --sink null")
        return made

    def size(self, path: str) -> tuple[int, int] | None:
        out = self._run(f"[ -e {self._inside(path)} ] || {{ echo MISSING; exit 0; }}; "
                        f"find {path} -type f -exec wc -c {{}} +", None)
        if out.strip() == "MISSING":
            return None
        sizes = [int(line.split()[0]) for line in out.splitlines()
                 if len(line.split()) == 2 and line.split()[1].startswith(path)]
        return sum(sizes), len(sizes)

    def sha256(self, path: str) -> str:
        out = self._run(f"cd {self._inside(path)} 2>/dev/null && {{ find . -type f | LC_ALL=C sort | "
                        f"xargs sha256sum; }} || sha256sum {path}", None)
        lines = [line.split(None, 1) for line in out.splitlines() if line.strip()]
        if len(lines) == 1 and lines[0][1].strip() == path:
            return lines[0][0]
        outer = hashlib.sha256()
        for digest, name in lines:  # the same form as testfiles.tree_sha256
            outer.update(f"{name.strip().removeprefix('./')}\0{digest}\n".encode())
        return outer.hexdigest()

    def remove(self, path: str) -> None:
        self._run(f"rm -rf -- {self._inside(path)}", None)

    def place(self, local_source: str, path: str) -> None:
        """Send the download source once: a file through `cat`, a set through tar."""
        target = self._inside(path)
        if os.path.isdir(local_source):
            packed = procs.run(["tar", "-C", local_source, "-cf", "-", "."], timeout=600)
            if packed.returncode != 0:
                raise ServerError(f"tar could not pack the test files: {clean(packed.stderr.decode()[-200:])}")
            archive = packed.stdout
            self._run(f"mkdir {target} && tar -C {target} -xf -", archive)
        else:
            with open(local_source, "rb") as fh:
                self._run(f"cat > {target}", fh.read())


class RemoteTarget(UserSetupOnly):
    """A real server reached with the user's ssh; server CPU from /proc when the host has it."""

    server_cpu_exact = False
    tool_env: Mapping[str, str] = MappingProxyType({})  # the user's environment, as it is

    def __init__(self, ssh: str, dest: Destination, ssh_config: str | None, connect_timeout: float,
                 workdir: str | None = None) -> None:
        self.ssh_program = ssh
        self.dest = dest
        self.destination = dest.given
        self.ssh_config = ssh_config
        self.connect_timeout = connect_timeout
        self.files: FileOps = RemoteFiles(self.run_command, dest.given, workdir)

    def command_argv(self, command: str, *extra: str) -> list[str]:
        """ssh running one command on the server with the user's setup, in BatchMode; `extra` ssh options."""
        return [self.ssh_program, *connect_options(self.ssh_config), "-o", "BatchMode=yes",
                "-o", f"ConnectTimeout={max(1, round(self.connect_timeout))}", *extra,
                *self._port(), self.destination, command]

    def run_command(self, command: str, stdin: bytes | None = None) -> str:
        """One housekeeping command on the server (never timed); a failure ends the run."""
        argv = self.command_argv(command)
        try:
            done = procs.run(argv, timeout=max(60.0, self.connect_timeout * 4),
                             input=stdin if stdin is not None else b"")
        except subprocess.TimeoutExpired:
            raise ServerError(f"{self.destination}: housekeeping command timed out: {command[:60]}") from None
        if done.returncode != 0:
            last = clean((done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[-1])
            raise ServerError(f"{self.destination}: `{command[:60]}` failed: {last}")
        return done.stdout.decode(errors="replace")

    def _port(self) -> list[str]:
        """`-o Port=`, which ssh, scp, sftp and rsync's ssh all read (scp's -p means something else)."""
        return ["-o", f"Port={self.dest.port_option}"] if self.dest.port_option else []

    def check_alive(self) -> None:
        """A real host's path is not ours to watch: its samples fail (and the run stops) on their own."""

    def tcp_ends(self, link: str) -> None:
        """No raw TCP control to a real host from here (iperf3 is its reference, measure/iperf.py)."""
        return None

    def tool_ssh_options(self, case: Case) -> list[str]:
        return [*connect_options(self.ssh_config), "-v", "-o", "BatchMode=yes",
                "-o", f"ConnectTimeout={max(1, round(self.connect_timeout))}",
                *self._port(), *algorithm_options(case)]

    def link_cpu_so_far(self, case: Case) -> float | None:
        return None  # a real link has no emulator

    def link_idle_so_far(self, case: Case, upstream: bool, at: float) -> float | None:
        return None

    def program_for(self, case: Case) -> str:
        return self.ssh_program

    def ssh_argv(self, case: Case, remote_command: str) -> list[str]:
        return [self.ssh_program, *self.tool_ssh_options(case), self.destination, remote_command]

    def server_process(self, peer_port: int) -> ServerProcess | None:
        return None

    def server_cpu_so_far(self, peer_port: int) -> float | None:
        return None

    def server_pid(self, peer_port: int) -> int | None:
        return None  # the server runs elsewhere

    def client_argv(self, argv: list[str]) -> list[str]:
        return argv  # the user's own ssh, as it is

    def identity(self, case: Case, kind: str) -> str | None:
        return None  # the user's own keys, as their ssh config offers them

    def server_log_tail(self) -> list[str]:
        return []

    def preflight(self, timeout: float) -> str:
        """One plain connection running `uname -s` after a marker: refuses clearly before anything is measured."""
        argv = [self.ssh_program, *connect_options(self.ssh_config), "-o", "BatchMode=yes",
                "-o", f"ConnectTimeout={max(1, round(self.connect_timeout))}",
                *self._port(), self.destination, f'echo {SYSTEM_MARK} "$(uname -s)"']
        try:
            done = procs.run_text(argv, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ServerError(f"{self.destination} did not answer within {timeout:.0f} s (the connection opened but "
                              "no SSH session started); check the host, or raise --timeout") from None
        if done.returncode != 0:
            last = clean((done.stderr.strip().splitlines() or ["no message"])[-1])
            raise ServerError(f"ssh {self.destination} failed: {last}; {_advice(last)}")
        if SYSTEM_MARK not in done.stdout:
            raise ServerError(f"ssh {self.destination} ran, but not the command sshbench gave it (a ForceCommand or "
                              "a login shell that runs a program of its own?): sshbench's remote side needs a POSIX "
                              "shell that runs the command it is given")
        return system_of(done.stdout)


def system_of(output: str) -> str:
    """The host's `uname -s` from the probe's output: what follows the last marker, its escapes stripped (a login
    script's or a ForceCommand's lines, colours and titles before it are not the host's system); "unknown" for
    anything that is not a system's name."""
    found = [line.partition(SYSTEM_MARK)[2] for line in output.splitlines() if SYSTEM_MARK in line]
    system = stripped(found[-1]).strip() if found else ""
    return system if _SYSTEM.fullmatch(system) else "unknown"


def _advice(message: str) -> str:
    """What to do instead of the prompt BatchMode refused."""
    text = message.lower()
    if "host key verification failed" in text:
        return "connect once with plain ssh to check and accept the host key, then rerun"
    if "permission denied" in text:
        return "set up key authentication (ssh-copy-id) or load your key into ssh-agent; sshbench never asks for " \
               "a password"
    if "timed out" in text or "no route" in text or "refused" in text or "could not resolve" in text:
        return "check the host name, port and network"
    return "run the same ssh command by hand to see why"


def server_offer(dest: Destination, timeout: float) -> Kexinit | None:
    """The server's KEXINIT over our own TCP connection; None when the host is only reachable via a proxy."""
    if dest.proxied:
        return None
    try:
        return read_server_kexinit(dest.hostname, dest.port, timeout)
    except KexinitError as exc:
        raise ServerError(f"could not read {dest.hostname} port {dest.port}'s SSH offer: {exc}") from None


def round_trip_seconds(dest: Destination, probes: int = RTT_PROBES, timeout: float = 5.0) -> float | None:
    """Median TCP connect time (SYN to SYN-ACK: one round trip), when we can reach the host directly."""
    if dest.proxied:
        return None
    times = []
    for _ in range(probes):
        started = time.perf_counter()
        try:
            with socket.create_connection((dest.hostname, dest.port), timeout=timeout):
                times.append(time.perf_counter() - started)
        except OSError:
            return None
    return statistics.median(times)


@dataclass(frozen=True)
class RemoteHost:
    """A real host, resolved, logged into once and its offer read: ready to measure."""

    dest: Destination
    target: RemoteTarget
    offered: AlgorithmLists
    facts: ServerFacts
    terrapin: TerrapinFacts
    known_key_types: set[str] | None = None  # host key types the user's known_hosts holds (None: cannot tell)
    compression: tuple[str, ...] | None = None  # what the server offers (None: not read, behind a proxy)

    def hostkey_skip(self, algorithm: str) -> str | None:
        """Why the host key sweep must not try this algorithm here (its key type is not known), or None."""
        if self.known_key_types is None or key_type(algorithm) in self.known_key_types:
            return None
        name = lookup_name(self.dest.hostname, self.dest.port, self.dest.host_key_alias)
        return skip_reason(algorithm, name, self.dest.hostname, self.dest.port)


def offers(client: ClientInfo, dest: Destination, timeout: float) -> tuple[Kexinit | None, TerrapinFacts]:
    """The server's first KEXINIT (None behind a proxy) and both sides' Terrapin verdicts; no login."""
    offer = server_offer(dest, timeout)
    try:
        client_offer = read_client_kexinit(client.path)
    except KexinitError:
        client_offer = None
    return offer, terrapin_report(offer, client_offer)


def open_remote(destination: str, ssh_config: str | None, client: ClientInfo, timeout: float,
                remote_workdir: str | None) -> RemoteHost:
    """Resolve, check and read the offer of a real host, before anything is measured."""
    dest = resolve(client.path, destination, ssh_config)
    target = RemoteTarget(client.path, dest, ssh_config, connect_timeout=min(timeout, 30), workdir=remote_workdir)
    system = target.preflight(timeout=timeout)
    offer, terrapin = offers(client, dest, timeout=min(timeout, 15))
    if offer is None:  # behind ProxyJump/ProxyCommand: measure what the client knows; refusals become skips
        offered = client.supported
        terrapin.note = "server offer not read: reached via a proxy"
    else:
        offered = offer.lists
    banner = offer.banner if offer else None
    # the whole banner is kept beside the version (its comment can change per connection)
    version = offer.software_version if offer else "unknown (via proxy)"
    facts = ServerFacts(ServerKind.REMOTE, version,
                        None, remote=RemoteFacts(
                            destination=destination, hostname=dest.hostname, port=dest.port, user=dest.user,
                            via_proxy=dest.proxied, banner=banner, system=system,
                            round_trip_seconds=round_trip_seconds(dest),
                            server_cpu="the server's session process (our command's parent) from /proc on "
                                       "Linux, else unknown",
                            ssh_config=ssh_config or "your default (~/.ssh/config)"))
    known = known_types(find_tool("ssh-keygen", None), lookup_name(dest.hostname, dest.port, dest.host_key_alias),
                        list(dest.known_hosts_files), dest.strict_host_key_checking)
    return RemoteHost(dest, target, offered, facts, terrapin, known, offer.compression_s2c if offer else None)
