"""`sshbench clients install NAME|all`: build the compiled driver of a measured client (clientparts/) into the venv's
opt/, once, so that `--client NAME` runs offline (targets/driverbuild.py builds it; `make clients` is `clients
install all`).

Why a command of its own: a run never builds or fetches anything, and a client whose driver is not built is
refused by name with this command (exit 3). Under `all` a client whose toolchain is missing is skipped with one
line, as the test clients' builder skips one (scripts/test_clients.py), so `make clients` and `make test` pass on a
machine without Go and measure what is there; named, it is exit 3 with what to install.
"""

from __future__ import annotations

import argparse

from sshbench.cli.context import Context
from sshbench.clientparts import CLIENTS
from sshbench.targets.driverbuild import NoToolchain, install
from sshbench.vocabulary.errors import ExitCode, MissingToolError, UsageError


def cmd_install(args: argparse.Namespace, ctx: Context) -> int:
    everything = "all" in args.names
    for name in args.names:
        if name != "all" and name not in CLIENTS:
            raise UsageError(f"clients install: no client {name!r}; sshbench measures {', '.join(CLIENTS)} (or: all)")
    parts = [part for part in CLIENTS.values() if part.built is not None] if everything else \
        [CLIENTS[name] for name in dict.fromkeys(args.names)]
    for part in parts:
        if part.built is None:  # named: a client sshbench does not build; say how it is installed instead
            why = part.unavailable()
            if why is not None:
                raise MissingToolError(f"clients install {part.name}: sshbench builds no driver for it: {why}")
            ctx.say(f"{part.name}: nothing to build ({part.title} is ready)")
            continue
        try:
            install(part, ctx.say)
        except NoToolchain as exc:
            if not everything:
                raise
            ctx.say(f"{part.name} skipped: {exc}")
    return int(ExitCode.OK)
