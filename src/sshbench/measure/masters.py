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

Nothing is taken on trust, because ssh falls back to a login of its own when
the socket does not serve it (and a session over someone else's master is
not this path's): the directory is checked after it is made (a directory,
not a link, this user's, 0700), the socket before every sample (a socket,
not a link, this user's, the same one), its master once (`ssh -O check`
names the pid serving it: the master sshbench started), and every reused
sample's own ssh -v must show a session over a master and no login
(`not_reused`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
from types import TracebackType

from sshbench.measure.pipe import ssh_compression_options
from sshbench.plumbing import procs, runs
from sshbench.plumbing.negotiation import Negotiated, parse_verbose
from sshbench.plumbing.procfs import descendants
from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.results.model import Case
from sshbench.targets.base import Target
from sshbench.vocabulary.commands import socket_path_fits
from sshbench.vocabulary.untrusted import shown, stripped

POLL_SECONDS = 0.01  # how often the socket is looked for while a master logs in
LOG_TAIL = 3  # lines of a failed master's ssh -v shown
CHECK_SECONDS = 10.0  # `ssh -O check` answers from the socket at once
_SERVED_BY = re.compile(r"Master running \(pid=(\d+)\)")  # ssh -O check's answer
MUX_SESSION = "mux_client_request_session"  # a session over a master, in its ssh -v (OpenSSH 8-10, debug1)
LOGGED_IN = ("Authenticated to ", "Authentications that can continue")  # a login of its own, in its ssh -v


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
        self._inode: dict[tuple[str, str, str], tuple[int, int]] = {}  # each socket's, as its master made it

    def __enter__(self) -> Masters:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def options(self, case: Case) -> tuple[str, ...]:
        """The ssh options of a session over the case's path's master (started here if it is not yet);
        MasterError where it would not start, or its socket is no longer the one it made (said once per path,
        then again for each sample)."""
        key = _key(case)
        if key in self._failed:
            raise MasterError(self._failed[key])
        try:
            if key not in self._live:
                self._live[key] = self._start(case, len(self._live) + len(self._failed))
                self._proven[key] = _negotiated(self._live[key][1] + ".log")
            self._still_ours(key)
        except MasterError as exc:
            self._failed[key] = str(exc)
            raise
        return ("-o", "ControlMaster=no", "-o", f"ControlPath={self._live[key][1]}")

    def proven(self, case: Case) -> Negotiated | None:
        """The algorithms the case's path's master negotiated (its ssh -v), once it is up."""
        return self._proven.get(_key(case))

    def not_reused(self, case: Case, lines: list[tuple[float, str]], failed: bool) -> str | None:
        """Why a reused sample was not a session over its path's master, from its own ssh -v: it logged in
        itself (ssh's fallback where the socket did not serve it), or (a sample that did not fail otherwise)
        no session over a master is in it at all. None where it rode the master."""
        texts = [text for _, text in lines]
        socket_path = self._live[_key(case)][1] if _key(case) in self._live else "(none)"
        login = next((text for text in texts if any(mark in text for mark in LOGGED_IN)), None)
        if login is not None:
            said = next((text for text in texts if text.startswith(("Control socket", "ControlSocket"))), None)
            return (f"not reused: it logged in itself (the ControlMaster's socket {shown(socket_path)} did not serve "
                    f"it{f': {said}' if said else ''}; its ssh -v says '{login}')")
        if not failed and not any(MUX_SESSION in text for text in texts):
            return (f"not reused: its ssh -v shows no session over the ControlMaster's socket {shown(socket_path)} "
                    f"(no {MUX_SESSION} line)")
        return None

    def _start(self, case: Case, number: int) -> tuple[subprocess.Popen[bytes], str]:
        if self._dir is None:  # where TMPDIR is too long for a socket's path, /tmp (ssh would refuse it)
            base = tempfile.gettempdir()
            if not socket_path_fits(os.path.join(base, "sshbench-mux-xxxxxxxx", "m99")):
                base = "/tmp"
            self._dir = _private_dir(base)
        socket_path = os.path.join(self._dir, f"m{number}")
        log_path = socket_path + ".log"
        if os.path.lexists(socket_path) or os.path.lexists(log_path):
            raise MasterError(f"the ControlMaster's socket {shown(socket_path)} is already there, in sshbench's "
                              "private directory, before its master started: refused (something else put it there)")
        argv = self.target.ssh_argv(case, "")[:-1]  # no remote command: -N
        argv[1:1] = ["-M", "-N", "-o", f"ControlPath={socket_path}", "-o", "ControlPersist=no",
                     *ssh_compression_options(case)]
        with open(log_path, "xb") as log:
            proc = spawn(self.target.client_argv(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=log, process_group=0)
        try:
            self._inode[_key(case)] = self._bound(case, proc, socket_path, log_path)
            self._served(case, proc, socket_path)
        except MasterError:
            _end(proc)
            raise
        return proc, socket_path

    def _bound(self, case: Case, proc: subprocess.Popen[bytes], socket_path: str, log_path: str) -> tuple[int, int]:
        """Until the master's socket is there (its device and inode): MasterError where the master ends or times
        out first, or what appears there is not a socket this user's master could have bound."""
        deadline = time.monotonic() + self.timeout
        while (found := _lstat(socket_path)) is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise MasterError(f"the ControlMaster for {case.link or 'this path'} did not start: "
                                  f"{_tail(log_path) or 'no output'}")
            time.sleep(POLL_SECONDS)
        if (why := _not_a_socket(found)) is not None:
            raise MasterError(f"the ControlMaster's socket {shown(socket_path)} is {why}, not the socket its master "
                              "binds: refused (something else put it there; ssh would log in on its own instead)")
        return found.st_dev, found.st_ino

    def _served(self, case: Case, proc: subprocess.Popen[bytes], socket_path: str) -> None:
        """MasterError unless `ssh -O check` through the socket names the master sshbench started (or a process
        of its own tree, where the client's argv wraps ssh) as the one serving it."""
        argv = self.target.ssh_argv(case, "")[:-1]
        argv[1:1] = ["-O", "check", "-o", f"ControlPath={socket_path}"]
        try:
            done = procs.run_text(self.target.client_argv(argv), timeout=CHECK_SECONDS)
            said = _SERVED_BY.search(done.stderr)
        except subprocess.TimeoutExpired:
            said = None
        pid = int(said.group(1)) if said else None
        if pid is None or pid not in descendants(proc.pid):
            raise MasterError(f"the ControlMaster's socket {shown(socket_path)} is served by "
                              f"{'no master' if pid is None else f'process {pid}'}, not the master sshbench "
                              f"started (process {proc.pid}): refused")

    def _still_ours(self, key: tuple[str, str, str]) -> None:
        """MasterError where the master has ended or its socket is no longer the one it bound (replaced)."""
        proc, socket_path = self._live[key]
        found = _lstat(socket_path)
        if proc.poll() is not None:
            raise MasterError(f"the ControlMaster of {shown(socket_path)} has ended: "
                              f"{_tail(socket_path + '.log') or 'no output'}")
        if found is None or _not_a_socket(found) is not None or (found.st_dev, found.st_ino) != self._inode[key]:
            raise MasterError(f"the ControlMaster's socket {shown(socket_path)} is no longer the one its master "
                              "bound (removed or replaced): refused")

    def close(self) -> None:
        """End every master (one killpg each) and remove their sockets and logs."""
        for proc, _ in self._live.values():
            _end(proc)
        self._live.clear()
        self._inode.clear()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _key(case: Case) -> tuple[str, str, str]:
    """What one master serves: a path (link, build) with SSH's compression on or off."""
    return case.link, case.build, case.compression


def _end(proc: subprocess.Popen[bytes]) -> None:
    kill_group(proc.pid)
    with contextlib.suppress(ChildProcessError):
        reap(proc)


def _private_dir(base: str) -> str:
    """A new directory for the masters' sockets (mkdtemp: a fresh name, never one already there), recorded as the
    run's (a SIGKILLed run's is swept, plumbing/runs.py), checked after it is made: a directory, not a link, this
    user's, 0700; MasterError otherwise."""
    path = runs.private_dir("sshbench-mux-", base)
    found = os.lstat(path)
    why = ("a link" if stat.S_ISLNK(found.st_mode) else "not a directory" if not stat.S_ISDIR(found.st_mode)
           else f"owned by uid {found.st_uid}" if found.st_uid != os.geteuid()
           else f"mode {stat.S_IMODE(found.st_mode):o}" if stat.S_IMODE(found.st_mode) != 0o700 else None)
    if why is not None:
        raise MasterError(f"the ControlMasters' directory {shown(path)} is not private ({why}): refused")
    return path


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _not_a_socket(found: os.stat_result) -> str | None:
    """What a path at a master's socket is instead (a link, a FIFO, another user's): None for this user's socket."""
    if stat.S_ISSOCK(found.st_mode):
        return None if found.st_uid == os.geteuid() else f"a socket of uid {found.st_uid}"
    kinds = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISREG, "a regular file"),
             (stat.S_ISDIR, "a directory"))
    return next((name for test, name in kinds if test(found.st_mode)), "a device")


def _negotiated(path: str) -> Negotiated:
    """What a master's ssh -v log says it negotiated (it has logged in: its socket exists)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return parse_verbose((0.0, stripped(line.rstrip())) for line in fh).negotiated
    except OSError:
        return Negotiated()


def _tail(path: str) -> str:
    """The last lines of a master's ssh -v log worth showing (its debug chatter left out), as one line."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = [stripped(line.strip()) for line in fh if line.strip() and not line.startswith("debug")]
    except OSError:
        return ""
    return "; ".join(lines[-LOG_TAIL:])
