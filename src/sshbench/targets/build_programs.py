"""Where a build's programs are: this system's (stock), a build `make ssh-builds` made, or an install prefix.

A side of a --build (vocabulary/buildspec.py) names a client program and a server
program. Builds made by scripts/ssh_builds.py live in BUILDS_DIR, one
install prefix each (`.venv/opt/builds/hpn-ssh-18.8.0`); any other prefix
is given by its path. In a prefix, the client is bin/ssh (bin/hpnssh for
HPN-SSH, which installs its programs under their own names) and the server
sbin/sshd (sbin/hpnsshd): each implementation says its programs' names
(implementations/). Nothing here runs them: discovery does, with its checks.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from sshbench.implementations import IMPLEMENTATIONS
from sshbench.vocabulary.buildspec import STOCK, BuildSpec
from sshbench.vocabulary.errors import MissingToolError

BUILDS_DIR = os.environ.get("SSHBENCH_BUILDS") or os.path.join(sys.prefix, "opt", "builds")


@dataclass(frozen=True)
class BuildPaths:
    """A build's two programs (None: this system's, as --ssh/--sshd or PATH find them)."""

    client: str | None
    server: str | None


def prefix_of(side: str) -> str | None:
    """The install prefix a side names (None: stock)."""
    if side == STOCK:
        return None
    prefix = side if "/" in side else os.path.join(BUILDS_DIR, side)
    if not os.path.isdir(prefix):
        made = sorted(os.listdir(BUILDS_DIR)) if os.path.isdir(BUILDS_DIR) else []
        known = f" (made so far: {', '.join(made)})" if made else " (none made yet: run make ssh-builds)"
        raise MissingToolError(f"--build {side}: no such build or install prefix{known}")
    return os.path.abspath(prefix)


def program(prefix: str, role: str) -> str:
    """The client ("bin") or server ("sbin") program in a prefix, under any implementation's name for it."""
    names = dict.fromkeys(getattr(impl, "client" if role == "bin" else "server") for impl in IMPLEMENTATIONS.values())
    for name in names:
        path = os.path.join(prefix, role, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise MissingToolError(f"{prefix}/{role}/ has none of {', '.join(names)}: is it an SSH install prefix?")


def build_paths(spec: BuildSpec) -> BuildPaths:
    """The programs of a build's client and server side."""
    client, server = prefix_of(spec.client), prefix_of(spec.server)
    return BuildPaths(None if client is None else program(client, "bin"),
                      None if server is None else program(server, "sbin"))
