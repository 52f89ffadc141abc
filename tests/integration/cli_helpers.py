"""Running the real `sshbench` command line from tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.servers.openssh import EmbeddedOpenSSH

SMALL = ["--ciphers", "aes128-gcm@openssh.com,aes128-ctr", "--macs", "hmac-sha2-256,umac-128-etm@openssh.com",
         "--kex", "curve25519-sha256", "--hostkeys", "ssh-ed25519", "--runs", "2", "--setup-runs", "2"]


def sshbench(*args: str, cwd: Path | None = None, timeout: float = 300, tmpdir: Path | None = None,
             env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line; its TMPDIR is the test's own (or `tmpdir`); `env`: variables set beside ours."""
    environment = {**os.environ, **(env or {}), "TMPDIR": str(tmpdir or tempfile.gettempdir())}
    return subprocess.run([sys.executable, "-m", "sshbench", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, stdin=subprocess.DEVNULL, check=False, env=environment)


def standin_block(alias: str, srv: EmbeddedOpenSSH, port: int | None = None) -> str:
    """A user's ssh config entry for a stand-in 'real' server: its own key, host key pinned, no agent."""
    return f"""Host {alias}
  HostName 127.0.0.1
  Port {port or srv.port}
  User {srv.user}
  IdentityFile {srv.dir}/client_ed25519
  IdentitiesOnly yes
  IdentityAgent none
  HostKeyAlias {HOST_ALIAS}
  UserKnownHostsFile {srv.dir}/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
"""


def free_port() -> int:
    """A loopback TCP port nothing listens on now (the kernel's pick), for a test's own server."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes] | None = None, seconds: float = 10.0) -> None:
    """Until something accepts on the loopback port; RuntimeError when `proc` (the server) exits first or
    nothing does within the seconds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening on {port}")
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"server not listening on {port} after {seconds} s")
