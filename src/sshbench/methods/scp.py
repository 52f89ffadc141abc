"""scp, as shipped: the SFTP protocol since OpenSSH 9.0, or the legacy SCP/RCP protocol with -O."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping
from types import MappingProxyType

from sshbench.methods.base import Endpoint, Ssh, Transfer, Untuned
from sshbench.plumbing import procs


def scp_has_legacy_flag(scp: str) -> bool:
    """OpenSSH 9.0+ scp takes -O for the legacy protocol; older ones only speak it (and reject -O)."""
    try:
        usage = procs.run_text([scp, "-O"], timeout=10).stderr
    except subprocess.TimeoutExpired:
        return False
    flags = re.search(r"usage: scp \[-([0-9A-Za-z]+)\]", usage)
    return bool(flags and "O" in flags.group(1))


class Scp(Untuned):
    moves_files = True
    packages: Mapping[str, str] = MappingProxyType({"scp": "openssh-client"})

    def __init__(self, legacy: bool = False) -> None:
        self.legacy = legacy
        self.name = "scp-legacy" if legacy else "scp"
        self.label = "scp -O" if legacy else "scp"
        self.help = self.label if legacy else ""

    def unavailable(self) -> str | None:
        path = shutil.which("scp")
        if path is None:
            return "scp is not installed (Debian package openssh-client)"
        if self.legacy and not scp_has_legacy_flag(path):
            return "this scp has no -O flag (OpenSSH before 9.0 speaks only the legacy protocol: use scp)"
        return None

    def transfer(self, ssh: Ssh, source: Endpoint, dest: Endpoint, directory: bool, workdir: str) -> Transfer:
        return Transfer.command("scp", *(["-O"] if self.legacy else []), *(["-r"] if directory else []),
                                "-S", ssh.program, *ssh.options, ssh.spelled(source), ssh.spelled(dest))

    def in_flight(self, channel_window: int | None) -> int | None:
        return channel_window  # one channel (scp over SFTP keeps several requests, all inside that window)
