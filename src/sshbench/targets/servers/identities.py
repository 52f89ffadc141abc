"""An embedded server's client keys beyond its ed25519 one (--user-keys): made on first use in its private 0700
directory and authorized there (OpenSSH's authorized_keys, Dropbear's private home), so a short command can log
in with each type a user might have.

Why: the client key's signature is part of every login (ssh signs, sshd verifies); RSA-4096 signs far slower
than ed25519 on most CPUs, and a bastion verifies one per login. Nothing outside the server's directory is read
or written: the user's own keys are never used.
"""

from __future__ import annotations

import os
import subprocess

from sshbench.plumbing.procs import run
from sshbench.vocabulary.commands import USER_KEYS
from sshbench.vocabulary.errors import ServerError

KEYGEN_SECONDS = 120.0  # RSA-4096 takes seconds on a slow or busy CPU


def make_identity(keygen: str, directory: str, kind: str, authorized_keys: str) -> str:
    """The private key file of `kind` in `directory`, made and authorized if it is not yet (ServerError if
    ssh-keygen fails)."""
    path = os.path.join(directory, f"client_{kind}")
    if os.path.exists(path):
        return path
    try:
        done = run([keygen, "-q", *USER_KEYS[kind].keygen, "-N", "", "-C", f"sshbench-client-{kind}", "-f", path],
                   timeout=KEYGEN_SECONDS)
    except subprocess.TimeoutExpired:
        raise ServerError(f"ssh-keygen did not make the {kind} client key within {KEYGEN_SECONDS:.0f} s") from None
    if done.returncode != 0:
        raise ServerError(f"ssh-keygen could not make the {kind} client key: "
                          f"{done.stderr.decode(errors='replace').strip()[-200:]}")
    with open(path + ".pub", encoding="utf-8") as src, open(authorized_keys, "a", encoding="utf-8") as dst:
        dst.write(src.read())
    return path
