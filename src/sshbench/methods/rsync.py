"""rsync over ssh (-e), with the same ssh options the other tools get."""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Mapping
from types import MappingProxyType

from sshbench.methods.base import Endpoint, Ssh, Transfer, Untuned, ssh_command


class Rsync(Untuned):
    name = "rsync"
    label = "rsync"
    help = ""
    moves_files = True
    packages: Mapping[str, str] = MappingProxyType({"rsync": "rsync"})

    def unavailable(self) -> str | None:
        return None if shutil.which("rsync") else "rsync is not installed (Debian package rsync)"

    def transfer(self, ssh: Ssh, source: Endpoint, dest: Endpoint, directory: bool, workdir: str) -> Transfer:
        to_device = ["--inplace", "--write-devices"] if dest.is_null else []  # --sink null
        slash = "/" if directory else ""
        return Transfer.command("rsync", *(["-r"] if directory else []), *to_device, "-e",
                                shlex.join(ssh_command(ssh)), ssh.spelled(source) + slash, ssh.spelled(dest) + slash)

    def in_flight(self, channel_window: int | None) -> int | None:
        return channel_window
