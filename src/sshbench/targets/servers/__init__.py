"""The embedded servers sshbench can start, by name: one module each, one line here.

Each implements targets.base.EmbeddedServer: a private server on loopback,
one process per connection (servers/inetd.py), started and removed by
sshbench, that serves only connections sshbench opened itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sshbench.targets.base import EmbeddedServer
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.dropbear import EmbeddedDropbear
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.targets.servers.tinysshd import EmbeddedTinysshd
from sshbench.vocabulary.errors import UsageError

DEFAULT = "openssh"  # the embedded server without --server, and the one that checks an sshd_config drop-in (sshd -t)
# name -> constructor(client, server binary or None for the default, extra environment)
SERVERS: dict[str, Callable[[ClientInfo, str | None, Mapping[str, str]], EmbeddedServer]] = {
    "openssh": lambda client, path, env: EmbeddedOpenSSH(client, path, env=env),
    "dropbear": lambda client, path, env: EmbeddedDropbear(client, path, env),
    "tinysshd": lambda client, path, env: EmbeddedTinysshd(client, path, env),
}


def embedded_server(name: str, client: ClientInfo, path: str | None = None,
                    env: Mapping[str, str] | None = None) -> EmbeddedServer:
    """A new (not yet started) embedded server; use it as a context manager."""
    try:
        make = SERVERS[name]
    except KeyError:
        raise UsageError(f"unknown embedded server {name!r}: use one of {', '.join(SERVERS)}") from None
    return make(client, path, env or {})
