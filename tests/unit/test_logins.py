"""Logins per second, stage by stage (analysis/connections/logins.py): the rate, latency percentiles, how busy each
side's CPUs were, and the knee named with why: refusals (MaxStartups) or no more logins, and the side that was full."""

from __future__ import annotations

import dataclasses
import json
from importlib.resources import files
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs; used by the tests only

from sshbench.analysis.conclude import conclude
from sshbench.analysis.connections.logins import KneeCause, knees, load_points
from sshbench.render.jsondoc import report_document
from sshbench.render.logins import knee_words
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
    (found,) = knees(load_points(report))
    assert (found.kex, found.clients, found.next_clients, found.cause) == (None, 4, 16, KneeCause.REFUSED)
    assert (found.logins_per_second, found.next_logins_per_second) == (19 / 4.0, 18 / 4.0)
    assert (found.next_refused, found.next_attempted, found.limiter) == (5, 23, "clients")
    assert found.ratio == 18 / 19 and found.threshold == 1.1
    said = knee_words((found,))
    assert said is not None and said.startswith("the default key exchange: the knee is at 4 clients, 4.8 logins/s")
    assert "5 of 23 refused before the banner (MaxStartups)" in said and "clients' CPUs were full" in said
    report.logins = [_stage(1, 11, client_cpu=0.1), _stage(4, 40, client_cpu=0.4)]
    assert knees(load_points(report)) == () and knee_words(()) is None  # every count added logins


def test_a_count_that_adds_too_few_logins_is_a_flat_knee_per_key_exchange() -> None:
    (report,) = read_results(str(DATA / "results-small.json"))
    report.environment.host.cpu_count, report.environment.host.client_cpus = 2, 1
    mlkem = [dataclasses.replace(_stage(n, done, client_cpu=0.01 * done), kex="mlkem768x25519-sha256")
             for n, done in ((1, 10), (4, 30), (16, 32))]
    report.logins = [_stage(1, 11, client_cpu=0.1), _stage(4, 40, client_cpu=0.4), *mlkem]
    (found,) = knees(load_points(report))  # the default exchange scaled all the way: no knee of its own
    assert (found.kex, found.clients, found.cause, found.limiter) == ("mlkem768x25519-sha256", 4, KneeCause.FLAT, None)
    assert knee_words((found,)) == ("mlkem768x25519-sha256: the knee is at 4 clients, 7.5 logins/s: 16 clients gave "
                                    "8.0 (no more logins per second)")


def test_report_json_holds_the_knee_as_numbers_and_validates() -> None:
    (report,) = read_results(str(DATA / "results-small.json"))
    report.environment.host.cpu_count, report.environment.host.client_cpus = 2, 1
    report.logins = [_stage(1, 11), _stage(4, 19), _stage(16, 18, refused=5)]
    document = json.loads(report_document([conclude(report)]))
    schema = json.loads(files("sshbench.schemas").joinpath("report.schema.json").read_text())
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
    logins = document["runs"][0]["logins"]
    assert "knee" not in logins  # the sentence is the terminal's; the JSON has the values it is made from
    assert logins["knees"] == [{"kex": None, "clients": 4, "logins_per_second": 4.75, "next_clients": 16,
                                "next_logins_per_second": 4.5, "ratio": 18 / 19, "threshold": 1.1,
                                "cause": "refused", "next_refused": 5, "next_attempted": 23, "limiter": "clients"}]
