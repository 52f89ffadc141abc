"""The OpenSSH ControlMasters of a run's reused short commands (--reuse reused, axes/reuse.py).

One master per path (link and build) and SSH compression (a session takes
its master's: -C is the connection's): `ssh -M -N` with the path's own
options, started before the first sample that needs it (not timed: what it
costs is a fresh connection's, measured beside it) and kept in the
foreground, in a process group of sshbench's own, so ending it is one
killpg, as for every ssh sshbench starts; ControlPersist=no, so it never
forks into a daemon that could outlive the run. Its socket lives in a
private 0700 directory of the run's temp dir: a multiplexing socket is a
login for whoever can reach it. A reused sample then runs
`ssh -o ControlMaster=no -o ControlPath=SOCKET HOST cmd`: a new session over
the connection already made, as ControlMaster=auto gives a user's second
command.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from types import TracebackType

from sshbench.measure.pipe import ssh_compression_options
from sshbench.plumbing.negotiation import Negotiated, parse_verbose
from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.results.model import Case
from sshbench.targets.base import Target
from sshbench.vocabulary.commands import socket_path_fits
from sshbench.vocabulary.untrusted import clean

POLL_SECONDS = 0.01  # how often the socket is looked for while a master logs in
LOG_TAIL = 3  # lines of a failed master's ssh -v shown


class MasterError(Exception):
    """A master that did not come up: the reused samples of its path fail with this (one line)."""


class Masters:
    """Use as a context: `options(case)` starts the case's path's master on first use; leaving ends them all."""

    def __init__(self, target: Target, timeout: float) -> None:
        self.target, self.timeout = target, timeout
        self._dir: str | None = None
        self._live: dict[tuple[str, str, str], tuple[subprocess.Popen[bytes], str]] = {}
        self._proven: dict[tuple[str, str, str], Negotiated] = {}  # what each master's ssh -v says it negotiated
        self._failed: dict[tuple[str, str, str], str] = {}

    def __enter__(self) -> Masters:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def options(self, case: Case) -> tuple[str, ...]:
        """The ssh options of a session over the case's path's master (started here if it is not yet);
        MasterError where it would not start (said once per path, then again for each sample)."""
        key = _key(case)
        if key in self._failed:
            raise MasterError(self._failed[key])
        if key not in self._live:
            try:
                self._live[key] = self._start(case, len(self._live) + len(self._failed))
                self._proven[key] = _negotiated(self._live[key][1] + ".log")
            except MasterError as exc:
                self._failed[key] = str(exc)
                raise
        return ("-o", "ControlMaster=no", "-o", f"ControlPath={self._live[key][1]}")

    def proven(self, case: Case) -> Negotiated | None:
        """The algorithms the case's path's master negotiated (its ssh -v), once it is up."""
        return self._proven.get(_key(case))

    def _start(self, case: Case, number: int) -> tuple[subprocess.Popen[bytes], str]:
        if self._dir is None:  # 0700; where TMPDIR is too long for a socket's path, /tmp (ssh would refuse it)
            base = tempfile.gettempdir()
            if not socket_path_fits(os.path.join(base, "sshbench-mux-xxxxxxxx", "m99")):
                base = "/tmp"
            self._dir = tempfile.mkdtemp(prefix="sshbench-mux-", dir=base)
        socket_path = os.path.join(self._dir, f"m{number}")
        log_path = socket_path + ".log"
        argv = self.target.ssh_argv(case, "")[:-1]  # no remote command: -N
        argv[1:1] = ["-M", "-N", "-o", f"ControlPath={socket_path}", "-o", "ControlPersist=no",
                     *ssh_compression_options(case)]
        with open(log_path, "wb") as log:
            proc = spawn(self.target.client_argv(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=log, process_group=0)
        deadline = time.monotonic() + self.timeout
        while not os.path.exists(socket_path):
            if proc.poll() is not None or time.monotonic() > deadline:
                kill_group(proc.pid)
                with contextlib.suppress(ChildProcessError):
                    reap(proc.pid)
                raise MasterError(f"the ControlMaster for {case.link or 'this path'} did not start: "
                                  f"{_tail(log_path) or 'no output'}")
            time.sleep(POLL_SECONDS)
        return proc, socket_path

    def close(self) -> None:
        """End every master (one killpg each) and remove their sockets and logs."""
        for proc, _ in self._live.values():
            kill_group(proc.pid)
            with contextlib.suppress(ChildProcessError):
                reap(proc.pid)
        self._live.clear()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _key(case: Case) -> tuple[str, str, str]:
    """What one master serves: a path (link, build) with SSH's compression on or off."""
    return case.link, case.build, case.compression


def _negotiated(path: str) -> Negotiated:
    """What a master's ssh -v log says it negotiated (it has logged in: its socket exists)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return parse_verbose((0.0, clean(line.rstrip())) for line in fh).negotiated
    except OSError:
        return Negotiated()


def _tail(path: str) -> str:
    """The last lines of a master's ssh -v log worth showing (its debug chatter left out), as one line."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = [line.strip() for line in fh if line.strip() and not line.startswith("debug")]
    except OSError:
        return ""
    return "; ".join(lines[-LOG_TAIL:])
