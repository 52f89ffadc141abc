"""A client driver that is compiled, not interpreted: where its sources stand, where its build goes, and whether
the build there is of today's sources.

Why: a library in another language than sshbench's (Go's x/crypto/ssh) is driven by a program written against
it, which must be compiled before a run can start it. It is built once, by `sshbench clients install NAME` (or
`make clients`: targets/driverbuild.py runs the build), from the sources shipped in the package
(clientparts/drivers/NAME/, with their module versions pinned), into the venv's opt/ like the SSH builds
(`.venv/opt/drivers/NAME/`), and then runs offline: a run only starts the program. A stamp beside it holds the
digest of the sources it was made from, so a driver whose sources changed (an upgrade of sshbench) counts as not
built until it is built again, instead of measuring with an old program. Nothing here runs anything: it is paths
and a digest of small files, read when a part asks whether it is available.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass

DRIVERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "drivers")
# Where built drivers go: the venv's opt/, beside the SSH builds (targets/build_programs.BUILDS_DIR)
BUILT_DIR = os.environ.get("SSHBENCH_DRIVERS") or os.path.join(sys.prefix, "opt", "drivers")
STAMP = ".sshbench-build"


@dataclass(frozen=True)
class Built:
    """How a compiled driver is made, and where it is."""

    sources: str  # its directory in clientparts/drivers/: "goxcrypto" (shipped as package data)
    program: str  # the program its build makes: "sshbench-goxcrypto"
    toolchain: str  # what builds it, found on PATH: "go"
    toolchain_install: str  # how to get that toolchain where it is missing
    module: str  # the pinned module that is the client: "golang.org/x/crypto"
    release: str  # the version go.mod and go.sum pin: "0.58.0"

    @property
    def source_dir(self) -> str:
        return os.path.join(DRIVERS, self.sources)

    @property
    def directory(self) -> str:
        return os.path.join(BUILT_DIR, self.sources)

    @property
    def path(self) -> str:
        return os.path.join(self.directory, self.program)

    def digest(self) -> str:
        """The SHA-256 of its sources (every file of source_dir, by name and content, in name order)."""
        digest = hashlib.sha256()
        for name in sorted(os.listdir(self.source_dir)):
            path = os.path.join(self.source_dir, name)
            if os.path.isfile(path):
                with open(path, "rb") as fh:
                    digest.update(name.encode() + b"\0" + fh.read() + b"\0")
        return digest.hexdigest()

    def stamp(self) -> dict[str, str] | None:
        """What the build in `directory` says it was made from (None: no build, or an unreadable stamp)."""
        try:
            with open(os.path.join(self.directory, STAMP), encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return None
        return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else None

    def missing(self) -> str | None:
        """Why there is no usable build (None: there is one, made from today's sources)."""
        stamp = self.stamp()
        if stamp is None or not os.access(self.path, os.X_OK):
            return f"no {self.path}"
        if stamp.get("sources") != self.digest():
            return f"{self.path} was built from other sources than this sshbench's"
        return None
