"""Schedule -> samples: runs every visit, sizes cases from the warm-up, saves as it goes.

The runner never prints: it tells an injected Reporter what happens (the
terminal UI is one; tests use the do-nothing default) and hands the report
to a writer after every sample, so nothing measured is ever lost.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from sshbench.analysis.decide import rule_for
from sshbench.analysis.stats import summarize
from sshbench.errors import BudgetTooSmall, NothingMeasured, OutputError, RunStopped
from sshbench.linkspec import parse_label
from sshbench.measure.controls import CEILING_SECONDS, run_crypto_ceiling, run_tcp_control
from sshbench.measure.datapath import Tick
from sshbench.measure.filetool import TransferFiles, run_transfer_sample
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.options import RunOptions
from sshbench.plan.budget import FIT_MARGIN, too_long
from sshbench.plan.schedule import Schedule, Visit, round_state
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Report, Sample, TimeUse
from sshbench.targets.base import Target
from sshbench.units import MiB

MIN_AUTO_SIZE = 4 * MiB
MAX_AUTO_SIZE = 64 * 1024 * MiB
# Before any measurement: a guess only used for the first ETA.
_GUESS_RATE = 500e6
_GUESS_SETUP = 0.25
_SLOWEST_RATE = 5e6


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    eta_seconds: float


class Reporter(Protocol):
    def started(self, report: Report, total: int) -> None: ...

    def sample_started(self, visit: Visit, progress: Progress) -> None: ...

    def data_moved(self, moved: int) -> None:
        """Bytes moved by the running sample's data phase, chunk by chunk (for a live rate)."""
        ...

    def sample_finished(self, sample: Sample, progress: Progress) -> None: ...


class NullReporter:
    def started(self, report: Report, total: int) -> None:
        pass

    def sample_started(self, visit: Visit, progress: Progress) -> None:
        pass

    def data_moved(self, moved: int) -> None:
        pass

    def sample_finished(self, sample: Sample, progress: Progress) -> None:
        pass


def auto_size(warmup: Sample, target_seconds: float) -> int | None:
    """Bytes for one sample to last about `target_seconds`, from the warm-up's rate (whole MiB)."""
    rate = warmup.throughput_bytes_per_second
    if rate is None:
        return None
    size = int(rate * target_seconds) // MiB * MiB
    return max(MIN_AUTO_SIZE, min(MAX_AUTO_SIZE, size))


@dataclass
class _Estimates:
    """Expected seconds per visit of each case, refined as samples arrive (for the ETA only)."""

    seconds: dict[str, float] = field(default_factory=dict)
    rates: dict[str, float] = field(default_factory=dict)

    def of(self, case: Case, size: int) -> float:
        if case.id in self.seconds:
            return self.seconds[case.id]
        if case.kind is CaseKind.CEILING:
            return CEILING_SECONDS
        return _GUESS_SETUP + (size / _GUESS_RATE if case.moves_data else 0.0)

    def typical(self) -> float:
        """Mean expected seconds per visit so far, for visits not yet scheduled."""
        return sum(self.seconds.values()) / len(self.seconds) if self.seconds else _GUESS_SETUP + 0.5

    def transfer_allowance(self, case: Case, size: int) -> float:
        """Hang guard, not a precision tool: ten times the expected transfer, or 5 MB/s when unknown."""
        rate = self.rates.get(case.id)
        return 10 * size / rate if rate else size / _SLOWEST_RATE

    def learn(self, sample: Sample, next_size: int) -> None:
        if not sample.ok or sample.total_seconds is None:
            return
        if sample.throughput_bytes_per_second:
            setup = sample.total_seconds - (sample.data_seconds or 0.0)
            self.seconds[sample.case_id] = setup + next_size / sample.throughput_bytes_per_second
            self.rates[sample.case_id] = sample.throughput_bytes_per_second
        else:
            self.seconds[sample.case_id] = sample.total_seconds


