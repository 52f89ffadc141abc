"""Logins per second (--logins 1,4,16,64): K parallel clients, each running `ssh HOST true` again as soon as its
last one exited, against an ordinary listening sshd, one stage per K (and key exchange).

Why a listening sshd: the embedded server serves each connection inetd-style, one `sshd -i` per connection
sshbench accepted; a bastion or a git server is one sshd that forks per connection and turns connections away
beyond MaxStartups (OpenSSH's default 10:30:100: at 10 unauthenticated connections it starts dropping 30%, at
100 all). So this stage runs the embedded server's own config and keys as `sshd -D` in a network namespace of
sshbench's own (root): only sshbench's connection helper, which enters that namespace, can reach it. The
sshd runs on the server's CPUs and the clients on the client's (--placement), so each side's CPU is its own.

A login is counted completed when ssh exited 0, refused when it was turned away before the server's banner
(plumbing/negotiation.turned_away: MaxStartups and friends), failed otherwise; none is dropped silently.
Each stage lasts `seconds` from its first login's start, and ends when the last login in flight exits. Each
stage is handed on as it ends (the session saves it at once); an interrupt during a stage ends its clients, the
logins in flight killed at once through one shared descriptor (measure/leanrun.py's `stop`), and that stage is
not kept: the finished ones are.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator

from sshbench.measure.leanrun import LeanRun, run_lean
from sshbench.plumbing import placement
from sshbench.plumbing.negotiation import parse_verbose, turned_away
from sshbench.plumbing.procfs import descendants, tree_cpu_seconds
from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.results.runfacts import LoginLoad
from sshbench.targets.base import HOST_ALIAS, OWN_CONNECTION
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.link import netns
from sshbench.targets.servers.clientconf import FDPASS
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.errors import ServerError
from sshbench.vocabulary.untrusted import clean

PORT = 22  # inside the namespace: nothing else listens there
UP_SECONDS = 10.0  # how long the listening sshd gets to accept
# One login, at most (then it is killed and counted failed). Generous: a login killed mid-way hangs up its
# remote shell in the middle of the user's start-up files, and one killed at 30 s in a CPU-starved 64-client
# stage left root's pyenv rehash lock behind, which then held every later login shell 60 s
LOGIN_TIMEOUT = 120.0
SETTLE_SECONDS = 2.0  # after a stage, for the sshd to reap its last connections (their CPU is then counted)
STOP_SECONDS = 10.0  # an interrupted stage's clients, for their killed logins to be reaped (a SIGKILL: at once)
WARMUP_LOGINS = 2  # per key exchange, before its stages


@contextlib.contextmanager
def listening(server: EmbeddedOpenSSH) -> Iterator[tuple[int, str, str]]:
    """The server as a listening sshd in a namespace of its own: yields (its pid, the namespace, a ProxyCommand
    that reaches it); everything is ended and removed afterwards."""
    netns.check_can_emulate()
    with netns.namespace_pair() as (_, name), tempfile.TemporaryDirectory(prefix="sshbench-logins-") as scratch:
        log = open(os.path.join(scratch, "sshd.log"), "wb")  # noqa: SIM115  # closed below, after the sshd ends
        proc = spawn(["nsenter", f"--net={os.path.join(netns.NETNS_DIR, name)}", *server.listening_argv(PORT)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, process_group=0)
        try:
            if (cpus := placement.server_cpus()) is not None:
                os.sched_setaffinity(proc.pid, cpus)  # its forks inherit it
            _wait_up(name, proc, os.path.join(scratch, "sshd.log"))
            proxy = (f"{shlex.quote(sys.executable)} -S {shlex.quote(FDPASS)} 127.0.0.1 {PORT} "
                     f"{shlex.quote(scratch)} {shlex.quote(name)}")
            yield proc.pid, name, proxy
        finally:
            kill_group(proc.pid)
            with contextlib.suppress(ChildProcessError):
                reap(proc)
            log.close()


def _wait_up(name: str, proc: subprocess.Popen[bytes], log: str) -> None:
    deadline = time.monotonic() + UP_SECONDS
    while True:
        sock = netns.tcp_socket_in(name)
        try:
            sock.settimeout(1.0)
            sock.connect(("127.0.0.1", PORT))
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                with open(log, encoding="utf-8", errors="replace") as fh:
                    said = clean(" ".join(fh.read().split()[-30:]))
                raise ServerError(f"the listening sshd for --logins did not start: {said or 'no output'}") from None
            time.sleep(0.05)
        finally:
            sock.close()


def measure_logins(server: EmbeddedOpenSSH, clients: tuple[int, ...], kexes: list[str | None], seconds: float,
                   kept: Callable[[LoginLoad], None]) -> None:
    """One stage per key exchange and client count, in that order, against one listening sshd; each handed to
    `kept` as it ends, so an interrupt loses only the stage it came in."""
    with listening(server) as (pid, _, proxy):
        for kex in kexes:
            for _ in range(WARMUP_LOGINS):  # not counted: the first logins pay for cold caches (a first stage of
                _login(_argv(server, proxy, kex))  # one client read 259 ms where the next kex's read 104)
            for count in clients:
                kept(_stage(server, pid, proxy, count, kex, seconds))


def _argv(server: EmbeddedOpenSSH, proxy: str, kex: str | None) -> list[str]:
    return [server.client.path, "-F", server.client_config, "-v", "-o", f"ProxyCommand={proxy}",
            *OWN_CONNECTION, *(["-o", f"KexAlgorithms={kex}"] if kex else []),
            HOST_ALIAS, "true"]


def _stage(server: EmbeddedOpenSSH, pid: int, proxy: str, count: int, kex: str | None,
           seconds: float) -> LoginLoad:
    argv = _argv(server, proxy, kex)
    logins: list[LeanRun] = []
    lock = threading.Lock()
    stop, (stop_read, stop_write) = threading.Event(), os.pipe()  # the pipe made readable ends every login at once
    cpu_before = tree_cpu_seconds(pid)
    start = time.perf_counter()
    deadline = start + seconds

    def client() -> None:
        while time.perf_counter() < deadline and not stop.is_set():
            login = _login(argv, stop_read)
            with lock:
                logins.append(login)

    threads = [threading.Thread(target=client, daemon=True, name=f"sshbench-login-{i}") for i in range(count)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    except BaseException:  # an interrupt: no client may start another login, and every one in flight ends now
        stop.set()
        os.write(stop_write, b"x")
        _ended(threads)
        raise
    finally:
        if not any(thread.is_alive() for thread in threads):  # else a client may still select on it: left open
            os.close(stop_read)
            os.close(stop_write)
    took = time.perf_counter() - start
    settle = time.monotonic() + SETTLE_SECONDS
    while len(descendants(pid)) > 1 and time.monotonic() < settle:  # its last connections' processes reaped
        time.sleep(0.02)
    cpu_after = tree_cpu_seconds(pid)
    return _load(count, kex, took, logins, None if cpu_before is None or cpu_after is None
                 else max(0.0, cpu_after - cpu_before))


def _ended(threads: list[threading.Thread]) -> None:
    """Wait (at most STOP_SECONDS in all) for a stopped stage's clients: each kills and reaps its login in flight
    (a thread never started, or starting as the stop came, sees it before its first login)."""
    until = time.monotonic() + STOP_SECONDS
    for thread in threads:
        if thread.is_alive():
            thread.join(max(0.0, until - time.monotonic()))


def _login(argv: list[str], stop: int | None = None) -> LeanRun:
    """One `ssh HOST true`, ssh started -> exited, with its CPU (wait4) and its stderr (measure/leanrun.py), in
    the embedded server's tool environment (its ProxyCommand under /bin/sh: no user rc per login); killed at
    once when `stop` becomes readable."""
    return run_lean(argv, {**os.environ, **EmbeddedTarget.tool_env}, b"", LOGIN_TIMEOUT, stop)


def _load(count: int, kex: str | None, took: float, logins: list[LeanRun], server_cpu: float | None) -> LoginLoad:
    load = LoginLoad(clients=count, kex=kex, seconds=took, server_cpu_seconds=server_cpu,
                     client_cpu_seconds=sum(u.ru_utime + u.ru_stime for login in logins if (u := login.usage)))
    for login in logins:
        lines = [text for _, text in login.stderr_lines]
        if login.proc.returncode == 0 and login.exited_seconds is not None:
            load.completed += 1
            load.latency_seconds.append(round(login.exited_seconds, 6))
            if load.negotiated is None:
                load.negotiated = parse_verbose(login.stderr_lines).negotiated.kex
        elif turned_away(lines) is not None:
            load.refused += 1
        else:
            load.failed += 1
            if load.first_error is None:
                load.first_error = (f"killed after {LOGIN_TIMEOUT:.0f} s, sshbench's bound for one login"
                                    if login.timed_out.is_set() else " | ".join(lines[-3:])[:300])
    return load
