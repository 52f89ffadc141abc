"""The hand side of bench/clients_vs_hand.py: each SSH client sshbench measures, driven by a small program of its
own (bench/hand_clients/) or its own command line, from one shell, against an embedded sshd of the bench's own.

Why not sshbench's drivers (clientparts/drivers/): they are what is being checked. A hand program uses its library
the way the library's users do (SSHClient.connect/exec_command, asyncssh's conn.run, Go's session.Stdin), and
plink and dbclient are run as their users run them (`plink ... 'cat >/dev/null' < FILE`). None of them announces
its source port to the server's listener (servers/inetd.py), as a user's program never does, so this server
serves every connection from the client's address (`admit_all`, as the tests' stand-ins for a real sshd do), and,
as sshbench serves dbclient's connections, without compression: dbclient always asks for zlib and has no option
against it; no other client here asks for it, so the one setting serves them all alike.

Each client gets the run's key (dbclient's converted with dropbearconvert, plink's with puttygen) and the run's
host keys, relabelled for the address it connects to (`[ADDR]:PORT` for the libraries' known_hosts, the address
alone for dbclient's, SHA256 fingerprints for plink's -hostkey), and the same cipher and MAC as sshbench's case.
Over an emulated link a direct client runs in the link's client namespace (nsenter), where the server's address
on the link is its own route; OpenSSH's ssh is the bench/hand.py pipeline (the link's ProxyCommand).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

from hand import Hand, Variant
from sshbench.targets.base import HOST_ALIAS, EmbeddedServer
from sshbench.targets.discovery import discover_client
from sshbench.targets.link.netns import NETNS_DIR
from sshbench.targets.servers.openssh import EmbeddedOpenSSH

PROGRAMS = Path(__file__).resolve().parent / "hand_clients"
PLAIN: Variant = (1, "off")  # one connection, no compression: the pipe sshbench's clients are measured on
NO_COMPRESSION = "Compression no\n"  # the hand server's drop-in (the module's docstring says why)


def go_client(tmp: str) -> str:
    """bench/hand_clients/goclient built into `tmp`, offline (GOPROXY=off: the module cache holds the release its
    go.mod pins, the one `sshbench clients install goxcrypto` fetched); SystemExit naming go's words if not."""
    out = os.path.join(tmp, "hand-goclient")
    done = subprocess.run(["go", "build", "-mod=readonly", "-trimpath", "-o", out, "."], cwd=PROGRAMS / "goclient",
                          env={**os.environ, "GOPROXY": "off", "GOFLAGS": ""}, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"the Go hand program did not build: {done.stderr.strip()[-300:]}")
    return out


