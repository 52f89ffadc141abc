"""The embedded servers sshbench can start, by name: one module each, one line here.

Each implements targets.base.EmbeddedServer: a private server on loopback,
one process per connection (servers/inetd.py), started and removed by
sshbench, that serves only connections sshbench opened itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from sshbench.results.environment import DEFAULT_EMBEDDED
from sshbench.targets.base import EmbeddedServer
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.dropbear import EmbeddedDropbear
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.targets.servers.tinysshd import EmbeddedTinysshd
from sshbench.vocabulary.errors import UsageError

DEFAULT = DEFAULT_EMBEDDED  # the embedded server without --server, and the one that checks a drop-in (sshd -t)


class Launcher(Protocol):
    """A launcher class: its name, whether it takes --sshd, and its constructor (client, server binary or None for
    the default, extra environment). What it runs each one declares itself (EmbeddedServer.implementation)."""

    name: str
    takes_sshd: bool

    @property
    def slow_logins(self) -> frozenset[str]:
        """The classic slow logins it reproduces (--slow-login: targets/servers/stalls.py)."""
        ...

    @property
    def user_keys(self) -> frozenset[str]:
        """The client key types (--user-keys) a client can log in with on it."""
        ...

    def __call__(self, client: ClientInfo, path: str | None = None, /, *,
                 env: Mapping[str, str] | None = None) -> EmbeddedServer: ...


SERVERS: dict[str, Launcher] = {launcher.name: launcher for launcher in (
    EmbeddedOpenSSH, EmbeddedDropbear, EmbeddedTinysshd)}


def embedded_server(name: str, client: ClientInfo, path: str | None = None,
                    env: Mapping[str, str] | None = None, slow_login: str | None = None) -> EmbeddedServer:
    """A new (not yet started) embedded server; use it as a context manager. `slow_login`: OpenSSH's only."""
    try:
        make = SERVERS[name]
    except KeyError:
        raise UsageError(f"unknown embedded server {name!r}: use one of {', '.join(SERVERS)}") from None
    if slow_login is not None and slow_login not in make.slow_logins:
        raise UsageError(f"--slow-login {slow_login}: reproduced in the embedded OpenSSH server only, not in {name}; "
                         "leave --server out, or --slow-login")
    return make(client, path, env=env or {}, **({"slow_login": slow_login} if slow_login else {}))


def takes_sshd(name: str) -> bool:
    """Whether the launcher called `name` runs an sshd that --sshd may name (its declaration, not its name)."""
    return name in SERVERS and SERVERS[name].takes_sshd
