"""The answer, the cost ranking and the decision schedule's shape, on the simulated machine (tests/synthetic.py).

The answer must lead every output with a ratio and its interval against the
runner-up and the client's default; the cost ranking must rank by the busier
side's CPU per byte, with its own verdicts, unmoved by the load's drift;
the schedule must give every case its minimum before any pair gets more,
visit each table back to back, and let cheap tables take more passes.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Mapping

from sshbench.analysis.answers.answer import answers
from sshbench.analysis.conclude import conclude
from sshbench.analysis.stats.verdicts import SETUP_RUNS_FACTOR, rule_for
from sshbench.measure.loop import Hooks, run_loop
from sshbench.options import RunOptions
from sshbench.plan.base import RoundState, pair_look_points
from sshbench.plan.budget import STEADY_AFTER
from sshbench.plan.decision import DecisionSchedule
from sshbench.render import html, markdown
from sshbench.render.progress import LineReporter
from sshbench.render.terminal import full_report
from sshbench.results.events import Progress, Visit
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.units import MiB
from tests.synthetic import FakeClock, FakeSampler

GCM, GCM256, CHACHA, CTR = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com",
                            "aes128-ctr")
RATES = {GCM: 900e6, GCM256: 880e6, CHACHA: 560e6, CTR: 600e6}  # bytes/s, as an idle 2-vCPU VM shows them
SERVER_CPU = {GCM: 1.0e-9, GCM256: 1.05e-9, CHACHA: 1.6e-9, CTR: 1.5e-9}  # seconds per byte, the busier side


def _run(machine: Mapping[str, object], seed: int = 1, budget: float | None = 240.0) -> Report:
    """A decision-mode run of four ciphers, upload, with both sides' CPU, through the real loop and schedule."""
    cases = [Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=name) for name in RATES]
    clock = FakeClock()
    sampler = FakeSampler({c.id: RATES[c.subject] for c in cases}, clock, seed=seed,
                          server_cpu_per_byte={c.id: SERVER_CPU[c.subject] for c in cases},
                          client_cpu_per_byte={c.id: 0.7 * SERVER_CPU[c.subject] for c in cases},
                          **machine)  # type: ignore[arg-type]
    options = RunOptions(time_budget_seconds=budget, directions=(Direction.UPLOAD,))
    report = Report("test", "2026-11-25T00:00:00+00:00", seed, options=options,
                    cases=[CaseRecord(c) for c in cases])
    algos = report.environment.algorithms
    algos.client_defaults = AlgorithmLists(cipher=(CHACHA, CTR, GCM, GCM256))  # OpenSSH's order
    algos.server_enabled = AlgorithmLists(cipher=tuple(RATES))
    plan = DecisionSchedule(cases, options.min_runs, options.max_runs, seed)
    return run_loop(report, plan, sampler, options, lambda _r: None, hooks=Hooks(clock=clock))


DRIFTING: dict[str, object] = {"noise_cv": 0.15, "drift_sd": 0.35, "drift_seconds": 90.0, "setup_seconds": 0.3,
                               "fixed_seconds": 0.1, "cpu_noise_cv": 0.05}


def test_the_answer_names_the_fastest_safe_cipher_and_its_ratio_to_the_runner_up_and_the_default() -> None:
    report = _run(DRIFTING)
    (answer,) = answers(report)
    assert answer.best in (GCM, GCM256), "one of the two AES-GCM ciphers, whichever the run ranked first"
    roles = [c.role for c in answer.comparisons]
    assert roles[0].startswith("the runner-up") and roles[-1] == "this client's default"
    default = answer.comparisons[-1]
    assert default.other == CHACHA and default.relation is Relation.DIFFERENT
    assert default.low is not None and default.high is not None and default.low <= default.ratio <= default.high
    assert 1.3 < default.ratio < 1.9, "about 900/560 = 1.6 times as fast"
    assert answer.cheapest is not None and answer.cheapest.name in (GCM, GCM256)


def test_every_output_opens_with_the_answer_and_its_interval() -> None:
    report = _run(DRIFTING)
    ratio = re.compile(r"\d\.\d\d ± \d\.\d\d times as fast as chacha20-poly1305@openssh.com, this client(?:'|&#39;)s "
                       r"default \\?\[\d\.\d\d, \d\.\d\d\\?\]")  # (Markdown escapes the brackets, HTML the ')
    terminal = _text(report)
    assert terminal.splitlines()[0].startswith("The answer") and ratio.search("\n".join(terminal.splitlines()[:6]))
    md = markdown.render(conclude(report))
    assert ratio.search("\n".join(md.splitlines()[:8])), md[:800]
    page = html.render([conclude(report, recommendation=True)])
    assert page.index("The answer") < page.index("<table") and ratio.search(page)


def _text(report: Report) -> str:
    from rich.console import Console
    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(full_report(conclude(report), 200))
    return console.export_text()


def test_the_cost_ranking_is_by_the_busier_side_and_does_not_move_with_the_load() -> None:
    report = _run({**DRIFTING, "drift_sd": 0.6})
    by_cipher = {report.case(s.case_id).case.subject: s for s in report.summaries}
    order = sorted(by_cipher, key=lambda name: by_cipher[name].cost_rank or 0)
    assert order[:2] == [GCM, GCM256] and set(order[2:]) == {CTR, CHACHA}, order
    for name, summary in by_cipher.items():  # the busier side is the server here, at its true CPU per byte
        assert summary.cost_seconds_per_gib is not None
        assert math.isclose(summary.cost_seconds_per_gib.median, SERVER_CPU[name] * 2**30, rel_tol=0.05)
    # CTR/ChaCha20 cost 1.5-1.6x AES-GCM: settled, though the load moves MB/s by a factor of 1.8 either way
    assert by_cipher[order[2]].cost_relation is Relation.DIFFERENT
    assert report.looks == {"throughput": rule_for(report.options).looks,
                            "handshake": rule_for(report.options).for_table(False).looks}


