"""sftp in batch mode, with its two throughput knobs: -B (bytes per request) and -R (requests in flight)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from types import MappingProxyType

from sshbench.methods.base import Endpoint, Knob, Ssh, Transfer

# OpenSSH's sftp defaults (sftp(1): -B 32768, -R 64): a tuned variant equal to these is plain sftp.
DEFAULT_BUFFER = 32768
DEFAULT_REQUESTS = 64
_TUNED = re.compile(r"sftp-B(\d+)-R(\d+)")
BUFFERS = Knob("--sftp-buffers", "sftp -B sweep, e.g. 32KiB,128KiB,255KiB (sftp's default 32768)", sizes=True)
REQUESTS = Knob("--sftp-requests", "sftp -R sweep, e.g. 64,256 (sftp's default 64)")


class Sftp:
    """Plain sftp, or sftp with -B/-R, written "sftp-B<buffer>-R<requests>" so it gets its own case id."""

    moves_files = True
    packages: Mapping[str, str] = MappingProxyType({"sftp": "openssh-client"})
    knobs: tuple[Knob, ...] = (BUFFERS, REQUESTS)

    def __init__(self, buffer: int | None = None, requests: int | None = None) -> None:
        self.buffer, self.requests = buffer, requests
        tuned = buffer is not None and requests is not None
        self.name = f"sftp-B{buffer}-R{requests}" if tuned else "sftp"
        self.label = f"sftp -B {buffer} -R {requests}" if tuned else "sftp"
        self.help = ""

    def variant(self, name: str) -> Sftp | None:
        """A tuned sftp from its name, or None if the name is not one."""
        match = _TUNED.fullmatch(name)
        return Sftp(int(match.group(1)), int(match.group(2))) if match else None

    def unavailable(self) -> str | None:
        return None if shutil.which("sftp") else "sftp is not installed (Debian package openssh-client)"

    def transfer(self, ssh: Ssh, source: Endpoint, dest: Endpoint, directory: bool, workdir: str) -> Transfer:
        """sftp reads its commands from a batch file: one put (upload) or get (download), paths quoted."""
        upload = dest.remote
        batch = os.path.join(workdir, "sftp-batch")
        local, remote = (source, dest) if upload else (dest, source)
        verb = "put" if upload else "get"
        with open(batch, "w", encoding="utf-8") as fh:
            first, second = (local.path, remote.path) if upload else (remote.path, local.path)
            fh.write(f'{verb}{" -r" if directory else ""} "{first}" "{second}"\n')
        knobs = ["-B", str(self.buffer), "-R", str(self.requests)] if self.buffer is not None else []
        return Transfer.command("sftp", "-b", batch, *knobs, "-S", ssh.program, *ssh.options, ssh.host)

    def in_flight(self, channel_window: int | None) -> int | None:
        """sftp keeps -R requests of -B bytes in flight (sftp(1): 64 x 32768), inside the channel's window."""
        own = (self.buffer or DEFAULT_BUFFER) * (self.requests or DEFAULT_REQUESTS)
        return own if channel_window is None else min(channel_window, own)

    def variants(self, settings: Mapping[str, tuple[int, ...]]) -> tuple[str, ...]:
        """The tuned sftp methods of an -B x -R sweep; the combination equal to sftp's defaults is plain sftp."""
        buffers, requests = settings.get(BUFFERS.key, ()), settings.get(REQUESTS.key, ())
        if not buffers and not requests:
            return (self.name,)
        out = []
        for buffer in buffers or (DEFAULT_BUFFER,):
            for count in requests or (DEFAULT_REQUESTS,):
                out.append("sftp" if (buffer, count) == (DEFAULT_BUFFER, DEFAULT_REQUESTS) else
                           f"sftp-B{buffer}-R{count}")
        return tuple(dict.fromkeys(out))
