"""ONE short command (--commands): ssh started, its remote command run, ssh exited; returned as a Sample.

Why from process start to exit: that is what automation waits for per task
and what `time ssh HOST true` says; the set-up cases stop at the remote
command's first output and leave out the close. The remote shell prints
sshbench's ready line first (it names our source port, so the server's
process is matched exactly, as for transfers: measure/pipe.py), then runs
the command. Its input is written into ssh's stdin at once and closed, as
`ssh HOST cmd < file` gives it; the output is counted and checked.

The figure is `command_seconds` (ssh started -> reaped); `setup_seconds` is
the ready line's arrival, so the phases of ssh -v, the command's start and
its run to the exit sum to the figure (analysis/connections/phases.py).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from sshbench.axes import effect_of
from sshbench.measure.connection import NOT_STARTED, READY_COMMAND, Ended
from sshbench.measure.leanrun import run_lean
from sshbench.measure.masters import MasterError, Masters
from sshbench.measure.pipe import SampleSettings, ssh_compression_options
from sshbench.measure.proof import Failed, concluded
from sshbench.results.model import Case, Sample
from sshbench.targets.base import OWN_CONNECTION, Target
from sshbench.vocabulary.commands import COMMANDS, USER_KEYS
from sshbench.vocabulary.errors import ServerError


def remote_command(case: Case) -> str:
    return f"{READY_COMMAND}; {COMMANDS[case.command].remote}"


def run_command_sample(target: Target, case: Case, round_no: int, timeout: float,
                       settings: SampleSettings | None = None, masters: Masters | None = None) -> Sample:
    """Run the case's short command once: over a fresh connection, or (--reuse reused) as a new session over
    the path's ControlMaster from `masters`, which its own ssh -v must show (masters.not_reused). Never raises
    for ssh failures: they come back as a failed Sample."""
    settings = settings or SampleSettings()
    command = COMMANDS[case.command]
    sample = Sample(case_id=case.id, round=round_no, warmup=round_no == 0, ok=False,
                    started_at=datetime.now(UTC).isoformat(timespec="milliseconds"), size_bytes=0)
    effect = effect_of(case.dims)
    try:
        reuse = _reuse_options(case, effect.control_master, masters)
        identity = _identity_options(target, case, effect.user_key)
    except (MasterError, ServerError) as exc:
        sample.error = str(exc)
        return sample
    argv = target.ssh_argv(case, remote_command(case))
    argv[1:1] = [*ssh_compression_options(case), *effect.ssh_options, *reuse, *identity]
    env = {**os.environ, **target.tool_env, **settings.env}
    given = bytes(command.input_bytes)
    run = run_lean(target.client_argv(argv), env, given, timeout)
    sample.total_seconds = run.exited_seconds
    sample.setup_seconds = run.setup_seconds
    if effect.control_master:  # the port is the master's: its server process outlives this session, and its
        run.peer_port = None  # CPU is the master's whole connection's (unknown for the session alone)
    error: Failed | None = None
    if run.setup_seconds is None:
        error = Failed(NOT_STARTED, not_started=True)
    else:
        sample.bytes_received, sample.verified = run.output_bytes, "count"
        if run.output_bytes != command.output_bytes:
            error = Failed(f"the command printed {run.output_bytes} bytes, expected {command.output_bytes}")
    if effect.control_master and masters is not None:  # its own ssh -v proves it rode the master, or it fails
        alone = masters.not_reused(case, run.stderr_lines, error is not None or run.proc.returncode != 0)
        error = Failed(alone) if alone is not None else error
    if error is None:
        sample.command_seconds = run.exited_seconds
    proven = masters.proven(case) if masters is not None and effect.control_master else None
    sample = concluded(target, case, sample, [run], [Ended(run.status, run.usage, None)], error, False, timeout,
                       proven)
    accepted = sample.negotiated.userkey if sample.negotiated is not None else None
    wanted = USER_KEYS[effect.user_key].accepted if effect.user_key in USER_KEYS else None
    if sample.ok and wanted is not None and accepted is not None and accepted != wanted:  # (a mux session: none)
        sample.ok, sample.error = False, f"logged in with an {accepted} key, not the {effect.user_key} one asked for"
    return sample


def _reuse_options(case: Case, reused: bool, masters: Masters | None) -> tuple[str, ...]:
    """A reused sample's options to its path's master; a fresh sample's to never use one, even where the
    user's ssh config has ControlMaster (a real host): fresh means a connection of its own."""
    if not reused:
        return OWN_CONNECTION
    if masters is None:
        raise MasterError("a reused short command needs the run's ControlMasters (measure/masters.py)")
    return masters.options(case)


def _identity_options(target: Target, case: Case, kind: str | None) -> tuple[str, ...]:
    """The client key of `kind` offered first, and only the configured keys after it (ServerError where the
    target cannot give one: a real host's keys are the user's own)."""
    if kind is None:
        return ()
    path = target.identity(case, kind)
    if path is None:
        raise ServerError(f"--user-keys {kind}: this server's client keys are not sshbench's to choose (a real "
                          "host is logged in with your own keys; the embedded OpenSSH server makes its own)")
    return ("-i", path, "-o", "IdentitiesOnly=yes")
