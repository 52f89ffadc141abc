"""rsync over ssh (-e), with the same ssh options the other tools get."""

from __future__ import annotations

import shlex
import shutil

from sshbench.measure.methods.base import NULL, ssh_options
from sshbench.results.model import Case
from sshbench.targets.base import Target


class Rsync:
    name = "rsync"
    label = "rsync"
    moves_files = True

    def unavailable(self) -> str | None:
        return None if shutil.which("rsync") else "rsync is not installed (Debian package rsync)"

    def argv(self, target: Target, case: Case, source: str, dest: str, directory: bool, workdir: str,
             compression: bool) -> list[str]:
        to_device = ["--inplace", "--write-devices"] if dest.endswith(NULL) else []  # --sink null
        return ["rsync", *(["-r"] if directory else []), *to_device,
                "-e", shlex.join([target.ssh_program, *ssh_options(target, case, compression)]),
                source + ("/" if directory else ""), dest + ("/" if directory else "")]
