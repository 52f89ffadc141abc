"""What a pipe sample proved, from its connections once they ended: exit statuses, each side's CPU, what ssh -v
says was negotiated, and the sample's verdict (the first thing that went wrong, or none).

Every figure comes from the connections themselves: ssh's and the
compressor's wait4 usage, the server's process (wait4 on this machine, or
the remote command's own reading of /proc on a real host, plus its
pipeline's `times`), and ssh -v's transcript of each connection, all of
which must show the case's algorithms and compression.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from sshbench.measure.connection import Ended, children_cpu
from sshbench.plumbing.negotiation import Negotiated, Transcript, parse_verbose
from sshbench.results.kinds import Failure
from sshbench.results.model import Case, Sample
from sshbench.targets.base import Target
from sshbench.vocabulary.algorithms import is_aead


class Flag(Protocol):
    def is_set(self) -> bool: ...


class Exited(Protocol):
    @property
    def returncode(self) -> int | None: ...


class Ran(Protocol):
    """What the verdict reads of one ended connection: measure/connection.py's Connection, or a short command's
    lean run (measure/command.py)."""

    @property
    def stderr_lines(self) -> list[tuple[float, str]]:
        """(seconds since ssh started, line) of its ssh -v."""
        ...

    @property
    def peer_port(self) -> int | None:
        """The source port the server saw (None: not known, or a master's)."""
        ...

    @property
    def timed_out(self) -> Flag: ...

    @property
    def server_gone(self) -> Flag: ...

    @property
    def proc(self) -> Exited: ...


STDERR_TAIL = 8
CPU_MARK = "SSHBENCH-CPU"
# Parents that are not the server's session process: a login shell that forked our command, or a wrapper.
NOT_A_SERVER = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "csh", "tcsh",
                          "sudo", "su", "env", "timeout", "nice", "ionice", "script", "tmux", "screen"})


def expected_compression(case: Case) -> str:
    """What ssh -v must show as negotiated compression for this case."""
    return "zlib@openssh.com" if case.compressor.is_ssh else "none"


def which(index: int, count: int, why: str) -> str:
    """An error of one stream of several says which."""
    return why if count == 1 else f"stream {index + 1} of {count}: {why}"


@dataclass(frozen=True)
class Failed:
    """What went wrong while a sample's connections ran, before concluded() reads what they proved: the words,
    the stream they are about (None: the sample as a whole), and whether ssh ended before the remote command
    started (concluded() then adds what ended it, from ssh's own stderr)."""

    why: str
    stream: int | None = None
    not_started: bool = False

    def said(self, count: int) -> str:
        return self.why if self.stream is None else which(self.stream, count, self.why)


def parse_remote_cpu(lines: list[tuple[float, str]]) -> dict[str, tuple[float, float]]:
    """'before'/'after' -> (user, sys) seconds of the server's session process, from CPU_MARK lines."""
    found: dict[str, tuple[float, float]] = {}
    for _, text in lines:
        if not text.startswith(CPU_MARK):
            continue
        head, _, stat = text[len(CPU_MARK):].partition("(")  # "before 100 123456 4242 " then "sshd) S ..."
        words = head.split()
        comm, _, rest = stat.rpartition(")")
        fields = rest.split()  # from field 3 (state): utime is field 14, stime field 15
        if len(words) != 4 or not words[1].isdigit() or comm.strip() in NOT_A_SERVER or len(fields) < 13:
            continue  # a wrapper shell between the server and our command: unknown, never a guess
        hz = int(words[1]) or 100
        user, system = int(fields[11]) / hz, int(fields[12]) / hz
        if words[2].isdigit():  # schedstat: exact total, split in the ticks' proportion
            total = int(words[2]) / 1e9
            share = user / (user + system) if user + system else 0.0
            user, system = total * share, total * (1 - share)
        found[words[0]] = (user, system)
    return found


def negotiation_mismatch(case: Case, got: Negotiated, compression: str = "none") -> str | None:
    """Compare the request with what was negotiated; a description of the first difference."""
    if not got.complete:
        return "the negotiated algorithms were not found in ssh -v output"
    expected: list[tuple[str, str, str | None]] = []
    if case.cipher:
        expected += [("client->server cipher", case.cipher, got.cipher_c2s),
                     ("server->client cipher", case.cipher, got.cipher_s2c)]
    if case.mac:
        want = "<implicit>" if case.cipher and is_aead(case.cipher) else case.mac
        expected += [("client->server MAC", want, got.mac_c2s), ("server->client MAC", want, got.mac_s2c)]
    if case.kex:
        expected.append(("key exchange", case.kex, got.kex))
    if case.hostkey:
        expected.append(("host key algorithm", case.hostkey, got.hostkey))
    expected += [("client->server compression", compression, got.compression_c2s),
                 ("server->client compression", compression, got.compression_s2c)]
    for what, want, have in expected:
        if want != have:
            return f"asked for {what} {want} but {have} was negotiated"
    return None


