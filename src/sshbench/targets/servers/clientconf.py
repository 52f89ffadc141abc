"""The client side of every embedded server: known_hosts and an ssh_config that reaches it, and nothing else.

Every embedded server, whatever its kind, is reached the same way: through
HOST_ALIAS in a config of our own (never ~/.ssh), with our key, its host keys
pinned, no agent, BatchMode, and the fdpass helper as ProxyCommand (it
announces the source port to the listener and sets TCP_NODELAY; see
targets/fdpass.py).
"""

from __future__ import annotations

import os
import shlex
import sys

from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.servers.inetd import LOOPBACK

# Connects with TCP_NODELAY and passes the socket to ssh: see fdpass.py for the 40 ms stall it avoids.
FDPASS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fdpass.py")  # targets/fdpass.py


def write_known_hosts(path: str, public_keys: list[str]) -> None:
    """known_hosts naming HOST_ALIAS for each "type base64 [comment]" public key line."""
    with open(path, "w", encoding="utf-8") as fh:
        for line in public_keys:
            key_type, blob = line.split()[:2]
            fh.write(f"{HOST_ALIAS} {key_type} {blob}\n")


def write_client_config(path: str, port: int, user: str, identity: str, known_hosts: str, expect_dir: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"""# sshbench client config for the embedded server; ~/.ssh is never read or written.
Host {HOST_ALIAS}
  HostName {LOOPBACK}
  Port {port}
  User {user}
  HostKeyAlias {HOST_ALIAS}
  IdentityFile {identity}
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile {known_hosts}
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  CheckHostIP no
  BatchMode yes
  PasswordAuthentication no
  KbdInteractiveAuthentication no
  Compression no
  ControlMaster no
  ControlPath none
  ForwardAgent no
  ForwardX11 no
  ClearAllForwardings yes
  RequestTTY no
  EscapeChar none
  AddressFamily inet
  ConnectTimeout 15
  ProxyCommand {shlex.quote(sys.executable)} -S {shlex.quote(FDPASS)} %h %p {shlex.quote(expect_dir)}
  ProxyUseFdpass yes
""")
