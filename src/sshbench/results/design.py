"""The noise a run measured on its machine, and the design it chose from it (analysis/stats/noise.py makes them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Noise:
    """The noise of one run's throughput samples (log units: 0.1 is about 10%); None where too few to tell."""

    samples: int  # throughput samples it was measured from
    per_sample: float | None  # log SD of one sample of a case
    within: float | None  # ... of it from inside one connection (averages away with a longer sample)
    between: float | None  # ... from one connection to the next (no length changes it)
    paired: float | None  # log SD of a back-to-back pair's ratio, over that of the same cases passes apart
    fixed_seconds: float | None  # a visit's wall time beyond its data phase (set-up, start-up)
    steady_seconds: float | None  # the median steady state it was measured at


@dataclass(frozen=True)
class Design:
    """What the run chose from the noise it measured, and why (shown as a fact; kept in Report.design)."""

    noise: Noise
    sample_seconds: float  # the data phase samples are sized for from here on (--sample-seconds)
    paired: bool  # verdicts on back-to-back pairs where there are enough
    reason: str  # the figures that decided it, in words
    at_samples: int = 0  # throughput samples measured when it was chosen


@dataclass(frozen=True)
class PlacementTrial:
    """The short trial of both placements an embedded run with `--placement auto` begins with
    (analysis/stats/placing.py): what each gave, and what was chosen from it."""

    case_id: str  # the one case sampled, alternately split and free
    split: list[float]  # its rates (bytes/s), in split placement
    free: list[float]  # ... and in free placement; neither enters any verdict
    chosen: Literal["split", "free"]  # for the rest of the run
    seconds: float  # the trial's wall time
    reason: str  # the figures that decided it, in words
