"""The fleet playbook for real: three namespaced hosts with their own sshd, one unreachable, one merged report.

Runs scripts/fleet_demo.py (the documented command) with a short study per
host. Root only (namespaces, sshd as root); CI runs as root.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import leftovers

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(os.geteuid() != 0, reason="the test fleet is made of network namespaces: root only")]

REPO = Path(__file__).resolve().parents[2]
STUDY = ["--ciphers", "aes128-gcm@openssh.com,chacha20-poly1305@openssh.com", "--macs", "none", "--kex", "none",
         "--hostkeys", "none", "--directions", "upload", "--runs", "2", "--size", "16MiB", "--no-controls"]


def test_playbook_measures_every_reachable_host_and_merges_them(tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, str(REPO / "scripts" / "fleet_demo.py"), "--out", str(out), "--",
                             *STUDY], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            stdin=subprocess.DEVNULL)
    log, _ = proc.communicate(timeout=1500)
    assert proc.returncode == 0, log[-3000:]
    assert "no results from: unreachable1" in log, "the unreachable host was not reported"
    assert "host1" in log and "unreachable=1" in log
    files = sorted(p.name for p in out.glob("*.json"))
    assert files == ["host1.json", "host2.json", "host3.json"]
    for name in files:
        data = json.loads((out / name).read_text())
        assert data["environment"]["host"]["label"] == name[:-5] and data["status"] == "complete"
    markdown = (out / "fleet.md").read_text()
    for needed in ("# sshbench: 3 hosts", "Platforms", "Normalised, upload: relative to chacha20-poly1305",
                   "Fleet recommendation", "A fleet: each machine measured itself"):
        assert needed in markdown, needed
    assert "<html" in (out / "fleet.html").read_text()[:500].lower()
    assert not [n for n in os.listdir("/run/netns") if n.startswith(f"sbfleet-{proc.pid}-")]
    assert not leftovers(tempfile.gettempdir()), "an sshd (or a run) outlived the demo"
    ssh_left = subprocess.run(["pgrep", "-f", "198.19."], capture_output=True, text=True, check=False).stdout
    assert not ssh_left.strip(), f"an ssh to the test fleet outlived the demo: {ssh_left}"
    assert sorted(os.listdir(tmp_path)) == ["fleet"], "the demo's work directory was left behind"
