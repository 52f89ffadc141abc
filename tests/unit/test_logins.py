"""Logins per second, stage by stage (analysis/logins.py): the rate, latency percentiles, how busy each side's CPUs
were, and the knee named with why: refusals (MaxStartups) or no more logins, and the side that was full."""

from __future__ import annotations

from pathlib import Path

from sshbench.analysis.logins import knee, load_points
from sshbench.results.model import LoginLoad
from sshbench.results.store import read_results

DATA = Path(__file__).resolve().parents[1] / "data"


def _stage(clients: int, completed: int, refused: int = 0, client_cpu: float = 0.0) -> LoginLoad:
    # the shape of a recorded run here (AMD EPYC, 2 vCPUs, split): ~58 ms server and ~190 ms client CPU per login
    return LoginLoad(clients=clients, kex=None, seconds=4.0, completed=completed, refused=refused,
                     latency_seconds=[0.4 + 0.01 * i for i in range(completed)], server_cpu_seconds=0.058 * completed,
                     client_cpu_seconds=client_cpu or 0.19 * completed)


def test_each_stage_gets_its_rate_percentiles_and_each_side_s_busy_share() -> None:
    (report,) = read_results(str(DATA / "results-small.json"))
    report.environment.host.cpu_count, report.environment.host.client_cpus = 2, 1
    report.logins = [_stage(1, 11), _stage(4, 19)]
    one, four = load_points(report)
    assert one.rate == 11 / 4.0 and one.p50 == 0.4 + 0.05 and one.p95 == 0.4 + 0.10
    assert four.client_busy is not None and round(four.client_busy, 2) == round(0.19 * 19 / 4.0, 2)
    assert four.limiter == "clients" and one.limiter is None  # 90% of the client's one CPU: what held it


def test_the_knee_is_where_more_clients_add_no_logins_or_are_refused_and_says_which() -> None:
    (report,) = read_results(str(DATA / "results-small.json"))
    report.environment.host.cpu_count, report.environment.host.client_cpus = 2, 1
    report.logins = [_stage(1, 11), _stage(4, 19), _stage(16, 18, refused=5)]
    said = knee(load_points(report))
    assert said is not None and said.startswith("the default key exchange: the knee is at 4 clients, 4.8 logins/s")
    assert "5 of 23 refused before the banner (MaxStartups)" in said and "clients' CPUs were full" in said
    report.logins = [_stage(1, 11, client_cpu=0.1), _stage(4, 40, client_cpu=0.4)]
    assert knee(load_points(report)) is None  # every count added logins
