"""Interactive latency, as sshping measures it: one keystroke out, its echo back, many times.

Why a pty and `stty raw -echo; cat`: a person typing gets a pty, and the pty
is where OpenSSH 9.5+ applies ObscureKeystrokeTiming (keystrokes sent on a
fixed 20 ms tick, with chaff), which adds deliberate delay that a session
without a pty would never show. In raw mode without echo the remote pty
passes each byte to cat at once and cat sends it straight back, so one echo
is: client ssh -> link -> server -> pty -> cat -> pty -> server -> link ->
client ssh. The readiness line is printed after stty, so no byte is sent
before raw mode is on.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import time
from dataclasses import dataclass

from sshbench.plumbing import procs
from sshbench.results.model import Case, EchoResult
from sshbench.targets.base import Target

READY = b"sshbench-echo-ready"
REMOTE_COMMAND = f"stty raw -echo && echo {READY.decode()} && exec cat"
KEY = b"k"
START_TIMEOUT = 30.0  # connection, login and the readiness line
ECHO_TIMEOUT = 10.0  # one keystroke's echo
OBSCURING_SINCE = (9, 5)  # OpenSSH release that added ObscureKeystrokeTiming (on by default)


@dataclass(frozen=True)
class EchoSettings:
    count: int
    client_version: str  # e.g. "OpenSSH_9.2p1": whether the client obscures keystroke timing


def obscures_keystrokes(client_version: str) -> bool:
    """OpenSSH 9.5 and later send keystrokes on a fixed tick by default (ssh_config ObscureKeystrokeTiming)."""
    match = re.search(r"OpenSSH_(\d+)\.(\d+)", client_version)
    return match is not None and (int(match.group(1)), int(match.group(2))) >= OBSCURING_SINCE


def measure_echo(target: Target, case: Case, settings: EchoSettings) -> EchoResult:
    """`settings.count` keystroke round trips through one SSH session with the case's algorithms and link."""
    result = EchoResult(cipher=case.cipher or "", mac=case.mac, link=case.link, build=case.build,
                        obscured=obscures_keystrokes(settings.client_version))
    argv = [target.program_for(case), "-tt", "-e", "none", *target.tool_ssh_options(case), target.destination,
            REMOTE_COMMAND]
    env = {**os.environ, **target.tool_env}
    try:
        proc = procs.spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           env=env, bufsize=0)
    except OSError as exc:
        result.error = f"could not start ssh: {exc.strerror or exc}"
        return result
    assert proc.stdin is not None and proc.stdout is not None
    out_fd, in_fd = proc.stdout.fileno(), proc.stdin.fileno()
    try:
        seen = _read_until(out_fd, READY + b"\n", START_TIMEOUT)
        if seen is None:
            result.error = f"no readiness line within {START_TIMEOUT:.0f} s (login failed, or no pty allowed)"
            return result
        for n in range(settings.count + 1):  # the first keystroke warms the session up and is not kept
            start = time.perf_counter()
            os.write(in_fd, KEY)
            echoed = _read_until(out_fd, KEY, ECHO_TIMEOUT)
            took = time.perf_counter() - start
            if echoed is None:
                result.error = f"a keystroke was not echoed within {ECHO_TIMEOUT:.0f} s"
                return result
            if n:
                result.echo_seconds.append(took)
        result.ok = True
        return result
    except OSError as exc:
        result.error = f"the session ended early: {exc.strerror or exc}"
        return result
    finally:
        procs.kill_group(proc.pid)
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()


def _read_until(fd: int, marker: bytes, timeout: float) -> bytes | None:
    """Bytes read until they end with `marker` (None: timeout or end of file first)."""
    deadline = time.monotonic() + timeout
    got = b""
    while not got.endswith(marker):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 4096 if marker != KEY else 1)
        if not chunk:
            return None
        got += chunk
    return got
