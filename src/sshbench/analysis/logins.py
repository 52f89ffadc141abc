"""Logins per second (--logins), stage by stage: the rate, the latency a client saw, each side's CPU per login
and how busy it kept its CPUs, and the knee: where more clients stop adding logins (or start being refused).

Why each side's CPU: client and server share one machine here (on CPUs of their own with --placement split),
so a stage can be held back by the clients' CPUs as much as by the server's; the busier side is named, and a
knee on the client's side says the server was not yet full.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass

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


def knee(points: list[LoadPoint]) -> str | None:
    """Where more clients stopped adding logins, per key exchange: the count and why, in words; None where every
    count added logins (or there is one)."""
    lines = []
    for kex in dict.fromkeys(p.load.kex for p in points):
        ladder = [p for p in points if p.load.kex == kex]
        for before, after in itertools.pairwise(ladder):
            refused = after.load.refused > 0
            if after.rate >= SCALES * before.rate and not refused:
                continue
            why = (f"{after.load.refused} of {after.load.refused + after.load.completed} refused before the banner "
                   "(MaxStartups)") if refused else "no more logins per second"
            held = after.limiter or before.limiter
            side = f"; the {held}' CPUs were full" if held == "clients" else \
                f"; the {held}'s CPUs were full" if held else ""
            lines.append(f"{kex or 'the default key exchange'}: the knee is at {before.load.clients} clients, "
                         f"{before.rate:.1f} logins/s: {after.load.clients} clients gave {after.rate:.1f} ({why})"
                         f"{side}")
            break
    return "; ".join(lines) or None
