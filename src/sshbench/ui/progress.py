"""Live progress of a run on the terminal: case, round, samples done, ETA, last result."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from sshbench.model import Report, Sample
from sshbench.plan import Visit
from sshbench.runner import Progress as RunProgress


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class RichReporter:
    """A Reporter for the runner; use as a context manager so the live display always ends."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._progress = Progress(
            TextColumn("[bold]{task.fields[round]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("ETA {task.fields[eta]}"),
            TextColumn("{task.description}"),
            console=console,
            transient=True,
        )
        self._task: TaskID | None = None
        self._last = ""

    def __enter__(self) -> RichReporter:
        self._progress.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._progress.stop()

    def started(self, report: Report, total: int) -> None:
        self._task = self._progress.add_task("starting", total=total, round="warm-up", eta="?")

    def sample_started(self, visit: Visit, progress: RunProgress) -> None:
        assert self._task is not None
        label = "warm-up" if visit.round == 0 else f"round {visit.round}"
        self._progress.update(self._task, completed=progress.done, round=label, eta=_duration(progress.eta_seconds),
                              description=f"{visit.case.id}{self._last}")

    def sample_finished(self, sample: Sample, progress: RunProgress) -> None:
        assert self._task is not None
        if not sample.ok:
            self._last = f"  (last: failed, {sample.error})"
        elif sample.throughput_bytes_per_second:
            self._last = f"  (last: {sample.throughput_bytes_per_second / 1e6:,.0f} MB/s)"
        elif sample.setup_seconds is not None:
            self._last = f"  (last: {sample.setup_seconds * 1000:.0f} ms)"
        self._progress.update(self._task, completed=progress.done)
