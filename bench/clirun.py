"""Shared by the benches that drive the real command line: run sshbench, time it, read its results, name the CPU."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sshbench.plumbing.procs import kill_group

STOP_SECONDS = 10.0  # an interrupted sshbench ends within 2 s; a hand's ssh on SIGTERM at once


def finished(argv: list[str], **popen: Any) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(argv, text=True)` in its own process group (same session: its scheduling stays a shell's),
    which an interrupt of the bench asks to stop with SIGTERM and waits for. subprocess.run's own clean-up
    SIGKILLs the child alone: an sshbench left its namespaces and private dir, a hand's `sh` its ssh behind."""
    with subprocess.Popen(argv, text=True, process_group=0, **popen) as proc:
        try:
            out, err = proc.communicate()
        except BaseException:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                kill_group(proc.pid, sig)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(STOP_SECONDS)
                    break
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def cpu_model() -> str:
    """lscpu's "Model name" (the first, where a machine has several sockets)."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        for line in subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def run_sshbench(args: list[str], out: Path, env: Mapping[str, str] | None = None) -> tuple[dict[str, Any], float]:
    """The results document and the wall time of one `sshbench ARGS --output OUT` (exit 0 or 1 accepted); `env`
    for another sshbench's source (PYTHONPATH)."""
    start = time.monotonic()
    done = finished([sys.executable, "-m", "sshbench", *args, "--output", str(out)], stdout=subprocess.DEVNULL,
                    env=env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"sshbench exited {done.returncode}")
    return json.loads(out.read_text()), time.monotonic() - start
