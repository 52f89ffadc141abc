"""What fills the link, on the simulated machine: every change against the plain transfer, ordered by ratio with
its interval, marked where not separable from the one above, the cheapest that fills the link named."""

from __future__ import annotations

import statistics

from sshbench.analysis.answers.remedies import path_answers
from sshbench.analysis.conclude import conclude
from sshbench.analysis.stats.stats import counted
from sshbench.measure.loop import Hooks, run_loop
from sshbench.options import RunOptions
from sshbench.plan.schedules import schedule_for
from sshbench.render.remedies import LINK_HEADING, remedy_lines
from sshbench.results.environment import LinkFacts
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.linkspec import LinkSpec
from tests.synthetic import FakeClock, FakeSampler

GCM = "aes128-gcm@openssh.com"
LINK = "rtt=80ms,rate=1gbit"
MB = 1e6


def _run(rates: dict[Case, float], seed: int = 3) -> Report:
    clock = FakeClock()
    ids = {c.id: r for c, r in rates.items()}
    sampler = FakeSampler(ids, clock, seed=seed, noise_cv=0.03, server_cpu_per_byte={i: 1e-9 for i in ids},
                          client_cpu_per_byte={i: 1e-9 for i in ids})
    options = RunOptions(runs=8, time_budget_seconds=None, directions=(Direction.UPLOAD,),
                         links=(LinkSpec.from_text(LINK),), streams=(1, 4, 16), compression=("off", "zstd:3"))
    report = Report("test", "2026-11-25T00:00:00+00:00", seed, options=options,
                    cases=[CaseRecord(c) for c in rates])
    report.environment.links = [LinkFacts(LINK, "test", connect_seconds=[0.08])]
    report.environment.algorithms.client_defaults = AlgorithmLists(cipher=(GCM,))
    report.environment.algorithms.server_enabled = AlgorithmLists(cipher=(GCM,))
    return run_loop(report, schedule_for(options, list(rates), seed), sampler, options, lambda _r: None,
                    hooks=Hooks(clock=clock))


def _case(streams: int = 1, compression: str = "off") -> Case:
    return Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=GCM, link=LINK, streams=streams, compression=compression)


def test_remedies_are_ordered_by_ratio_and_ties_and_non_effects_say_so() -> None:
    report = _run({_case(): 25 * MB, _case(4): 100 * MB, _case(16): 101 * MB, _case(1, "zstd:3"): 25.2 * MB,
                   _case(4, "zstd:3"): 60 * MB})
    (answer,) = path_answers(report)
    assert answer.plain == _case() and answer.path == LINK
    changes = [r.change for r in answer.remedies]
    assert changes[:2] in (["16 streams", "4 streams"], ["4 streams", "16 streams"])
    assert changes[2] == "4 streams + zstd -3" and changes[3] == "zstd -3"
    first, second, third, fourth = answer.remedies
    assert first.faster and 3.6 < first.ratio < 4.4 and first.low is not None and first.low > 1
    assert not second.separable, "16 streams and 4 streams are within noise of each other"
    assert third.faster and third.separable, "2.4x is proven slower than 4x"
    assert fourth.relation is Relation.EQUIVALENT, "zstd on incompressible zeros: within the tie margin (25.2 vs 25)"
    assert answer.best is first


def test_the_link_answer_opens_with_the_remedy_and_its_interval() -> None:
    report = _run({_case(): 25 * MB, _case(4): 100 * MB})
    heading, lines = remedy_lines(conclude(report))
    assert heading == LINK_HEADING
    assert lines[0].startswith(f"upload across {LINK}: 4 streams ") and "times as fast as the plain transfer" in \
        lines[0]
    assert " [" in lines[0], "the ratio's interval is in the headline"


def test_a_run_without_a_change_has_no_link_answer_lines_beyond_the_cipher() -> None:
    report = _run({_case(): 25 * MB})
    assert path_answers(report) == []


def test_n_streams_say_the_split_s_size_and_how_far_apart_its_parts_ended_beside_its_rate() -> None:
    report = _run({_case(): 25 * MB, _case(4): 100 * MB})
    for sample in report.samples_of(_case(4).id):
        sample.tail_seconds = 0.3 if sample.round % 2 else 0.5
    (answer,) = path_answers(report)
    (four,) = answer.remedies
    assert four.tail is not None and 0.3 <= four.tail <= 0.5
    _, lines = remedy_lines(conclude(report))
    change = next(line for line in lines if line.strip().startswith("4 streams:"))
    size = four.split
    assert size is not None and size == statistics.median(s.size_bytes for s in counted(report.samples_of(_case(4).id)))
    assert f" as an equal split of {size / 2**20:,.0f} MiB, to its last part's end (its parts ended 0." in change
    assert " s apart, median)" in change
    assert path_answers(_run({_case(): 25 * MB, _case(4): 100 * MB}))[0].remedies[0].tail is None, \
        "no tail recorded (one connection, or a file from before schema 13): nothing said"