def tail_lines(lines: list[tuple[float, str]]) -> list[str]:
    """Last lines worth reading: ssh's own messages first, debug noise only if there is nothing else."""
    plain = [text for _, text in lines if not text.startswith("debug")]
    return (plain or [text for _, text in lines])[-STDERR_TAIL:]


# What ssh says when the server ended the connection under it: (its words, what they mean), the first found from
# the end of its own lines (OpenSSH 9.2: "Connection reset by 127.0.0.1 port 2222"; before the banner a
# "kex_exchange_identification: ..." line first, after login "Connection to HOST closed by remote host.")
_ENDED_BY = (("Connection reset by", "the server reset the connection"),
             ("Connection closed by", "the server closed the connection"),
             ("closed by remote host", "the server closed the connection"),
             ("kex_exchange_identification", "the server ended the banner exchange"))
# Where the connection had got to, from ssh -v's phase marks (the latest first)
_STAGES = (("authenticated", "after login"), ("newkeys_received", "after the key exchange, during authentication"),
           ("banner_received", "after its banner, during the key exchange"))


def ended_by(lines: list[tuple[float, str]], phases: dict[str, float]) -> str | None:
    """What ended a connection before its remote command started, in words, with ssh's own line and where the
    connection had got to: "the server reset the connection after its banner, during the key exchange (ssh:
    Connection reset by 127.0.0.1 port 2222)"; None where ssh said none of it (a refused TCP connect)."""
    for _, text in reversed(lines):
        if text.startswith("debug"):
            continue
        what = next((means for words, means in _ENDED_BY if words in text), None)
        if what is not None:
            stage = next((said for mark, said in _STAGES if mark in phases), "before its banner")
            return f"{what} {stage} (ssh: {text})"
    return None


def _named(failed: Failed, count: int, lines: list[tuple[float, str]], transcript: Transcript | None) -> str:
    """A failure said, and a connection that ended before its command with what ended it (ended_by), where ssh
    said."""
    said = failed.said(count)
    if not failed.not_started or (why := ended_by(lines, transcript.phases if transcript else {})) is None:
        return said
    return f"{said}: {why}"


def concluded(target: Target, case: Case, sample: Sample, connections: Sequence[Ran], ended: list[Ended],
               error: Failed | None, remote_cpu: bool, timeout: float, proven: Negotiated | None = None,
               transcripts: list[Transcript] | None = None) -> Sample:
    """Exit statuses, CPU, what ssh -v proved and the verdict of the sample, from every connection. `proven`:
    the algorithms of the connection a session reused (its ControlMaster's ssh -v), where this ssh negotiated
    none of its own; `transcripts`: what each connection proved where it was not ssh (a client driver's,
    measure/drivers.py), in place of its ssh -v."""
    statuses = [os.waitstatus_to_exitcode(e.status) for e in ended]
    sample.exit_status = next((s for s in statuses if s != 0), statuses[0] if statuses else None)
    usages = [e.usage for e in ended]
    if usages and all(u is not None for u in usages):
        compressor = [e.compressor_usage for e in ended if e.compressor_usage is not None]
        sample.client_cpu_user_seconds = sum(u.ru_utime for u in usages if u) + sum(u.ru_utime for u in compressor)
        sample.client_cpu_sys_seconds = sum(u.ru_stime for u in usages if u) + sum(u.ru_stime for u in compressor)
        if compressor:
            sample.client_compressor_cpu_seconds = sum(u.ru_utime + u.ru_stime for u in compressor)
    if transcripts is None:
        transcripts = [parse_verbose(c.stderr_lines) for c in connections]
    if proven is not None:
        transcripts = [t if t.negotiated.kex else replace(t, negotiated=proven) for t in transcripts]
    first = transcripts[0] if transcripts else None
    if first is not None:
        sample.negotiated = first.negotiated
        sample.phases = {k: round(v, 6) for k, v in first.phases.items()}
    if transcripts and all(t.transferred for t in transcripts):
        sample.wire_bytes_sent = sum(t.transferred[0] for t in transcripts if t.transferred)
        sample.wire_bytes_received = sum(t.transferred[1] for t in transcripts if t.transferred)
    _server_cpu(target, sample, connections, remote_cpu)
    failing, said, sample.failure = _verdict(case, sample, connections, transcripts, error, timeout,
                                             target.server_cpu_exact)
    sample.error = said
    sample.ok = said is None
    if len(connections) > 1:
        sample.stream_status = [_status(c, t) for c, t in zip(connections, transcripts, strict=True)]
    if said is not None:
        lines = connections[failing].stderr_lines if connections else []  # the stream that failed, not the first
        sample.stderr_tail = tail_lines(lines) + [f"server: {line}" for line in target.server_log_tail()[-3:]]
    return sample


