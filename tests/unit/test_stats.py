import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.analysis.stats.stats import describe, paired_ratios, rank, summarize
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Direction, Sample
from sshbench.vocabulary.units import GiB


def test_describe_known_values() -> None:
    stat = describe([3.0, 1.0, 2.0, 10.0])
    assert stat is not None
    assert (stat.median, stat.min, stat.max, stat.count) == (2.5, 1.0, 10.0, 4)
    assert stat.mean == 4.0
    assert stat.stdev == pytest.approx(statistics.stdev([3, 1, 2, 10]))
    assert describe([]) is None
    single = describe([5.0])
    assert single is not None and single.stdev == 0.0


@given(st.lists(st.floats(min_value=1e-3, max_value=1e12), min_size=1, max_size=50))
def test_describe_orders(values: list[float]) -> None:
    stat = describe(values)
    assert stat is not None
    assert stat.min <= stat.median <= stat.max
    assert stat.count == len(values)
    # floats, not the exact fractions of statistics.stdev (a run describes every case after every sample)
    assert stat.stdev == pytest.approx(statistics.stdev(values) if len(values) > 1 else 0.0, rel=1e-9,
                                       abs=1e-12 * max(values))  # within rounding of the values themselves


def _sample(case: Case, rnd: int, *, rate: float = 0.0, setup: float = 0.2, ok: bool = True,
            cpu: float = 0.5, cpu_setup: float = 0.1) -> Sample:
    size = GiB if case.moves_data else 0
    return Sample(case_id=case.id, round=rnd, warmup=rnd == 0, ok=ok, started_at="t", size_bytes=size,
                  bytes_received=size if ok and case.moves_data else None,
                  data_seconds=size / rate if rate else None, setup_seconds=setup, total_seconds=setup + 1,
                  client_cpu_user_seconds=cpu, client_cpu_sys_seconds=0.0, server_cpu_user_seconds=2 * cpu,
                  server_cpu_sys_seconds=0.0, client_cpu_setup_seconds=cpu_setup,
                  server_cpu_setup_seconds=cpu_setup, error=None if ok else "boom",
                  phases={"banner_sent": 0.0, "session_open": setup})


def test_summaries_skip_warmup_and_failures_and_rank_by_factor() -> None:
    fast = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com")
    slow = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="3des-cbc", mac="hmac-sha1")
    records = [CaseRecord(fast), CaseRecord(slow)]
    samples = [
        _sample(fast, 0, rate=1e6),  # warm-up: must not count
        _sample(fast, 1, rate=1000e6), _sample(fast, 2, rate=1200e6), _sample(fast, 3, rate=800e6),
        _sample(slow, 1, rate=40e6), _sample(slow, 2, rate=50e6), _sample(slow, 3, ok=False),
    ]
    by_id = {s.case_id: s for s in summarize(records, samples)}
    f, s = by_id[fast.id], by_id[slow.id]
    assert f.throughput_bytes_per_second is not None
    assert f.throughput_bytes_per_second.median == pytest.approx(1000e6)
    assert f.samples_ok == 3 and s.samples_ok == 2 and s.samples_failed == 1
    assert f.factor == 1.0 and f.rank == 1
    assert s.factor == pytest.approx(1000 / 45) and s.rank == 2
    # CPU per GiB charges the data phase only: (0.5 - 0.1) s client, (1.0 - 0.1) s server per GiB
    assert f.client_cpu_seconds_per_gib is not None and f.client_cpu_seconds_per_gib.median == pytest.approx(0.4)
    assert f.server_cpu_seconds_per_gib is not None and f.server_cpu_seconds_per_gib.median == pytest.approx(0.9)
    assert records[0].status is CaseStatus.MEASURED


def test_setup_cases_rank_by_latency_lower_is_better() -> None:
    a = Case(CaseKind.KEX, Direction.SETUP, kex="curve25519-sha256")
    b = Case(CaseKind.KEX, Direction.SETUP, kex="diffie-hellman-group18-sha512")
    records = [CaseRecord(a), CaseRecord(b)]
    samples = [_sample(a, r, setup=0.2) for r in (1, 2)] + [_sample(b, r, setup=0.5) for r in (1, 2)]
    by_id = {s.case_id: s for s in summarize(records, samples)}
    assert by_id[a.id].factor == 1.0 and by_id[b.id].factor == pytest.approx(2.5)
    assert by_id[b.id].client_cpu_seconds is not None


def test_case_with_only_failures_is_failed_with_reason() -> None:
    case = Case(CaseKind.MAC, Direction.UPLOAD, cipher="aes128-ctr", mac="hmac-sha1")
    record = CaseRecord(case)
    summarize([record], [_sample(case, 1, ok=False)])
    assert record.status is CaseStatus.FAILED and record.reason == "boom"


def test_groups_are_ranked_separately() -> None:
    up = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", mac="x")
    down = Case(CaseKind.CIPHER, Direction.DOWNLOAD, cipher="aes128-ctr", mac="x")
    summaries = summarize([CaseRecord(up), CaseRecord(down)],
                          [_sample(up, 1, rate=100e6), _sample(down, 1, rate=900e6)])
    rank(summaries)
    assert all(s.factor == 1.0 for s in summaries)


def test_paired_ratios_are_each_back_to_back_pair_of_one_pass_ordered_by_case_id() -> None:
    """Every two samples of one chain (pass), first case by id over second, logs of their rates; a failed or
    warm-up sample, another chain's, or two samples of one case make no pair."""
    a, b, c = (Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=name) for name in ("c1", "a2", "b3"))
    made = [_sample(a, 1, rate=100.0), _sample(b, 1, rate=50.0), _sample(c, 1, rate=25.0), _sample(a, 1, rate=80.0),
            _sample(b, 2, rate=10.0, ok=False), _sample(c, 0, rate=10.0)]
    for sample in made:
        sample.chain = 7
    other = _sample(b, 3, rate=1.0)
    other.chain = 8
    found = paired_ratios([*made, other])
    assert sorted(found) == sorted([(b.id, a.id), (b.id, c.id), (c.id, a.id)])
    assert found[(b.id, c.id)] == pytest.approx([math.log(2.0)])
    assert sorted(found[(b.id, a.id)]) == pytest.approx(sorted([math.log(50 / 100), math.log(50 / 80)]))
