"""A pipe sample's connections made by a client driver (clientparts/) instead of the run's ssh, and what they proved.

Everything else of the sample is the pipe's own (measure/pipe.py): the same
remote command, so the server side counts an upload's bytes (`wc -c`) and
sends a download's exactly as for ssh; the same source and sink, steady
state and timeout; each side's CPU by wait4 (the driver is the connection's
process: interpreter, library and its threads). What differs is the proof.
ssh says what it negotiated in its -v lines; a driver says it in its one
line (clientparts/base.py, DriverLine), and the embedded server, asked to log
the driver's connection (servers/inetd.LOGGED), says it too: where the
server said, its word is the sample's (`negotiated_from` "server log") and
the driver's must agree with it, or the sample fails naming both; where it
cannot say (Dropbear, tinysshd), the driver's word is checked against the
case (`negotiated_from` "driver"). A driver that execs a client program which
says nothing (dbclient: `says_negotiation=False`) writes no line: the server's
log alone proves its sample, and where there is none the sample fails saying
so (a run refuses such a server first, cli/refusals.py). A driver that could
not do what was asked fails with its own one line (or its program's) as the
sample's reason.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from sshbench.clientparts import ClientPart, DriverLine, DriverRequest, failure
from sshbench.measure.proof import Failed, Ran
from sshbench.plumbing.kexinit import software_version
from sshbench.plumbing.negotiation import Negotiated, Transcript
from sshbench.results.model import Case, Sample
from sshbench.targets.base import HOST_ALIAS, ServerSaid, Target
from sshbench.vocabulary.errors import UsageError

# A driver's marks as the ssh -v phase marks that name the same moments (plumbing/negotiation.PHASE_MARKERS)
_PHASES = (("connected", "tcp_connected"), ("kex_done", "newkeys_received"), ("authenticated", "authenticated"),
           ("session_open", "session_open"))
_COMPARED = ("kex", "hostkey", "cipher_c2s", "cipher_s2c", "mac_c2s", "mac_s2c", "compression_c2s",
             "compression_s2c")


def driver_argv(part: ClientPart, target: Target, case: Case, command: str) -> list[str]:
    """The driver's argv for one connection of `case`: its request pins the case's algorithms."""
    endpoint = target.client_endpoint(case)
    if endpoint is None:  # refused before the run (cli/refusals.py); a caller that got here is a bug's
        raise UsageError(f"--client {part.name}: this target has no endpoint a client driver can reach")
    request = DriverRequest(endpoint.host, endpoint.port, endpoint.user, endpoint.identity, endpoint.known_hosts,
                            HOST_ALIAS, endpoint.expect_dir, command, case.direction.value, case.cipher, case.mac,
                            case.kex, case.hostkey, compression=case.compressor.is_ssh)
    return request.argv(part)


@dataclass(frozen=True)
class Proof:
    """What a driver's connections proved: one transcript each (as proof.concluded reads ssh's), the first
    conflict between a driver's word and its server's (None: none), and facts for the sample."""

    transcripts: list[Transcript]
    error: str | None
    source: str | None  # "server log" or "driver": whose word the transcripts hold
    client_window: int | None  # the first connection's advertised window and packet size, as the server logged
    client_max_packet: int | None
    client_data_seconds: float | None  # the first connection's data phase on the driver's own clock


def proved(part: ClientPart, target: Target, connections: Sequence[Ran], spawned: Sequence[float]) -> Proof:
    """Each ended connection's driver line and its server's log, as transcripts. `spawned`: when each driver was
    started (time.perf_counter), from which its marks become seconds since its start, as ssh -v's are."""
    offset = time.clock_gettime(time.CLOCK_MONOTONIC) - time.perf_counter()
    transcripts: list[Transcript] = []
    error: str | None = None
    sources: list[str] = []
    saids: list[ServerSaid | None] = []
    lines: list[DriverLine | None] = []
    for index, connection in enumerate(connections):
        line = next((found for _, text in reversed(connection.stderr_lines)
                     if (found := DriverLine.parse(text)) is not None), None)
        said = target.server_said(connection.peer_port) if connection.peer_port is not None else None
        lines.append(line)
        saids.append(said)
        word = _negotiated(line) if line is not None else Negotiated()
        if said is not None:
            sources.append("server log")
            conflict = _conflict(part, word, said.negotiated) if line is not None else None
            if error is None and conflict is not None:
                error = conflict if len(connections) == 1 else f"stream {index + 1} of {len(connections)}: {conflict}"
            # its log's "remote software version" is the client's: the server's own banner is as the driver saw it
            word = replace(said.negotiated, server_version=word.server_version)
        elif line is not None:
            sources.append("driver")
        elif error is None and not part.says_negotiation and connection.peer_port is not None:
            error = (f"{part.title} says nothing of what it negotiated, and the server logged nothing of this "
                     "connection: nothing proves its algorithms")
        phases = {} if line is None else {
            phase: round(at - offset - spawned[index], 6) for mark, phase in _PHASES if (at := line.mark(mark))}
        transcripts.append(Transcript(word, phases))
    first, said0 = lines[0] if lines else None, saids[0] if saids else None
    started, ended = (first.mark("data_started"), first.mark("data_ended")) if first else (None, None)
    return Proof(transcripts, error, sources[0] if sources and len(set(sources)) == 1 else None,
                 said0.client_window if said0 else None, said0.client_max_packet if said0 else None,
                 ended - started if started is not None and ended is not None else None)


def failed_because(part: ClientPart, error: Failed, connections: Sequence[Ran]) -> Failed:
    """A sample's error with the driver's own one-line reason (or its program's), where the failing connection's
    driver gave one."""
    for connection in connections:
        if (why := failure([text for _, text in connection.stderr_lines], part.program)) is not None:
            return replace(error, why=f"{error.why}: {why}")
    return error


def applied(sample: Sample, proof: Proof) -> Sample:
    sample.negotiated_from = proof.source  # type: ignore[assignment]
    sample.client_window_bytes = proof.client_window
    sample.client_data_seconds = proof.client_data_seconds
    return sample


def _negotiated(line: DriverLine) -> Negotiated:
    said = {f.name: getattr(line, f.name) for f in fields(Negotiated) if hasattr(line, f.name)}
    banner = line.server_version
    return Negotiated(**{**said, "server_version": software_version(banner) if banner else None})


def _conflict(part: ClientPart, driver: Negotiated, server: Negotiated) -> str | None:
    for key in _COMPARED:
        mine, theirs = getattr(driver, key), getattr(server, key)
        if mine != theirs:
            return f"{part.title} said {key} {mine}, the server's log {theirs}"
    return None
