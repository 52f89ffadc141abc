"""Parts are known by what they declare, not by their names: a new launcher for a known implementation (here an
OpenSSH launcher under another name, as a user would add one with a different host key) gets that implementation's
advice, drop-in, lock-out check and --sshd with no other edit. It once was "unknown": window none, no drop-in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode

pytestmark = pytest.mark.integration

# The whole of the new part: one class, one registry line (a real sshbench run, in its own process)
_WITH_A_NEW_LAUNCHER = """
import sys
from sshbench.targets.servers import SERVERS
from sshbench.targets.servers.openssh import EmbeddedOpenSSH

class OtherOpenSSH(EmbeddedOpenSSH):
    name = "openssh-other"

SERVERS[OtherOpenSSH.name] = OtherOpenSSH
from sshbench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_new_launcher_for_openssh_gets_openssh_s_drop_in_lockout_check_and_sshd(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    sshd = "/usr/sbin/sshd"
    done = subprocess.run([sys.executable, "-c", _WITH_A_NEW_LAUNCHER, "--server", "openssh-other", "--sshd", sshd,
                           "--ciphers", "aes128-gcm@openssh.com,chacha20-poly1305@openssh.com", "--macs", "none",
                           "--kex", "none", "--hostkeys", "none", "--directions", "upload", "--runs", "2",
                           "--size", "8MiB", "--no-controls", "--output", str(out)],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                          env={**os.environ, "TMPDIR": str(tmp_path)}, check=False)
    assert done.returncode == ExitCode.OK, done.stderr
    data = json.loads(out.read_text())
    embedded = data["environment"]["server"]["embedded"]
    assert embedded == {**embedded, "server": "openssh-other", "implementation": "openssh", "path": sshd}
    assert data["recommendation"]["server_dropin"], "OpenSSH's drop-in, validated with the launcher's own sshd -t"
    assert "/etc/ssh/sshd_config.d/50-sshbench.conf" in done.stdout
    assert "checked against" in done.stdout, "and the lock-out check ran"
    assert f"algos --server openssh-other --sshd {sshd}" in done.stdout, "the next step starts the same server"
