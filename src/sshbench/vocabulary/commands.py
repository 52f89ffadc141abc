"""The short commands of `--commands`: what automation runs over SSH many times a day, each to its exit.

Why a workload of its own: for Ansible tasks, git fetches, CI deploy steps
and monitoring checks the cost is the connection, not the cipher: TCP and
SSH round trips, the key exchange, signatures, the remote shell's start-up,
the close. A sample runs one such command the way automation does, from
the client process's start to its exit (measure/pipe.py), so the figure is
what `time ssh HOST true` says.

Each command is plain POSIX sh, so it runs on any server. Its input is
written into ssh's stdin at once and closed, as `ssh HOST cmd < file` does
(an Ansible module sent with pipelining); the others get none, as
`ssh -n` or `< /dev/null`.
"""

from __future__ import annotations

from dataclasses import dataclass

KiB = 1024


@dataclass(frozen=True)
class ShortCommand:
    name: str
    remote: str  # what the remote shell runs (after sshbench's ready line)
    input_bytes: int  # written into ssh's stdin at its start, then closed
    output_bytes: int  # what the remote command prints (checked)
    words: str  # how tables and docs name it
    label: str  # how the answer names it: the command line a user would type


COMMANDS: dict[str, ShortCommand] = {c.name: c for c in (
    ShortCommand("true", "true", 0, 0, "ssh HOST true: the connection alone", "`ssh HOST true`"),
    ShortCommand("output", f"head -c {16 * KiB} /dev/zero", 0, 16 * KiB, "a command printing 16 KiB",
                 "a command printing 16 KiB"),
    ShortCommand("input", "cat >/dev/null", 64 * KiB, 0, "64 KiB piped in (an Ansible module with pipelining)",
                 "a command reading 64 KiB piped in"),
)}


def parse_commands(text: str) -> tuple[str, ...]:
    """--commands: names from COMMANDS, comma-separated, or `all`; order kept, duplicates dropped.
    Raises ValueError naming the bad one and the choices."""
    names = list(COMMANDS) if text.strip() == "all" else [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in COMMANDS:
            raise ValueError(f"--commands {name}: not a short command sshbench knows; use {', '.join(COMMANDS)} "
                             "or all")
    if not names:
        raise ValueError(f"--commands needs at least one of {', '.join(COMMANDS)}")
    return tuple(dict.fromkeys(names))


# Classic slow logins the embedded OpenSSH server can reproduce (--slow-login; targets/servers/stalls.py)
SLOW_LOGINS = {"dns": "UseDNS yes with a resolver that never answers (2 s per lookup)",
               "gssapi": "GSSAPI tried first by the client, whose Kerberos lookups go to a resolver that never answers"}


# A ControlMaster's socket: a Unix socket's path holds at most 107 bytes (its NUL aside), and ssh binds it under a
# temporary name 17 characters longer (".XXXXXXXXXXXXXXXX") before renaming it; a path ssh cannot bind fails the
# login (measure/masters.py, analysis/config/reuse_advice.py)
SOCKET_PATH_MAX = 107
SOCKET_BIND_SUFFIX = 17


def socket_path_fits(path: str) -> bool:
    """Whether ssh can bind a ControlMaster socket at `path` (tokens already expanded)."""
    return len(path.encode()) + SOCKET_BIND_SUFFIX <= SOCKET_PATH_MAX


# The one piece of advice on reusing connections in a user's own ssh: the lines the recommended config writes
# (analysis/config/reuse_advice.py) and the short-command answer quotes (render/commands.py). The socket goes in ~/.ssh
# itself, the directory the config lives in: a directory of its own would fail every login until someone made it.
CONTROL_PATH = "~/.ssh/cm-%C"
CONTROL_HASH = 40  # %C: a SHA-1 in hex
CONTROL_LINES = ("ControlMaster auto", f"ControlPath {CONTROL_PATH}", "ControlPersist 60s")


def control_socket(home: str) -> str:
    """CONTROL_PATH for a user whose home is `home`, %C expanded to its length."""
    return CONTROL_PATH.replace("~", home, 1).replace("%C", "x" * CONTROL_HASH)


@dataclass(frozen=True)
class UserKey:
    """A client key type short commands can log in with (--user-keys): how it is made, how ssh -v names it once
    the server accepted it ("Server accepts key: PATH TYPE SHA256:..."), and its words."""

    keygen: tuple[str, ...]  # ssh-keygen's arguments
    accepted: str
    words: str


USER_KEYS: dict[str, UserKey] = {
    "ed25519": UserKey(("-t", "ed25519"), "ED25519", "ed25519 key"),
    "ecdsa": UserKey(("-t", "ecdsa", "-b", "256"), "ECDSA", "ECDSA P-256 key"),
    "rsa3072": UserKey(("-t", "rsa", "-b", "3072"), "RSA", "RSA-3072 key"),
    "rsa4096": UserKey(("-t", "rsa", "-b", "4096"), "RSA", "RSA-4096 key"),
}
