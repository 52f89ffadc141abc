"""Running the real `sshbench` command line from tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SMALL = ["--ciphers", "aes128-gcm@openssh.com,aes128-ctr", "--macs", "hmac-sha2-256,umac-128-etm@openssh.com",
         "--kex", "curve25519-sha256", "--hostkeys", "ssh-ed25519", "--runs", "2", "--setup-runs", "2"]


def sshbench(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sshbench", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, stdin=subprocess.DEVNULL, check=False)
