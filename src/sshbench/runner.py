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

from sshbench.algorithms import Kind
from sshbench.controls import run_crypto_ceiling, run_tcp_control
from sshbench.datapath import Tick
from sshbench.model import Case, CaseRecord, CaseStatus, Report, Sample
from sshbench.options import RunOptions
from sshbench.plan import Schedule, Visit
from sshbench.probe import ProbeSettings, run_sample
from sshbench.stats import summarize
from sshbench.target import Target
from sshbench.transfer import TransferFiles, run_transfer_sample
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
            settings: ProbeSettings | None = None, files: TransferFiles | None = None) -> Report:
    """Run rounds until the schedule is done or the time budget would be overrun.

    `files` are the test files the file methods (scp, sftp, rsync) move; their
    cases are sized by the file, not by the warm-up.
    On Ctrl-C the report is marked interrupted, saved and the interrupt re-raised.
    """
    reporter = reporter or NullReporter()
    settings = settings or ProbeSettings(compression=options.compression, env=options.crypto_env())
    estimates = _Estimates()
    for record in report.cases:
        if record.case.method != "pipe" and files is None:
            raise ValueError(f"{record.case.id} needs test files")
        if files is not None and record.case.kind is Kind.CIPHER and (record.case.method != "pipe"
                                                                     or not options.size_bytes):
            # the pipe's cipher cases move as many bytes as the file tools, so end-to-end rates compare
            record.size_bytes, record.size_source = files.shape.total_bytes, "file"
        elif record.case.moves_data and record.case.kind is not Kind.CEILING and not record.size_bytes:
            record.size_bytes = options.size_bytes or options.probe_bytes
            record.size_source = "fixed" if options.size_bytes else "probe"
    records = {r.case.id: r for r in report.cases}
    openssl = shutil.which("openssl")
    budget = options.time_budget_seconds
    started = time.monotonic()
    done = 0
    reporter.started(report, plan.minimum_left({}))
    precision = None if options.fixed else options.precision
    mhz = report.environment.get("host", {}).get("cpu_mhz")
    clock_hz = mhz * 1e6 if mhz else None
    try:
        while rnd := _live(plan.next_round(*_progress_state(report)), records):
            for position, visit in enumerate(rnd):
                record = records[visit.case.id]
                if record.status is CaseStatus.SKIPPED:
                    continue
                size = record.size_bytes if visit.case.moves_data else 0
                remaining = [v for v in rnd[position:] if records[v.case.id].status is not CaseStatus.SKIPPED]
                eta = sum(estimates.of(v.case, records[v.case.id].size_bytes) for v in remaining)
                eta += plan.minimum_left(_progress_state(report)[0]) * estimates.typical()
                if budget is not None:
                    left = budget - (time.monotonic() - started)
                    if estimates.of(visit.case, size) > left:
                        report.stop_reason = f"time budget of {budget:.0f} s reached"
                        raise _BudgetSpent
                    eta = min(eta, left)
                if options.max_bytes is not None and bytes_moved(report) + size > options.max_bytes:
                    report.stop_reason = f"byte cap of {options.max_bytes:,} bytes (--max-bytes) reached"
                    raise _BudgetSpent
                total = done + len(remaining) + plan.minimum_left(_progress_state(report)[0])
                reporter.sample_started(visit, Progress(done, total, eta))
                timeout = options.timeout_seconds + estimates.transfer_allowance(visit.case, size)
                sample = _measure(visit, size, timeout, target, settings, openssl, reporter.data_moved, files)
                report.samples.append(sample)
                _update_case(record, sample, options)
                estimates.learn(sample, record.size_bytes)
                report.summaries = summarize(report.cases, report.samples, precision, clock_hz)
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
        report.finished_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        report.summaries = summarize(report.cases, report.samples, precision, clock_hz)
        save(report)
    return report


def _measure(visit: Visit, size: int, timeout: float, target: Target, settings: ProbeSettings,
             openssl: str | None, tick: Tick, files: TransferFiles | None) -> Sample:
    """One sample of any kind of case: an SSH connection, a file tool's pair of runs, or a reference control."""
    if visit.case.method != "pipe" and files is not None:
        sample = run_transfer_sample(target, visit.case, files, visit.round, timeout, settings)
        if sample.bytes_received:
            tick(sample.bytes_received)
        return sample
    if visit.case.kind is Kind.CEILING:
        return run_crypto_ceiling(visit.case, visit.round, openssl, settings.env)
    if visit.case.kind is Kind.CONTROL:
        return run_tcp_control(visit.case, size, visit.round, timeout, settings.payload)
    return run_sample(target, visit.case, size, visit.round, timeout, settings, tick)


def bytes_moved(report: Report) -> int:
    """Bytes sent over the network so far (local ceilings move none)."""
    return sum(s.bytes_received or s.size_bytes for s in report.samples
               if report.case(s.case_id).case.kind is not Kind.CEILING)


class _BudgetSpent(Exception):
    """The next visit would not fit in the time budget."""


def _live(rnd: list[Visit], records: dict[str, CaseRecord]) -> list[Visit]:
    return [v for v in rnd if records[v.case.id].status is not CaseStatus.SKIPPED]


def _progress_state(report: Report) -> tuple[dict[str, int], dict[str, bool]]:
    """Measured visits per case (failures count, so a failing case cannot loop) and precision reached."""
    visits: dict[str, int] = {}
    for sample in report.samples:
        if not sample.warmup:
            visits[sample.case_id] = visits.get(sample.case_id, 0) + 1
    precise = {s.case_id: bool(s.precise) for s in report.summaries}
    return visits, precise


def _update_case(record: CaseRecord, sample: Sample, options: RunOptions) -> None:
    if sample.error and sample.error.startswith("server refused"):
        record.status = CaseStatus.SKIPPED
        record.reason = sample.error
        return
    if sample.warmup and record.case.moves_data and record.case.kind is not Kind.CEILING \
            and options.size_bytes is None and record.size_source != "file":
        sized = auto_size(sample, options.sample_seconds)
        if sized is not None:
            record.size_bytes = sized
            record.size_source = "auto"
        else:
            record.reason = f"warm-up failed ({sample.error}); kept the probe size"