class ClientsHand(Hand):
    """bench/hand.py's hand with the client chosen per call (`use`): ssh's pipeline, or a direct client's line."""

    def __init__(self, stack: contextlib.ExitStack, link: str, cipher: str, tmp: str) -> None:
        super().__init__(stack, link, cipher, "zero", tmp)
        self.cipher = cipher
        self.client, self.direction, self.mac = "openssh", "upload", "none"
        self.key = self.server.identity("ed25519") or ""
        if self.links is not None:
            path = self.links.paths[link]
            self.address, self.port = path.server_address, self.link_port
            self.inside = f"nsenter --net={shlex.quote(os.path.join(NETNS_DIR, path.client_ns))} "
        else:
            self.address, self.port, self.inside = self.server.address, self.server.port, ""
        pinned = [line.split()[1:3] for line in Path(self.server.workdir, "known_hosts").read_text().splitlines()
                  if len(line.split()) >= 3]
        self.known_hosts = os.path.join(tmp, "known_hosts")
        Path(self.known_hosts).write_text("".join(f"[{self.address}]:{self.port} {t} {b}\n" for t, b in pinned))
        self.pinned = pinned
        self.go: str | None = None
        self.nodelay = False  # the paramiko hand's socket with TCP_NODELAY (hand_clients/paramiko_hand.py says why)
        self._homes: dict[str, str] = {}

    def make_server(self, name: str) -> EmbeddedServer:
        """The embedded OpenSSH, serving every connection from the client's address, without compression."""
        del name
        self.openssh = EmbeddedOpenSSH(discover_client(), admit_all=True, dropin=NO_COMPRESSION)
        return self.openssh

    def use(self, client: str, direction: str, mac: str) -> None:
        """The client, direction and MAC (none under an AEAD cipher) the next runs take."""
        self.client, self.direction, self.mac = client, direction, mac

    def pipeline(self, variant: Variant, share: int, mark: int = 0) -> str:
        """One transfer of `share` bytes by the chosen client: an upload sends the file to `cat >/dev/null`, a
        download reads `cat < FILE` on the server and drops it here."""
        path = self._file(share)
        upload = self.direction == "upload"
        if self.client == "openssh":
            mac = f"-m {self.mac} " if self.mac != "none" else ""
            remote = "cat >/dev/null" if upload else f"cat < {shlex.quote(path)}"
            return f"{self.ssh} {mac}{HOST_ALIAS} {shlex.quote(remote)} " + (
                f"< {shlex.quote(path)}" if upload else ">/dev/null")
        local = f"< {shlex.quote(path)}" if upload and self.client in ("plink", "dbclient") else "</dev/null"
        line = self.line(upload, path)
        return f"{self.inside}{line} {local} >/dev/null"

    def line(self, upload: bool, path: str) -> str:
        """A direct client's command line, from this shell, for one transfer of `path`."""
        remote = "cat >/dev/null" if upload else f"cat < {shlex.quote(path)}"
        common = [self.address, str(self.port), self.openssh.user, self.key, self.known_hosts, self.cipher, self.mac,
                  self.direction, path]
        if self.client in ("paramiko", "asyncssh"):
            nodelay = ["nodelay"] if self.nodelay and self.client == "paramiko" else []
            return shlex.join([sys.executable, str(PROGRAMS / f"{self.client}_hand.py"), *common, *nodelay])
        if self.client == "goxcrypto":
            assert self.go is not None, "go_client() first"
            return shlex.join([self.go, *common])
        if self.client == "dbclient":
            home = self._home("dbclient")
            mac = ["-m", self.mac] if self.mac != "none" else []
            return f"HOME={shlex.quote(home)} " + shlex.join(
                ["dbclient", "-c", self.cipher, *mac, "-i", os.path.join(home, "identity"), "-p", str(self.port),
                 "-l", self.openssh.user, self.address, remote])
        if self.client == "plink":
            home = self._home("plink")
            keys = [arg for _, fingerprint in self._fingerprints() for arg in ("-hostkey", fingerprint)]
            return f"HOME={shlex.quote(home)} PUTTYDIR={shlex.quote(home)} " + shlex.join(
                ["plink", "-batch", "-ssh", "-noagent", "-noshare", "-T", "-P", str(self.port), "-l",
                 self.openssh.user, "-i", os.path.join(home, "identity.ppk"), *keys, self.address, remote])
        raise SystemExit(f"no hand program for client {self.client!r}")

    def _home(self, client: str) -> str:
        """A HOME of the bench's own for a client program that reads one (its key converted, its known_hosts):
        the real ~/.ssh and ~/.putty are never read or written."""
        if client not in self._homes:
            home = os.path.join(self.tmp, f"{client}-home")
            os.makedirs(os.path.join(home, ".ssh"), mode=0o700)
            if client == "dbclient":  # dbclient matches the address alone, and reads Dropbear's key format only
                Path(home, ".ssh", "known_hosts").write_text("".join(f"{self.address} {t} {b}\n"
                                                                     for t, b in self.pinned))
                argv = ["dropbearconvert", "openssh", "dropbear", self.key, os.path.join(home, "identity")]
            else:
                argv = ["puttygen", self.key, "-O", "private", "-o", os.path.join(home, "identity.ppk")]
            done = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                                  env={**os.environ, "HOME": home, "PUTTYDIR": home})
            if done.returncode != 0:
                raise SystemExit(f"{argv[0]} could not convert the run's key: {done.stderr.strip()[-300:]}")
            self._homes[client] = home
        return self._homes[client]

    def _fingerprints(self) -> list[tuple[str, str]]:
        """(key type, SHA256 fingerprint) of each pinned host key, as ssh-keygen -l prints them."""
        done = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", self.known_hosts], capture_output=True,
                              text=True, timeout=30, check=True)
        return [(line.split()[-1], line.split()[1]) for line in done.stdout.splitlines() if "SHA256:" in line]

    def spread(self, size: int, repeats: int) -> tuple[float, float, float]:
        """(rate, lowest, highest) bytes/s from `repeats` runs at `size` and at size/4, alternating: the rate from
        the two medians (bench/hand.py `rate`: logins and process start cancel), its range from each pair's own
        difference (a pair whose large run was not the slower gives no rate, and none of the range)."""
        small = size // 4
        smalls, bigs = self.pairs(PLAIN, size, repeats)
        t_small, t_big = statistics.median(smalls), statistics.median(bigs)
        rate = (size - small) / (t_big - t_small) if t_big > t_small else float("nan")
        pairs = [(size - small) / (b - s) for s, b in zip(smalls, bigs, strict=True) if b > s] or [rate]
        return rate, min(pairs), max(pairs)