def execute(report: Report, plan: Schedule, target: Target, options: RunOptions,
            save: Callable[[Report], None], reporter: Reporter | None = None,
            settings: SampleSettings | None = None, files: TransferFiles | None = None) -> Report:
    """Run rounds until the schedule is done or the time budget would be overrun.

    `files` are the test files the file methods (scp, sftp, rsync) move; their
    cases are sized by the file, not by the warm-up.
    On Ctrl-C the report is marked interrupted, saved and the interrupt re-raised.
    """
    reporter = reporter or NullReporter()
    settings = settings or SampleSettings(compression=options.compression, env=options.crypto_env())
    estimates = _Estimates()
    for record in report.cases:
        if not record.case.is_pipe and files is None:
            raise ValueError(f"{record.case.id} needs test files")
        if files is not None and record.case.kind is CaseKind.CIPHER and (not record.case.is_pipe
                                                                     or not options.size_bytes):
            # the pipe's cipher cases move as many bytes as the file tools, so end-to-end rates compare
            record.size_bytes, record.size_source = files.shape.total_bytes, "file"
        elif record.case.moves_data and record.case.kind is not CaseKind.CEILING and not record.size_bytes:
            record.size_bytes = options.size_bytes or options.warmup_bytes
            record.size_source = "fixed" if options.size_bytes else "warmup"
    records = {r.case.id: r for r in report.cases}
    openssl = shutil.which("openssl")
    budget = options.time_budget_seconds
    started = time.monotonic()
    done = 0
    reporter.started(report, sum(plan.required(round_state(report)).values()))
    failures: list[Sample] = []  # the failed samples since the last good one
    precision = options.precision if options.mode == "precision" else None
    rule = rule_for(options)
    mhz = report.environment.host.cpu_mhz
    clock_hz = mhz * 1e6 if mhz else None
    try:
        while rnd := _live(plan.next_round(round_state(report)), records):
            # the warm-up is done: can the minimum for an interval still fit? (fixed mode asked for exact counts)
            if rnd[0].round == 1 and budget is not None and options.mode != "fixed":
                _check_minimum_fits(report, plan, estimates, options, budget, time.monotonic() - started)
            for position, visit in enumerate(rnd):
                record = records[visit.case.id]
                if record.status is CaseStatus.SKIPPED:
                    continue
                size = record.size_bytes if visit.case.moves_data else 0
                remaining = [v for v in rnd[position:] if records[v.case.id].status is not CaseStatus.SKIPPED]
                later = _later(plan, report, remaining)
                eta = sum(estimates.of(v.case, records[v.case.id].size_bytes) for v in remaining)
                eta += later * estimates.typical()
                if budget is not None:
                    left = budget - (time.monotonic() - started)
                    if estimates.of(visit.case, size) > left:
                        report.stop_reason = f"time budget of {budget:.0f} s reached"
                        raise _BudgetSpent
                    eta = min(eta, left)
                if options.max_bytes is not None and bytes_moved(report) + size > options.max_bytes:
                    report.stop_reason = f"byte cap of {options.max_bytes:,} bytes (--max-bytes) reached"
                    raise _BudgetSpent
                total = done + len(remaining) + later
                reporter.sample_started(visit, Progress(done, total, eta))
                timeout = options.timeout_seconds + estimates.transfer_allowance(visit.case, size)
                target.check_alive()
                sample = _measure(visit, size, timeout, target, settings, openssl, reporter.data_moved, files)
                report.samples.append(sample)
                target.check_alive()  # a sample that failed because the link died says so, not "timed out"
                _update_case(record, sample, options)
                failures = [] if sample.ok or _refused(sample) else [*failures, sample]
                # the embedded server's files are on this machine: their free space can be looked at directly
                stop_if_doomed(failures, files, local_disks=target.server_cpu_exact)
                estimates.learn(sample, record.size_bytes)
                report.summaries = summarize(report.cases, report.samples, precision, clock_hz, rule)
                save(report)
                done += 1
                reporter.sample_finished(sample, Progress(done, total, eta))
        report.status = "complete"
    except _BudgetSpent:
        report.status = "complete"
    except KeyboardInterrupt:
        report.status = "interrupted"
        raise
    except BaseException as exc:
        report.status = "failed"
        report.error = str(exc) or type(exc).__name__
        raise
    finally:
        if report.status == "complete" and not any(s.ok and not s.warmup for s in report.samples):
            report.status = "failed"  # an empty run is not a complete one (e.g. a budget shorter than the warm-up)
            report.error = _nothing_measured(report, budget)
        report.finished_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        report.summaries = summarize(report.cases, report.samples, precision, clock_hz, rule)
        report.time_use = time_use(report, time.monotonic() - started)
        save(report)
    if report.error and report.status == "failed":
        raise NothingMeasured(report.error)
    return report


def _later(plan: Schedule, report: Report, remaining: list[Visit]) -> int:
    """Visits certain to come after the current round's remaining ones."""
    in_round: dict[str, int] = {}
    for visit in remaining:
        in_round[visit.case.id] = in_round.get(visit.case.id, 0) + 1
    return sum(max(0, n - in_round.get(case_id, 0)) for case_id, n in plan.required(round_state(report)).items())


def _check_minimum_fits(report: Report, plan: Schedule, estimates: _Estimates, options: RunOptions,
                        budget: float, spent: float) -> None:
    """Refuse, before measuring, a budget that cannot give every case its minimum (an interval for each)."""
    required = plan.required(round_state(report))
    needed = {report.case(case_id).case: count * estimates.of(report.case(case_id).case,
                                                               report.case(case_id).size_bytes)
              for case_id, count in required.items() if count}
    if sum(needed.values()) * FIT_MARGIN > budget - spent:
        raise BudgetTooSmall(too_long({case: seconds * FIT_MARGIN for case, seconds in needed.items()}, spent,
                                      budget - spent, options))


