"""Nothing of the system touched: a listening sshd started while sshbench's own server runs keeps its /run/sshd.

sshbench used to create /run/sshd when it was missing and remove it at the end; a system sshd started
meanwhile (`service ssh start`, a container's entrypoint: Debian's init keeps an existing /run/sshd as it is)
lost it and refused every later login ("Missing privilege separation directory"). Here the whole scene plays in a
private mount namespace whose /run is a tmpfs of the test's own (the machine's /run is never touched): sshbench's
server starts, the "system" makes /run/sshd and starts a listening sshd, sshbench's server stops, and the system's
sshd must still log a client in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.integration.processes import ROOT

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not ROOT or not shutil.which("unshare") or not os.path.exists("/usr/sbin/sshd"),
                                 reason="a private mount namespace and a daemon-mode sshd need root")]

SCENE = textwrap.dedent("""
    import json, os, socket, subprocess, sys, time
    from sshbench.targets.discovery import discover_client
    from sshbench.targets.servers.openssh import EmbeddedOpenSSH
    from sshbench.targets.servers.privsep import PRIVSEP_DIR
    work = sys.argv[1]
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "test-run", "/run"], check=True)
    seen = {}
    server = EmbeddedOpenSSH(discover_client())
    server.start()
    seen["how"] = server._privsep.how
    seen["host_dir_during"] = os.path.isdir(PRIVSEP_DIR)
    os.mkdir(PRIVSEP_DIR, 0o755)  # the system's service, as Debian's init makes it when missing
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f"{work}/{name}"], check=True)
    with open(f"{work}/authorized_keys", "w") as fh, open(f"{work}/client.pub") as pub:
        fh.write(pub.read())
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with open(f"{work}/sshd_config", "w") as fh:
        fh.write(f"Port {port}\\nListenAddress 127.0.0.1\\nHostKey {work}/host\\nPidFile {work}/pid\\n"
                 f"AuthorizedKeysFile {work}/authorized_keys\\nUsePAM no\\nStrictModes no\\n")
    daemon = subprocess.Popen(["/usr/sbin/sshd", "-D", "-f", f"{work}/sshd_config", "-E", f"{work}/sshd.log"])
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # wait for the state needed: the daemon listening
            with socket.socket() as knock:
                if knock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        server.stop()
        seen["system_dir_after"] = os.path.isdir(PRIVSEP_DIR)
        login = subprocess.run(["ssh", "-p", str(port), "-i", f"{work}/client", "-o", "IdentitiesOnly=yes",
                                "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={work}/kh",
                                "-o", "BatchMode=yes", "-F", "/dev/null", "root@127.0.0.1", "echo ok"],
                               capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        seen["login"] = login.stdout.strip() or login.stderr.strip()[-300:]
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
    print(json.dumps(seen))
""")


def test_a_system_sshd_started_during_a_run_keeps_its_directory_and_its_logins(tmp_path: Path) -> None:
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "--", sys.executable, "-c", SCENE,
                           str(tmp_path)], capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["how"] == "namespace", seen  # the test's /run had no sshd directory: sshbench made none there
    assert not seen["host_dir_during"], "sshbench's server ran without creating /run/sshd in the system's /run"
    assert seen["system_dir_after"], "the system's /run/sshd was removed when sshbench's server stopped"
    assert seen["login"] == "ok", seen