def test_every_case_has_its_minimum_before_any_pair_gets_more_and_tables_go_back_to_back() -> None:
    report = _run({"noise_cv": 0.25, "setup_seconds": 0.1}, budget=None)
    counted = [s for s in report.samples if not s.warmup]
    minimum = report.options.min_runs * len(report.cases)
    first = counted[:minimum]
    assert all(sum(s.case_id == c.case.id for s in first) == report.options.min_runs for c in report.cases)
    passes: dict[int, list[Sample]] = {}
    for sample in counted:
        assert sample.chain is not None, "every visit after the warm-up is part of a pass"
        passes.setdefault(sample.chain, []).append(sample)
    for members in passes.values():  # a pass visits its cases one right after the other, each once
        assert len({s.case_id for s in members}) == len(members)
    firsts = [members[0].case_id for members in list(passes.values())[:report.options.min_runs]]
    lasts = [members[-1].case_id for members in list(passes.values())[:report.options.min_runs]]
    assert any(a == b for a, b in zip(firsts[1:], lasts, strict=False)), "passes go both ways (A-B-C, C-B-A)"


def test_cheap_tables_take_more_passes_and_handshakes_may_take_more_samples() -> None:
    throughput = [Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=name) for name in (GCM, CTR)]
    handshake = [Case(CaseKind.KEX, Direction.SETUP, kex=name) for name in ("curve25519-sha256",
                                                                            "ecdh-sha2-nistp256")]
    plan = DecisionSchedule([*throughput, *handshake], 6, 30, seed=3)
    plan.next_round(RoundState())  # the warm-up
    seconds = {**{c.id: 0.4 for c in throughput}, **{c.id: 0.08 for c in handshake}}
    first = plan.next_round(RoundState(seconds=seconds))
    counts = {c.id: sum(v.case.id == c.id for v in first) for c in [*throughput, *handshake]}
    assert all(counts[c.id] == 1 for c in throughput)
    assert all(counts[c.id] == 5 for c in handshake), "0.8 s of a throughput pass holds five 0.16 s passes"
    assert pair_look_points(30 * SETUP_RUNS_FACTOR)[-1] == 120


def test_a_steady_state_starts_only_once_what_an_upload_holds_in_flight_is_full() -> None:
    from sshbench.measure.steady import Probe, SteadyWindow, no_link
    from sshbench.results.tcpfacts import Basis
    def marks(size: int) -> int:
        return SteadyWindow([size], lambda _moved: None, no_link, [Probe()], Basis.SENT).streams[0].start
    assert marks(12 * MiB) > 12 * MiB, "too small: no steady state, timed whole"
    assert marks(16 * MiB) == STEADY_AFTER == 8 * MiB
    assert marks(400 * MiB) == 100 * MiB, "a quarter of the bytes"


def test_off_a_terminal_progress_is_one_line_a_minute() -> None:
    from io import StringIO

    from rich.console import Console
    out = StringIO()
    clock = FakeClock()
    reporter = LineReporter(Console(file=out, width=200), every=60.0, clock=clock)
    report = Report("test", "", 1)
    with reporter:
        reporter.started(report, 100)
        for done in range(1, 201):
            clock.now += 1.5
            reporter.sample_finished(Sample("cipher:x:upload", 1, False, True, "", 0),
                                     Progress(done, 200, (200 - done) * 1.5))
            reporter.sample_started(Visit(Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=GCM), 1), Progress(0, 1, 0))
    lines = out.getvalue().splitlines()
    assert len(lines) == 5, "300 s of samples: one line at each full minute"
    assert all(line.startswith("sshbench: ") and "samples, about" in line for line in lines)
    assert lines[0].endswith("last cipher:x:upload (ok)"), "text as it is: no :x: emoji"


def test_off_a_terminal_a_failed_sample_is_said_at_once_with_its_reason() -> None:
    """A CI log of a run that exited 1 named nothing but its minute lines: which sample failed, and why, was lost."""
    from io import StringIO

    from rich.console import Console
    out = StringIO()
    clock = FakeClock()
    reporter = LineReporter(Console(file=out, width=200), every=60.0, clock=clock)
    with reporter:
        reporter.started(Report("test", "", 1), 3)
        clock.now += 1.0
        failed = Sample("cipher:x:upload", 1, False, False, "", 0, error="timed out after 12 s")
        reporter.sample_finished(failed, Progress(1, 3, 2.0))
        reporter.sample_finished(dataclasses.replace(failed, warmup=True), Progress(2, 3, 1.0))
    assert out.getvalue().splitlines() == ["sshbench: 1/3 samples; cipher:x:upload failed: timed out after 12 s"]


def test_the_cost_ranking_of_a_file_without_cpu_figures_is_empty_and_not_shown() -> None:
    report = dataclasses.replace(_run(DRIFTING))
    for summary in report.summaries:
        summary.cost_seconds_per_gib, summary.cost_rank, summary.cost_relation = None, None, None
    text = _text(report)
    assert "cost: the busier side" not in text and "cost\n" not in text
    assert list(itertools.islice((line for line in text.splitlines() if line.startswith("The answer")), 1))
