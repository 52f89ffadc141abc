"""Live progress of a run on the terminal: case, round, samples done, ETA, last result."""

from __future__ import annotations

import io
import json
import sys
import time
from types import TracebackType
from typing import Any, Self, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Column

from sshbench.results.events import NullReporter, Visit
from sshbench.results.events import Progress as RunProgress
from sshbench.results.model import Report, Sample
from sshbench.results.store import sample_row
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.errors import OutputClosed


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class RichReporter:
    """A Reporter for the runner; use as a context manager so the live display always ends."""

    def __init__(self, console: Console) -> None:
        self.console = console
        # The bar keeps a fixed width and the case text gives way (cut at its end) on narrow terminals:
        # at 100 columns the default layout collapsed the whole line to "━ ...".
        self._progress = Progress(
            TextColumn("[bold]{task.fields[round]}", table_column=Column(no_wrap=True)),
            BarColumn(bar_width=20),
            MofNCompleteColumn(table_column=Column(no_wrap=True)),
            TextColumn("ETA {task.fields[eta]}", table_column=Column(no_wrap=True)),
            TextColumn("{task.description}", table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis")),
            console=console,
            transient=True,
            expand=True,
        )
        self._task: TaskID | None = None
        self._host = ""  # shown before the case when several hosts are measured
        self._last = ""
        self._case = ""
        self._moved = 0
        self._data_start = 0.0
        self._shown = 0.0

    def __enter__(self) -> RichReporter:
        self._progress.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._progress.stop()

    def started(self, report: Report, total: int) -> None:
        """Called once per host; a new host gets a fresh bar, labelled with the host."""
        host = report.label
        self._host = f"{host}  " if host != "embedded" else ""
        if self._task is not None:
            self._progress.remove_task(self._task)
        self._last = ""
        self._task = self._progress.add_task("starting", total=total, round="warm-up", eta="?")

    def sample_started(self, visit: Visit, progress: RunProgress) -> None:
        assert self._task is not None
        label = "warm-up" if visit.round == 0 else f"round {visit.round}"
        self._case, self._moved, self._data_start = f"{self._host}{visit.case.id}", 0, 0.0
        eta = ("≤ " if progress.by_budget else "") + _duration(progress.eta_seconds)  # ≤: the budget's, at most
        self._progress.update(self._task, completed=progress.done, round=label, eta=eta,
                              description=f"{self._case}{self._last}")

    def data_moved(self, moved: int) -> None:
        """Live rate of the running sample, redrawn at most four times a second."""
        now = time.monotonic()
        if not self._data_start:
            self._data_start = now
        self._moved += moved
        # not before 0.2 s of data: a rate over the first few chunks is meaningless (it showed "15,597 MB/s")
        if self._task is not None and now - self._shown > 0.25 and now - self._data_start > 0.2:
            self._shown = now
            rate = self._moved / (now - self._data_start) / 1e6
            self._progress.update(self._task, description=f"{self._case}  now {rate:,.0f} MB/s{self._last}")

    def sample_finished(self, sample: Sample, progress: RunProgress) -> None:
        assert self._task is not None
        if not sample.ok:
            self._last = f"  (last: failed, {sample.error})"
        elif sample.unusable:
            self._last = f"  (last: set aside, {sample.unusable})"
        elif sample.throughput_bytes_per_second:
            self._last = f"  (last: {sample.throughput_bytes_per_second / 1e6:,.0f} MB/s)"
        elif sample.setup_seconds is not None:
            self._last = f"  (last: {sample.setup_seconds * 1000:.0f} ms)"
        self._progress.update(self._task, completed=progress.done)


class _Plain(NullReporter):
    """A reporter with nothing live to end: the context manager does nothing; what it says, its subclass."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        pass


class JsonLinesReporter(_Plain):
    """Machine-readable progress for scripts: one JSON object per line on stdout, flushed as it happens."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._host = "embedded"
        self._report: Report | None = None
        self._told: set[tuple[str, str, str]] = set()  # (host, case, relation) already sent as "settled"
        # The first error writing stdout other than a closed pipe (a full disk, EIO): the lines stop there, the
        # run goes on to a complete results file, and the command ends with the output exit code (cli/run.py)
        self.failure: OSError | None = None

    def _emit(self, event: dict[str, Any]) -> None:
        self.line(json.dumps(event))

    def line(self, text: str) -> None:
        """One line of JSON on the stream, unless an earlier one could not be written."""
        if self.failure is not None:
            return
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except BrokenPipeError:  # `--jsonl | head -1`: nobody reads the rest, so the run ends like an interrupt
            raise OutputClosed from None
        except OSError as exc:  # ENOSPC (`> /dev/full`, a full disk), EIO: measuring goes on, the lines stop
            self.failure = exc

    def started(self, report: Report, total: int) -> None:
        self._host, self._report = report.label, report
        self._emit({"event": "started", "host": self._host, "started_at": report.started_at, "seed": report.seed,
                    "cases": len(report.cases), "minimum_samples": total})

    def sample_finished(self, sample: Sample, progress: RunProgress) -> None:
        row = sample_row(sample, self._host)
        self._emit({"event": "sample", **row, "done": progress.done, "eta_seconds": round(progress.eta_seconds, 1)})
        self._settled()

    def _settled(self) -> None:
        """A "settled" event for each verdict against a ranking neighbour that became different or equivalent
        since the last (the summaries are brought up to date at most once a second, with the results file)."""
        for summary in self._report.summaries if self._report is not None else []:
            relation = summary.relation
            if relation is None or relation is Relation.UNSETTLED:
                continue
            key = (self._host, summary.case_id, relation.value)
            if key not in self._told:
                self._told.add(key)
                self._emit({"event": "settled", "host": self._host, "case_id": summary.case_id,
                            "group": summary.group, "rank": summary.rank, "relation": relation.value,
                            "ratio_to_previous": summary.ratio_to_previous, "low": summary.ratio_low,
                            "high": summary.ratio_high})


class LineReporter(_Plain):
    """Off a terminal (a log, CI, a pipe): one plain progress line every `every` seconds on stderr, instead of a
    live bar nobody sees (a run shorter than that prints none: its errors stay one line)."""

    def __init__(self, console: Console, every: float = 60.0, clock: Any = time.monotonic) -> None:
        self.console, self.every, self.clock = console, every, clock
        self._next = 0.0
        self._host = ""

    def _say(self, text: str) -> None:
        self.console.print(f"sshbench: {self._host}{text}", highlight=False, markup=False, emoji=False,
                           soft_wrap=True)

    def started(self, report: Report, total: int) -> None:
        self._host = f"{report.label}: " if report.environment.server.destination else ""
        self._next = self.clock() + self.every

    def sample_finished(self, sample: Sample, progress: RunProgress) -> None:
        if not sample.ok and not sample.warmup:  # at once: a log read after a failed run names the sample and why
            self._say(f"{progress.done}/{progress.total} samples; {sample.case_id} failed: "
                      f"{sample.error or 'no reason recorded'}")
            return
        if self.clock() < self._next:
            return
        self._next = self.clock() + self.every
        self._say(f"{progress.done}/{progress.total} samples, {progress.left}; last "
                  f"{sample.case_id} ({'ok' if sample.ok else sample.error or 'failed'})")


class QuietReporter(JsonLinesReporter):
    """Nothing while running (--quiet)."""

    def __init__(self) -> None:
        super().__init__(io.StringIO())

    def _emit(self, event: dict[str, Any]) -> None:
        pass


def reporter_for(console: Console, quiet: bool,
                 jsonl: bool) -> RichReporter | JsonLinesReporter | LineReporter:
    """The progress a run asked for: a live bar on a terminal, a line a minute off one, JSON lines on stdout, or
    nothing (--quiet)."""
    if quiet:
        return QuietReporter()
    if jsonl:
        return JsonLinesReporter(sys.stdout)
    return RichReporter(console) if console.is_terminal else LineReporter(console)
