"""Which host key types the user's known_hosts already holds for a real host, read only, never changed.

The host key sweep connects once per host key algorithm. A key type the
user has never accepted for that host would be a new, unverified key:
ssh refuses it in BatchMode ("Host key verification failed", or a warning
about a key of a different type) and sshbench must not accept it for the
user. So those algorithms are skipped before anything connects, with how
to add the key after checking it. Lookups use `ssh-keygen -F`, which
understands hashed entries, and the files and host name `ssh -G` reports.
"""

from __future__ import annotations

import os
import subprocess

from sshbench.plumbing import procs

# Host key (signature) algorithm -> the key type a known_hosts line names
_KEY_TYPE = {"rsa-sha2-256": "ssh-rsa", "rsa-sha2-512": "ssh-rsa"}
KEYSCAN_TYPE = {"ssh-rsa": "rsa", "ssh-ed25519": "ed25519", "ssh-dss": "dsa", "ecdsa-sha2-nistp256": "ecdsa",
                "ecdsa-sha2-nistp384": "ecdsa", "ecdsa-sha2-nistp521": "ecdsa"}
LAX = ("no", "off")  # StrictHostKeyChecking values under which ssh accepts any key: nothing to skip


def key_type(algorithm: str) -> str:
    """The known_hosts key type an algorithm's host key has (rsa-sha2-512 -> ssh-rsa)."""
    return _KEY_TYPE.get(algorithm, algorithm)


def lookup_name(host: str, port: int, alias: str | None) -> str:
    """How known_hosts names this host: the HostKeyAlias if set, [host]:port for a port other than 22."""
    name = alias or host
    return name if port == 22 else f"[{name}]:{port}"


def known_types(keygen: str, name: str, files: list[str], strict: str) -> set[str] | None:
    """The key types known for `name` in `files`; None when it cannot be told (skip nothing then).

    None: StrictHostKeyChecking off (any key is accepted), a @cert-authority
    line (certificates, not keys, decide), or no file could be read.
    """
    if strict.lower() in LAX:
        return None
    found: set[str] = set()
    read_any = False
    for path in files:
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            continue
        try:
            done = procs.run_text([keygen, "-F", name, "-f", path], timeout=20)
        except subprocess.TimeoutExpired:
            return None
        read_any = True
        for line in done.stdout.splitlines():
            fields = line.split()
            if not fields or line.startswith("#"):
                continue
            if fields[0] == "@cert-authority":
                return None
            if fields[0] == "@revoked" or len(fields) < 3:
                continue
            found.add(fields[1])
    return found if read_any else None


def skip_reason(algorithm: str, name: str, host: str, port: int) -> str:
    kind = key_type(algorithm)
    scan = KEYSCAN_TYPE.get(kind, kind)
    return (f"no {kind} host key for {name} in your known_hosts, and sshbench never accepts one blindly; after "
            f"checking its fingerprint, add it (ssh-keyscan -t {scan} -p {port} {host} >> ~/.ssh/known_hosts) or "
            "let UpdateHostKeys learn it, then run again")
