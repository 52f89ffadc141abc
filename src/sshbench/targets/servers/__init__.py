"""The embedded servers sshbench can start, by name: one module each, one line here.

Each implements targets.base.EmbeddedServer: a private server on loopback,
one process per connection (servers/inetd.py), started and removed by
sshbench, that serves only connections sshbench opened itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol

from sshbench.implementations import WindowSetting
from sshbench.results.environment import DEFAULT_EMBEDDED
from sshbench.targets.base import EmbeddedServer
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.dropbear import EmbeddedDropbear
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.targets.servers.tinysshd import EmbeddedTinysshd
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.units import format_bytes, parse_size

DEFAULT = DEFAULT_EMBEDDED  # the embedded server without --server, and the one that checks a drop-in (sshd -t)


class Launcher(Protocol):
    """A launcher class: its name, whether it takes --sshd, and its constructor (client, server binary or None for
    the default, extra environment). What it runs each one declares itself (EmbeddedServer.implementation)."""

    name: str
    takes_sshd: bool
    # Whether its log says what a client driver's connection negotiated (servers/inetd.LOGGED), and it refuses
    # compression where the announcement asks (UNCOMPRESSED): the only proof for a client that says nothing itself
    logs_negotiation: bool

    @property
    def slow_logins(self) -> frozenset[str]:
        """The classic slow logins it reproduces (--slow-login: targets/servers/stalls.py)."""
        ...

    @property
    def user_keys(self) -> frozenset[str]:
        """The client key types (--user-keys) a client can log in with on it."""
        ...

    @property
    def window_setting(self) -> WindowSetting | None:
        """How it sets its server's receive window (a window variant, NAME:window=SIZE); None: it cannot."""
        ...

    def __call__(self, client: ClientInfo, path: str | None = None, /, *,
                 env: Mapping[str, str] | None = None) -> EmbeddedServer: ...


SERVERS: dict[str, Launcher] = {launcher.name: launcher for launcher in (
    EmbeddedOpenSSH, EmbeddedDropbear, EmbeddedTinysshd)}


def embedded_server(name: str, client: ClientInfo, path: str | None = None,
                    env: Mapping[str, str] | None = None, slow_login: str | None = None) -> EmbeddedServer:
    """A new (not yet started) embedded server, or a window variant of one by its name ("dropbear-w4194304"); use
    it as a context manager. `slow_login`: OpenSSH's only."""
    _, window = variant(name)
    make = launcher(name)
    if slow_login is not None and slow_login not in make.slow_logins:
        raise UsageError(f"--slow-login {slow_login}: reproduced in the embedded OpenSSH server only, not in {name}; "
                         "leave --server out, or --slow-login")
    return make(client, path, env=env or {}, **({"slow_login": slow_login} if slow_login else {}),
                **({"window": window} if window is not None else {}))


def takes_sshd(name: str) -> bool:
    """Whether the launcher called `name` runs an sshd that --sshd may name (its declaration, not its name)."""
    base, _ = variant(name)
    return base in SERVERS and SERVERS[base].takes_sshd


# A window variant's name (WindowSetting.named): the launcher's, "-w", the window in bytes
_VARIANT = re.compile(r"(?P<base>[a-z0-9][a-z0-9_.-]*)-w(?P<size>[1-9][0-9]{0,11})")


def variant(name: str) -> tuple[str, int | None]:
    """(launcher, receive window) of a server's name: ("dropbear", 4194304) for "dropbear-w4194304", (name, None)
    for a launcher's own name or any other text."""
    match = _VARIANT.fullmatch(name)
    if name in SERVERS or match is None or match["base"] not in SERVERS:
        return name, None
    return match["base"], int(match["size"])


def launcher(name: str) -> Launcher:
    """The launcher that starts the server `name` (a window variant's is its server's); UsageError if none."""
    base, window = variant(name)
    if base not in SERVERS:
        raise UsageError(f"unknown embedded server {name!r}: use one of {', '.join(SERVERS)}")
    if window is not None:
        _check_window(f"--server {name}", base, window)
    return SERVERS[base]


def server_entry(text: str) -> str:
    """One --server entry as the run names the server: a launcher ("dropbear"), or a window variant of one, given
    as NAME:window=SIZE or by its name ("dropbear-w4194304"); one whose window is the server's own default is the
    server itself. UsageError, naming the server and what it takes, for anything else."""
    word = text.strip()
    where = f"--server {word}"
    if ":" not in word:
        launcher(word)
        base, size = variant(word)
        if size is None:
            return word
    else:
        base, _, rest = (part.strip() for part in word.partition(":"))
        key, equals, value = (part.strip() for part in rest.partition("="))
        if base not in SERVERS:
            raise UsageError(f"{where}: unknown embedded server {base!r}: use one of {', '.join(SERVERS)}")
        if key.lower() != "window" or not equals:
            raise UsageError(f"{where}: a server's variant is NAME:window=SIZE ({window_variants()})")
        try:
            size = parse_size(value)
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
    setting = _check_window(where, base, size)
    return base if size == setting.default else setting.named(base, size)


def _check_window(where: str, base: str, size: int) -> WindowSetting:
    setting = SERVERS[base].window_setting
    if setting is None:
        raise UsageError(f"{where}: {base} has no option that sets its receive window, so it has no window variant "
                         f"({window_variants()})")
    if not setting.takes(size):
        raise UsageError(f"{where}: {base} {setting.flag} takes {setting.minimum} to {setting.maximum} bytes (at "
                         f"most {format_bytes(setting.maximum)}), not {size}")
    return setting


def window_variants() -> str:
    """The servers that have window variants, and how each is spelled."""
    able = [(name, s) for name, make in SERVERS.items() if (s := make.window_setting) is not None]
    return "; ".join(f"{name}:window=SIZE sets {name} {s.flag}: {s.minimum} to {s.maximum} bytes, at most "
                     f"{format_bytes(s.maximum)}, e.g. {name}:window=4MiB" for name, s in able) or "none has one"