def _status(connection: Ran, transcript: Transcript) -> str:
    """One stream's own outcome, for the sample's per-stream facts: "ok", or what happened to it."""
    if connection.timed_out.is_set():
        return "timed out"
    if transcript.turned_away:
        return transcript.turned_away
    if transcript.refused:
        return f"server refused: {transcript.refused}"
    code = connection.proc.returncode
    return "ok" if code == 0 else f"ssh exited with status {code}"


def _server_cpu(target: Target, sample: Sample, connections: Sequence[Ran], remote_cpu: bool) -> None:
    """The server side's CPU, summed over the connections: its processes (wait4), or as the remote command read
    it, plus its compression pipeline (`times`) where the server's own figure leaves that out."""
    pipeline = [children_cpu(c.stderr_lines) for c in connections]
    if all(p is not None for p in pipeline) and connections:
        sample.server_compressor_cpu_seconds = sum(p for p in pipeline if p is not None)
    if remote_cpu:
        parts = [Sample(case_id="", round=0, warmup=False, ok=True, started_at="", size_bytes=sample.size_bytes)
                 for _ in connections]
        for part, connection in zip(parts, connections, strict=True):
            _remote_cpu(part, parse_remote_cpu(connection.stderr_lines))
        if parts and all(p.server_cpu_user_seconds is not None for p in parts):
            sample.server_cpu_user_seconds = sum(p.server_cpu_user_seconds or 0.0 for p in parts) + (
                sample.server_compressor_cpu_seconds or 0.0)  # the session process's figure leaves its children out
            sample.server_cpu_sys_seconds = sum(p.server_cpu_sys_seconds or 0.0 for p in parts)
            if all(p.server_cpu_setup_seconds is not None for p in parts):
                sample.server_cpu_setup_seconds = sum(p.server_cpu_setup_seconds or 0.0 for p in parts)
        return
    found = [target.server_process(c.peer_port) if c.peer_port is not None else None for c in connections]
    if found and all(f is not None for f in found):
        sample.server_cpu_user_seconds = sum(f.cpu_user_s for f in found if f is not None)
        sample.server_cpu_sys_seconds = sum(f.cpu_sys_s for f in found if f is not None)


Verdict = tuple[int, str | None, Failure | None]  # the failing stream, the sample's error, what it was


def _verdict(case: Case, sample: Sample, connections: Sequence[Ran], transcripts: list[Transcript],
             error: Failed | None, timeout: float, server_cpu_exact: bool) -> Verdict:
    """(the failing stream, the sample's error, what it was where the run decides by that), in order: a timeout,
    a connection the server turned away (its MaxStartups: named, never a failing cipher), a refusal, a negotiation
    that is not the case's, a failed exit."""
    count = len(connections)
    for index, connection in enumerate(connections):
        if connection.timed_out.is_set():
            return index, which(index, count, f"timed out after {timeout:.0f}s"), Failure.TIMED_OUT
    for index, connection in enumerate(connections):
        if connection.server_gone.is_set():
            return index, which(index, count, "the server's process ended mid-sample (killed, or it crashed): the "
                                "sample failed at once instead of waiting out its timeout"), None
    for index, transcript in enumerate(transcripts):
        if transcript.turned_away:
            return index, which(index, count, transcript.turned_away), None
    for index, transcript in enumerate(transcripts):
        if transcript.refused:
            return index, which(index, count, f"server refused: {transcript.refused}"), Failure.REFUSED
    if error is not None:
        index = error.stream if error.stream is not None and error.stream < count else 0
        named = _named(error, count, connections[index].stderr_lines, transcripts[index]) if connections \
            else error.said(count)
        return index, named, None
    for index, transcript in enumerate(transcripts):
        mismatch = negotiation_mismatch(case, transcript.negotiated, expected_compression(case))
        if mismatch:
            return index, which(index, count, mismatch), None
    for index, connection in enumerate(connections):
        if connection.proc.returncode != 0:
            return index, which(index, count, f"ssh exited with status {connection.proc.returncode}"), None
    if case.moves_data and sample.server_cpu_user_seconds is None and server_cpu_exact:
        return 0, "the server process of this connection was not found", None
    return 0, None, None


def _remote_cpu(sample: Sample, cpu: dict[str, tuple[float, float]]) -> None:
    """Transfers: the session process's total after the data, with the part before it as set-up."""
    before, after = cpu.get("before"), cpu.get("after")
    total = after or before
    if total is None or not sample.size_bytes:
        # not Linux or /proc hidden; or a set-up case, whose key exchange ran in sshd's pre-auth process
        # (gone by the time our command runs): unknown, not zero
        return
    sample.server_cpu_user_seconds, sample.server_cpu_sys_seconds = total
    if sample.size_bytes and before is not None and after is not None:
        sample.server_cpu_setup_seconds = sum(before)
    elif sample.size_bytes:
        sample.server_cpu_user_seconds = sample.server_cpu_sys_seconds = None
