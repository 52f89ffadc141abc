"""Logins per second (--logins), stage by stage: the rate, the latency a client saw, each side's CPU per login
and how busy it kept its CPUs, and the knee: where more clients stop adding logins (or start being refused).

Why each side's CPU: client and server share one machine here (on CPUs of their own with --placement split),
so a stage can be held back by the clients' CPUs as much as by the server's; the busier side is named, and a
knee on the client's side says the server was not yet full.
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass
from enum import Enum

from sshbench.results.model import LoginLoad, Report

SCALES = 1.1  # a count adds logins when its rate is at least this many times the previous count's
FULL = 0.9  # a side whose CPUs were this busy is what held the stage back


@dataclass(frozen=True)
class LoadPoint:
    load: LoginLoad
    rate: float  # completed logins per second
    p50: float | None
    p95: float | None
    server_busy: float | None  # share of the server's CPUs used over the stage
    client_busy: float | None

    @property
    def limiter(self) -> str | None:
        """The side whose CPUs were full (the busier, where both were), or None."""
        sides = [(busy, side) for busy, side in ((self.server_busy, "server"), (self.client_busy, "clients"))
                 if busy is not None and busy >= FULL]
        return max(sides)[1] if sides else None


def load_points(report: Report) -> list[LoadPoint]:
    host = report.environment.host
    total = host.cpu_count or 0
    client_cpus = host.client_cpus or total
    server_cpus = total - client_cpus if host.client_cpus and total > host.client_cpus else total
    out = []
    for load in report.logins:
        times = sorted(load.latency_seconds)
        out.append(LoadPoint(load, load.completed / load.seconds if load.seconds > 0 else 0.0,
                             statistics.median(times) if times else None,
                             times[min(len(times) - 1, int(0.95 * len(times)))] if times else None,
                             _busy(load.server_cpu_seconds, load.seconds, server_cpus),
                             _busy(load.client_cpu_seconds, load.seconds, client_cpus)))
    return out


def _busy(cpu: float | None, seconds: float, cpus: int) -> float | None:
    return None if cpu is None or seconds <= 0 or cpus <= 0 else cpu / seconds / cpus


class KneeCause(Enum):
    """Why the count after the knee added nothing: its logins were turned away, or it ran no more of them."""

    REFUSED = "refused"  # some refused before the server's banner (sshd's MaxStartups)
    FLAT = "flat"  # fewer than SCALES times the knee's logins per second


@dataclass(frozen=True)
class Knee:
    """Where more clients stopped adding logins, for one key exchange: the last count that still scaled and the
    count after it, as values (render/logins.py says them in words; report --json carries them as numbers)."""

    kex: str | None  # as asked; None: the client's default
    clients: int  # the knee: the count after which more clients added nothing
    logins_per_second: float
    next_clients: int
    next_logins_per_second: float
    cause: KneeCause
    next_refused: int  # of the next count's logins, refused before the banner
    next_attempted: int  # completed + refused
    limiter: str | None  # the side whose CPUs were full at the next count (else at the knee), or None
    threshold: float = SCALES  # the ratio of logins per second below which a count added nothing

    @property
    def ratio(self) -> float:
        """The next count's logins per second over the knee's (below the threshold, or refusals, made it the
        knee)."""
        return self.next_logins_per_second / self.logins_per_second if self.logins_per_second > 0 else math.inf


def knees(points: list[LoadPoint]) -> tuple[Knee, ...]:
    """Per key exchange, the first count whose next one added fewer than SCALES times its logins per second or
    was refused; none where every count added logins (or there is one)."""
    found = []
    for kex in dict.fromkeys(p.load.kex for p in points):
        ladder = [p for p in points if p.load.kex == kex]
        for before, after in itertools.pairwise(ladder):
            refused = after.load.refused > 0
            if after.rate >= SCALES * before.rate and not refused:
                continue
            found.append(Knee(kex, before.load.clients, before.rate, after.load.clients, after.rate,
                              KneeCause.REFUSED if refused else KneeCause.FLAT, after.load.refused,
                              after.load.refused + after.load.completed, after.limiter or before.limiter))
            break
    return tuple(found)
