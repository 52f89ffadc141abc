"""A run against a real target: the run loop (measure/loop.py) with the sampler that takes real samples.

The sampler picks the way each visit is measured (an SSH connection through
the pipe, a file tool's pair of runs, a raw TCP control, a crypto ceiling);
the file methods' cases are sized by their test file rather than the
warm-up; and a disk that fills up stops the run at the first sign. The loop
does everything else, and never prints: it tells an injected Reporter what
happens and hands the report to a writer after every sample.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass

from sshbench.measure.command import run_command_sample
from sshbench.measure.controls import run_crypto_ceiling, run_tcp_control
from sshbench.measure.failures import stop_if_same_failure
from sshbench.measure.filetool import TransferFiles, run_transfer_sample
from sshbench.measure.loop import Hooks, run_loop
from sshbench.measure.masters import Masters
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.options import RunOptions
from sshbench.plan.base import Schedule
from sshbench.results.events import Reporter, Visit
from sshbench.results.model import CaseKind, Report, Sample
from sshbench.targets.base import Target
from sshbench.vocabulary.errors import OutputError

# Failures that doom every later sample: a full or read-only disk (the file methods' files, either side).
_DISK_FULL = ("No space left on device", "Disk quota exceeded", "Read-only file system")


@dataclass
class TargetSampler:
    """One real sample of any kind of case against `target` (measure/loop.py's Sampler)."""

    target: Target
    settings: SampleSettings
    files: TransferFiles | None = None
    openssl: str | None = None
    masters: Masters | None = None  # the reused short commands' ControlMasters (measure/masters.py)

    def __call__(self, visit: Visit, size: int, timeout: float, tick: Callable[[int], None]) -> Sample:
        case = visit.case
        if not case.is_pipe and self.files is not None:
            sample = run_transfer_sample(self.target, case, self.files, visit.round, timeout, self.settings)
            if sample.bytes_received:
                tick(sample.bytes_received)
            return sample
        if case.kind is CaseKind.CEILING:
            return run_crypto_ceiling(case, visit.round, self.openssl, self.settings.env)
        if case.kind is CaseKind.COMMAND:
            return run_command_sample(self.target, case, visit.round, timeout, self.settings, self.masters)
        if case.kind is CaseKind.CONTROL:
            return run_tcp_control(case, size, visit.round, timeout, self.settings.payload,
                                   self.target.tcp_ends(case.link))
        return run_sample(self.target, case, size, visit.round, timeout, self.settings, tick)


def execute(report: Report, plan: Schedule, target: Target, options: RunOptions,
            save: Callable[[Report], None], reporter: Reporter | None = None,
            settings: SampleSettings | None = None, files: TransferFiles | None = None,
            place: Callable[[str], None] | None = None) -> Report:
    """Run rounds until the schedule is done or the time budget would be overrun (measure/loop.py).

    `files` are the test files the file methods (scp, sftp, rsync) move; their
    cases are sized by the file, not by the warm-up. `place` moves both ends
    between placements for the placement trial (measure/placing.py).
    """
    settings = settings or SampleSettings(env=options.crypto_env())
    for record in report.cases:
        if not record.case.is_pipe and files is None:
            raise ValueError(f"{record.case.id} needs test files")
        if files is not None and record.case.kind is CaseKind.CIPHER and (not record.case.is_pipe
                                                                     or not options.size_bytes):
            # the pipe's cipher cases move as many bytes as the file tools, so end-to-end rates compare
            record.size_bytes, record.size_source = files.shape.total_bytes, "file"
    hooks = Hooks(check_alive=target.check_alive,
                  doomed=lambda failures: stop_if_doomed(failures, files, local_disks=target.server_cpu_exact),
                  place=place)
    with Masters(target, options.timeout_seconds) as masters:
        sampler = TargetSampler(target, settings, files, shutil.which("openssl"), masters)
        return run_loop(report, plan, sampler, options, save, reporter, hooks)


def stop_if_doomed(failures: list[Sample], files: TransferFiles | None = None, local_disks: bool = False) -> None:
    """Raise when the failures since the last good sample show that every later sample would fail too.

    A disk that filled up stops the run at the first sign (the tools' messages, or, for files on this
    machine, its free space); otherwise the loop's rule (the same error, again and again, across cases).
    """
    if not failures:
        return
    last = failures[-1]
    said = " ".join([last.error or "", *last.stderr_tail])
    full = next((reason for reason in _DISK_FULL if reason in said), None)
    if full is None and files is not None and local_disks and _short_of_space(files):
        full = "No space left on device"
    if full is not None:
        where = "--workdir" if local_disks else "--workdir (this side) or --remote-workdir (the server)"
        raise OutputError(f"a disk filled up or turned read-only during the file transfers ({full}, in "
                          f"{last.case_id}): free space or choose another {where}, use a smaller --size, or "
                          "--sink null")
    stop_if_same_failure(failures)


def _short_of_space(files: TransferFiles) -> bool:
    """The workdir can no longer take one received copy (sftp-server reports a full disk only as "Failure")."""
    try:
        return shutil.disk_usage(files.client_dir).free < files.shape.total_bytes
    except OSError:
        return False
