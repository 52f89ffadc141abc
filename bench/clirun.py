"""Shared by the benches that drive the real command line: run sshbench, time it, read its results file."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def run_sshbench(args: list[str], out: Path, env: Mapping[str, str] | None = None) -> tuple[dict[str, Any], float]:
    """The results document and the wall time of one `sshbench ARGS --output OUT` (exit 0 or 1 accepted); `env`
    for another sshbench's source (PYTHONPATH)."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "sshbench", *args, "--output", str(out)], check=False,
                          stdout=subprocess.DEVNULL, env=env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"sshbench exited {done.returncode}")
    return json.loads(out.read_text()), time.monotonic() - start