def time_use(report: Report, wall: float) -> TimeUse:
    """Where the wall time went, from the samples' own phase times."""
    throughput = (CaseKind.CIPHER, CaseKind.MAC)
    kinds = {r.case.id: r.case.kind for r in report.cases}
    samples = [(s, kinds.get(s.case_id)) for s in report.samples if s.total_seconds is not None]
    return TimeUse(
        wall_seconds=wall,
        sample_seconds=sum(s.total_seconds or 0.0 for s, _ in samples),
        data_seconds=sum(s.data_seconds or 0.0 for s, _ in samples),
        throughput_sample_seconds=sum(s.total_seconds or 0.0 for s, kind in samples if kind in throughput),
        throughput_data_seconds=sum(s.data_seconds or 0.0 for s, kind in samples if kind in throughput and s.ok),
    )


# Failures that doom every later sample: a full or read-only disk (the file methods' files, either side).
_DISK_FULL = ("No space left on device", "Disk quota exceeded", "Read-only file system")
DOOMED_AFTER = 5  # failed samples in a row, all with the same error ...
DOOMED_CASES = 3  # ... over at least this many cases


def stop_if_doomed(failures: list[Sample], files: TransferFiles | None = None, local_disks: bool = False) -> None:
    """Raise when the failures since the last good sample show that every later sample would fail too.

    A disk that filled up stops the run at the first sign (the tools' messages, or, for files on this
    machine, its free space); otherwise DOOMED_AFTER failures in a row, with one error, across
    DOOMED_CASES cases or more (a server that went away) do.
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
    recent = failures[-DOOMED_AFTER:]
    if len(recent) == DOOMED_AFTER and len({s.error for s in recent}) == 1 \
            and len({s.case_id for s in recent}) >= DOOMED_CASES:
        raise RunStopped(f"the last {DOOMED_AFTER} samples, of {len({s.case_id for s in recent})} different cases, "
                         f"all failed with: {last.error}; fix that (the results file has each sample's stderr) "
                         "and run again")


def _short_of_space(files: TransferFiles) -> bool:
    """The workdir can no longer take one received copy (sftp-server reports a full disk only as "Failure")."""
    try:
        return shutil.disk_usage(files.client_dir).free < files.shape.total_bytes
    except OSError:
        return False


def _nothing_measured(report: Report, budget: float | None) -> str:
    why = report.stop_reason or "every sample failed"
    hint = (f"raise --time-budget above {budget:.0f} s (the warm-up round alone needs more)"
            if budget is not None and "time budget" in why else
            "raise --max-bytes" if "byte cap" in why else "see the failures in the results file")
    return f"nothing was measured ({why}): {hint}"


def _measure(visit: Visit, size: int, timeout: float, target: Target, settings: SampleSettings,
             openssl: str | None, tick: Tick, files: TransferFiles | None) -> Sample:
    """One sample of any kind of case: an SSH connection, a file tool's pair of runs, or a reference control."""
    if not visit.case.is_pipe and files is not None:
        sample = run_transfer_sample(target, visit.case, files, visit.round, timeout, settings)
        if sample.bytes_received:
            tick(sample.bytes_received)
        return sample
    if visit.case.kind is CaseKind.CEILING:
        return run_crypto_ceiling(visit.case, visit.round, openssl, settings.env)
    if visit.case.kind is CaseKind.CONTROL:
        return run_tcp_control(visit.case, size, visit.round, timeout, settings.payload,
                               target.tcp_ends(visit.case.link))
    return run_sample(target, visit.case, size, visit.round, timeout, settings, tick)


def bytes_moved(report: Report) -> int:
    """Bytes sent over the network so far (local ceilings move none)."""
    return sum(s.bytes_received or s.size_bytes for s in report.samples
               if report.case(s.case_id).case.kind is not CaseKind.CEILING)


class _BudgetSpent(Exception):
    """The next visit would not fit in the time budget."""


def _live(rnd: list[Visit], records: dict[str, CaseRecord]) -> list[Visit]:
    return [v for v in rnd if records[v.case.id].status is not CaseStatus.SKIPPED]


def _refused(sample: Sample) -> bool:
    """The server does not offer what the case asks: the case is skipped, nothing is wrong with the run."""
    return bool(sample.error and sample.error.startswith("server refused"))


# Raw TCP across a delayed link ramps up for seconds (slow start, then the send buffer's limit): measured at
# 80 ms here, 23 MB/s in 1 s samples, 32 MB/s in 6.5 s, 33 MB/s in 19 s. Its samples there last this many
# times --sample-seconds, so the reference is the path's steady state rather than its ramp.
LINK_CONTROL_STRETCH = 5.0


def _control_stretch(case: Case) -> float:
    return LINK_CONTROL_STRETCH if case.kind is CaseKind.CONTROL and case.link and \
        parse_label(case.link).rtt_seconds else 1.0


def _update_case(record: CaseRecord, sample: Sample, options: RunOptions) -> None:
    if _refused(sample):
        record.status = CaseStatus.SKIPPED
        record.reason = sample.error
        return
    if sample.warmup and record.case.moves_data and record.case.kind is not CaseKind.CEILING \
            and options.size_bytes is None and record.size_source != "file":
        sized = auto_size(sample, options.sample_seconds * _control_stretch(record.case))
        if sized is not None:
            record.size_bytes = sized
            record.size_source = "auto"
        else:
            record.reason = f"warm-up failed ({sample.error}); kept the probe size"
