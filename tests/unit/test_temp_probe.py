"""The command's first look for a temp dir happens with the interrupt signals held.

Python's tempfile proves a directory writable by creating a file with a bare
8-character name in it and unlinking it again. An interrupt between the two
leaves that file in the user's temp dir (CI once found `8lyc8kxy` after a
Ctrl-C during sshbench's imports). The probe below stands in for tempfile's,
in the real command's start-up, and records whether the three signals were
blocked while it ran.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_PROBE = """
import signal, sys, tempfile
real = tempfile._get_default_tempdir
def probe():
    held = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    print("held" if {signal.SIGINT, signal.SIGTERM, signal.SIGHUP} <= held else "open", flush=True)
    return real()
tempfile._get_default_tempdir = probe
import runpy
sys.argv = ["sshbench", "--version"]
runpy.run_module("sshbench", run_name="__main__", alter_sys=True)
"""


def test_the_temp_dir_is_first_probed_with_interrupts_held(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "held", proc.stdout
    assert not list(tmp_path.iterdir())
