"""compare's change, interval and significance on constructed runs with known differences."""

from __future__ import annotations

import random

import pytest

from sshbench.analysis.runs.compare import compare
from sshbench.analysis.stats.stats import summarize
from sshbench.results.environment import IperfFacts, RemoteFacts, ServerFacts, ServerKind
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.vocabulary.units import GiB

GCM = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com")
TCP = Case(CaseKind.CONTROL, Direction.UPLOAD)
KEX = Case(CaseKind.KEX, Direction.SETUP, kex="curve25519-sha256")


def run(values: dict[Case, list[float]]) -> Report:
    records, samples = [], []
    for case, rates in values.items():
        records.append(CaseRecord(case))
        for i, value in enumerate(rates, start=1):
            if case.moves_data:
                samples.append(Sample(case.id, i, False, True, "t", GiB, bytes_received=GiB, data_seconds=GiB / value,
                                      setup_seconds=0.2, phases={"banner_sent": 0.0}))
            else:
                samples.append(Sample(case.id, i, False, True, "t", 0, setup_seconds=value,
                                      phases={"banner_sent": 0.0, "session_open": value}))
    report = Report(tool_version="t", started_at="t", seed=1, cases=records,
                    samples=samples)
    report.summaries = summarize(records, samples)
    return report


def noisy(center: float, n: int = 12, spread: float = 0.05, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [center * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


def test_same_distribution_is_not_significant() -> None:
    (change,) = compare(run({GCM: noisy(800e6, seed=1)}), run({GCM: noisy(800e6, seed=2)}))
    assert not change.significant
    assert change.low is not None and change.high is not None and change.low < 0 < change.high
    assert not change.regression_beyond(0.05)


def test_a_twenty_percent_slowdown_is_a_significant_regression() -> None:
    (change,) = compare(run({GCM: noisy(800e6)}), run({GCM: noisy(640e6, seed=3)}))
    assert change.significant and change.change == pytest.approx(-0.2, abs=0.04)
    assert change.low is not None and change.high is not None and change.low <= change.change <= change.high < 0
    assert change.regression_beyond(0.05) and not change.regression_beyond(0.5)


def test_latency_change_is_positive_when_faster() -> None:
    (change,) = compare(run({KEX: noisy(0.2)}), run({KEX: noisy(0.1, seed=4)}))
    assert change.significant and change.change == pytest.approx(1.0, abs=0.15)  # twice as fast
    assert not change.bigger_better


def test_normalizing_by_the_tcp_control_removes_a_machine_factor() -> None:
    slow_machine = run({GCM: noisy(400e6, seed=5), TCP: noisy(2e9, seed=6)})
    fast_machine = run({GCM: noisy(800e6, seed=7), TCP: noisy(4e9, seed=8)})
    (raw_gcm, _) = compare(slow_machine, fast_machine)
    assert raw_gcm.significant and raw_gcm.change > 0.8
    normalized = {c.case_id: c for c in compare(slow_machine, fast_machine, normalize="tcp")}
    assert abs(normalized[GCM.id].change) < 0.1  # the 2x machine factor is gone


def test_normalizing_needs_the_reference_in_both_runs() -> None:
    with pytest.raises(ValueError, match="neither the raw TCP control nor an iperf3 figure"):
        compare(run({GCM: noisy(1e9)}), run({GCM: noisy(1e9)}), normalize="tcp")
    with pytest.raises(ValueError, match="aes256-ctr"):
        compare(run({GCM: noisy(1e9)}), run({GCM: noisy(1e9)}), normalize="aes256-ctr")


def test_real_hosts_normalize_tcp_by_their_iperf3_figure() -> None:
    """No loopback control against a real host: the link's own raw TCP (iperf3) is the divisor."""
    near, far = run({GCM: noisy(400e6, seed=3)}), run({GCM: noisy(100e6, seed=4)})
    near.environment.server = ServerFacts(ServerKind.REMOTE, remote=RemoteFacts(iperf3=IperfFacts(1000e6)))
    far.environment.server = ServerFacts(ServerKind.REMOTE, remote=RemoteFacts(iperf3=IperfFacts(250e6)))
    (raw,) = compare(near, far)
    assert raw.change < -0.7
    (normalized,) = compare(near, far, normalize="tcp")
    assert normalized.baseline == pytest.approx(0.4, rel=0.05) and abs(normalized.change) < 0.1


def test_same_files_same_answer() -> None:
    a, b = run({GCM: noisy(800e6)}), run({GCM: noisy(700e6, seed=9)})
    assert compare(a, b) == compare(a, b)


def test_file_method_rows_are_normalised_by_the_same_method() -> None:
    from tests.conftest import load_report

    report = load_report()
    changes = {c.case_id: c for c in compare(report, report, normalize="aes128-ctr")}
    scp_ctr = changes["cipher:aes128-ctr:upload:scp"]
    assert scp_ctr.baseline == pytest.approx(1.0) and scp_ctr.other == pytest.approx(1.0)
    gcm = "cipher:aes128-gcm@openssh.com:upload"
    assert changes[gcm].baseline != changes[gcm + ":scp"].baseline


def test_three_against_three_samples_cannot_detect_anything() -> None:
    (change,) = compare(run({GCM: [800e6, 810e6, 805e6]}), run({GCM: [400e6, 405e6, 402e6]}))
    assert not change.detectable and not change.significant  # halved, yet 3 vs 3 reaches p = 0.1 at best
    assert not change.regression_beyond(0.05)


def test_many_cases_are_corrected_and_the_interval_agrees_with_the_test() -> None:
    ciphers = [Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=f"c{i}") for i in range(20)]
    before = run({c: noisy(800e6, seed=i) for i, c in enumerate(ciphers)})
    after = run({c: noisy(800e6 * (0.9 if i == 0 else 1.0), seed=100 + i) for i, c in enumerate(ciphers)})
    changes = compare(before, after)
    assert {c.compared for c in changes} == {20}
    for change in changes:
        assert change.low is not None and change.high is not None
        assert change.significant == (change.low > 0 or change.high < 0), change
        assert change.p_adjusted == pytest.approx(min(1.0, 20 * change.p_value))
    slower = changes[0]
    assert slower.significant and slower.change == pytest.approx(-0.1, abs=0.04)
    assert "slower" in slower.why_regression(0.05) and "Bonferroni over 20 cases" in slower.why_regression(0.05)


def test_the_compare_command_s_pairs_are_concluded_once_each_a_refused_one_in_its_place() -> None:
    """conclude_comparisons: what `compare` shows (table, JSON, exit status) of each pair, drawn once; a pair that
    cannot be normalised as asked says why instead of raising, so the command refuses in the order given."""
    from dataclasses import replace

    from sshbench.analysis.conclude import conclude_comparisons

    base, slower = run({GCM: noisy(800e6), TCP: noisy(2e9)}), run({GCM: noisy(600e6, seed=4)})
    slower.options = replace(slower.options, no_aesni=True)
    (same, other) = conclude_comparisons([("a.json", [base]), ("b.json", [base]), ("c.json", [slower])], None)
    assert (same.base_label, same.label, other.label) == ("a.json", "b.json", "c.json")
    assert same.changes == tuple(compare(base, base)) and other.changes == tuple(compare(base, slower))
    assert same.options == () and other.options == ("--no-aesni off vs on",) and same.refused is None
    (refused,) = conclude_comparisons([("a.json", [base]), ("c.json", [slower])], "tcp")
    assert refused.changes == () and refused.refused is not None and "raw TCP control" in refused.refused
    (change,) = compare(run({GCM: [800e6, 810e6, 805e6]}), run({GCM: [400e6, 405e6, 402e6]}))
    assert not change.detectable  # a value of the change, drawn with it: the table and the JSON only read it
