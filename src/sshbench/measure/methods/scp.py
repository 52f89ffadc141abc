"""scp, as shipped: the SFTP protocol since OpenSSH 9.0, or the legacy SCP/RCP protocol with -O."""

from __future__ import annotations

import re
import shutil
import subprocess

from sshbench.measure import procs
from sshbench.measure.methods.base import ssh_options
from sshbench.results.model import Case
from sshbench.targets.base import Target


def scp_has_legacy_flag(scp: str) -> bool:
    """OpenSSH 9.0+ scp takes -O for the legacy protocol; older ones only speak it (and reject -O)."""
    try:
        usage = procs.run_text([scp, "-O"], timeout=10).stderr
    except subprocess.TimeoutExpired:
        return False
    flags = re.search(r"usage: scp \[-([0-9A-Za-z]+)\]", usage)
    return bool(flags and "O" in flags.group(1))


class Scp:
    moves_files = True

    def __init__(self, legacy: bool = False) -> None:
        self.legacy = legacy
        self.name = "scp-legacy" if legacy else "scp"
        self.label = "scp -O" if legacy else "scp"

    def unavailable(self) -> str | None:
        path = shutil.which("scp")
        if path is None:
            return "scp is not installed (Debian package openssh-client)"
        if self.legacy and not scp_has_legacy_flag(path):
            return "this scp has no -O flag (OpenSSH before 9.0 speaks only the legacy protocol: use scp)"
        return None

    def argv(self, target: Target, case: Case, source: str, dest: str, directory: bool, workdir: str,
             compression: bool) -> list[str]:
        return ["scp", *(["-O"] if self.legacy else []), *(["-r"] if directory else []),
                "-S", target.ssh_program, *ssh_options(target, case, compression), source, dest]
