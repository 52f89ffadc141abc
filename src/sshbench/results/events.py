"""What a run tells whoever watches it, as it happens: the protocol the measuring loop calls and a renderer
implements (render/progress.py), so neither needs the other; and what takes one sample of a visit (the
Sampler the loop and the placement trial call)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from sshbench.results.model import Case, Report, Sample


@dataclass(frozen=True)
class Visit:
    case: Case
    round: int  # 0 = warm-up
    # the back-to-back run of neighbours it belongs to: visits with one number follow each other directly
    chain: int | None = None


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    eta_seconds: float
    # Whether the time budget, not the work certain to come, ends the run: decision mode spends what is left on
    # open comparisons, so "0:23 left" of the current round was said again and again through an 8-minute run
    by_budget: bool = False

    @property
    def left(self) -> str:
        """The words a progress line gives the time left."""
        minutes, seconds = divmod(round(max(0.0, self.eta_seconds)), 60)
        said = f"{minutes}:{seconds:02d}"
        return f"up to {said} left (the time budget's; sooner if every comparison settles)" if self.by_budget else \
            f"about {said} left"


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


class Sampler(Protocol):
    def __call__(self, visit: Visit, size: int, timeout: float, tick: Callable[[int], None]) -> Sample:
        """One sample of `visit` moving `size` bytes (0 for cases that move none), within `timeout` seconds;
        `tick` is told the bytes moved as they move. Never raises for a failed sample: it returns one."""
        ...
