"""The raw-TCP ceiling of a real host from iperf3, when it happens to be installed on both ends.

Nothing is installed, configured or left running. The server side is
`iperf3 -s -1` (one test, then it exits), started over the user's ssh by a
POSIX sh line that kills it when that ssh's stdin closes, and under
`timeout` where the server has it. It needs a direct TCP path to the port: behind ProxyJump, or with a
firewall in the way, the reason is recorded and the fastest cipher stays the
reference. Outside the timed samples, before the sweep.
"""

from __future__ import annotations

import shutil
import subprocess
import time

from sshbench.plumbing import procs
from sshbench.plumbing.procs import kill_group, spawn
from sshbench.results.environment import IperfFacts
from sshbench.targets.remote import RemoteTarget
from sshbench.vocabulary.errors import ServerError
from sshbench.vocabulary.untrusted import json_value

SECONDS = 3  # per direction, after OMIT_SECONDS of TCP slow start that are not counted
OMIT_SECONDS = 1
READY_TIMEOUT = 15.0  # seconds for the server's iperf3 to listen (an ssh login first)
BUSY = "the server is busy running a test"  # iperf3's words when its one test slot is taken
IN_USE = ("unable to start listener", "Address already in use")  # ... and when its port is


class IperfError(Exception):
    """One direction could not be measured; the message says why, for the results file."""


def parse_result(text: str) -> tuple[float, int]:
    """(bytes per second, bytes) the receiver counted in an `iperf3 -J` test; IperfError with iperf3's error."""
    try:
        data = json_value(text)
    except ValueError:
        raise IperfError(f"iperf3 printed no JSON: {text.strip()[:120] or 'nothing'}") from None
    if not isinstance(data, dict):
        raise IperfError("iperf3 printed JSON that is not an object")
    if data.get("error"):
        raise IperfError(str(data["error"])[:200])
    end = data.get("end")
    received = end.get("sum_received") if isinstance(end, dict) else None
    try:
        rate, count = float(received["bits_per_second"]) / 8, int(received["bytes"])  # type: ignore[index]
    except (TypeError, KeyError, ValueError, OverflowError):
        rate, count = 0.0, 0
    if not rate > 0:
        raise IperfError("iperf3 reported no received bytes")
    return rate, count


def _server_command(port: int) -> str:
    """iperf3 for one test, killed as soon as our ssh's stdin closes (or our ssh dies).

    POSIX sh, no pty (servers may refuse one) and no agent: the shell waits
    on `cat` of its stdin, which ends when we close it after the test or when
    the connection drops. `timeout`, where the server has it, is a second net.
    """
    limit = SECONDS + OMIT_SECONDS + READY_TIMEOUT + 30
    serve = f"iperf3 -s -1 -p {port}"
    return (f"if command -v timeout >/dev/null 2>&1; then timeout {limit:.0f} {serve} & else {serve} & fi; "
            "p=$!; cat >/dev/null; kill $p 2>/dev/null; wait $p 2>/dev/null; exit 0")


def _server_said(text: str) -> str:
    """The server's iperf3 output once it has ended: its error line, for the results file."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line]
    return (errors or lines or ["no output"])[-1]


def _client(local: str, hostname: str, port: int, reverse: bool, server: subprocess.Popen[bytes]) -> str:
    """Run the client, retrying while the server's iperf3 is not listening yet (a refused connect does
    not use up its one test) or the port's iperf3 is busy with another test; iperf3's JSON output."""
    argv = [local, "-c", hostname, "-p", str(port), "-J", "-t", str(SECONDS), "-O", str(OMIT_SECONDS),
            *(["-R"] if reverse else [])]
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        try:
            done = procs.run_text(argv, timeout=SECONDS + OMIT_SECONDS + 20)
        except subprocess.TimeoutExpired:
            raise IperfError(f"no answer on port {port} (a firewall between here and the server?)") from None
        waiting = "Connection refused" in done.stdout or BUSY in done.stdout
        if not waiting or time.monotonic() > deadline or server.poll() is not None:
            return done.stdout
        time.sleep(0.2)


def _end(server: subprocess.Popen[bytes]) -> str:
    """The server's ssh ended (its stdin closed: the remote shell's `cat` ends and kills iperf3 if still
    waiting) and what it printed."""
    assert server.stdin is not None and server.stdout is not None
    server.stdin.close()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        kill_group(server.pid)  # the connection drops, which ends `cat` on the server just the same
        server.wait(timeout=5)
    try:
        return server.stdout.read().decode(errors="replace")
    finally:
        server.stdout.close()


def _one(target: RemoteTarget, local: str, hostname: str, port: int, reverse: bool) -> tuple[float, int]:
    """One direction against an iperf3 server of our own: a figure from another iperf3 that holds the port
    (another user's, another run's) is refused, not recorded as this host's."""
    server = spawn(target.command_argv(_server_command(port)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT)
    try:
        said = _client(local, hostname, port, reverse, server)
    except BaseException:  # an interrupt: no time for a graceful end; the dropped connection ends `cat` there
        kill_group(server.pid)
        _end(server)
        raise
    own = _end(server)
    if any(words in own for words in IN_USE):
        raise IperfError(f"port {port} is taken on the server (another iperf3?): --iperf3-port names a free one")
    if "Connection refused" in said:
        raise IperfError(f"the server's iperf3 did not start: {_server_said(own)}")
    return parse_result(said)


def tcp_ceiling(target: RemoteTarget, hostname: str, proxied: bool, capped: bool,
                port: int) -> IperfFacts:
    """Both directions' raw TCP throughput to the host, or why not."""
    local = shutil.which("iperf3")
    if local is None:
        return IperfFacts(skipped="iperf3 is not installed here (Debian package iperf3)")
    if proxied:
        return IperfFacts(skipped="the host is reached through a proxy; iperf3 needs a direct TCP path")
    if capped:
        return IperfFacts(skipped="--max-bytes is set, and iperf3 runs for a time, not up to a byte count")
    try:
        on_server = target.run_command("command -v iperf3 || true").strip()
    except ServerError as exc:
        return IperfFacts(skipped=f"could not look for iperf3 on the server: {exc}")
    if not on_server:
        return IperfFacts(skipped="iperf3 is not installed on the server")
    said = procs.run_text([local, "--version"], timeout=10).stdout
    version = said.splitlines()[0].strip() if said.strip() else None
    command = (f"iperf3 -c {hostname} -p {port} -t {SECONDS} -O {OMIT_SECONDS} [-R], against "
               f"`iperf3 -s -1 -p {port}` started over ssh")
    rates: dict[str, float] = {}
    moved = 0
    for direction in ("upload", "download"):
        try:
            rate, count = _one(target, local, hostname, port, reverse=direction == "download")
        except IperfError as exc:
            return IperfFacts(rates.get("upload"), None, moved, version, f"iperf3 {direction}: {exc}", command)
        rates[direction] = rate
        moved += count
    return IperfFacts(rates["upload"], rates["download"], moved, version, None, command)
