"""Recommendations: fastest first, never weak or broken, Terrapin-aware, post-quantum first."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sshbench.algorithms import TABLE, Grade, Kind, lookup
from sshbench.analysis.recommend import KEYWORDS, build, client_block, negotiated, server_dropin
from sshbench.analysis.stats import summarize
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.units import GiB

MEASURABLE = {kind: sorted(n for n, a in TABLE.items() if a.kind is kind and not a.marker and "cert" not in n
                           and not n.startswith(("sk-", "webauthn-")))
              for kind in (Kind.CIPHER, Kind.MAC, Kind.KEX, Kind.HOSTKEY)}


def _case(kind: Kind, name: str) -> Case:
    case_kind = CaseKind.of(kind)
    if kind is Kind.CIPHER:
        return Case(case_kind, Direction.UPLOAD, cipher=name)
    if kind is Kind.MAC:
        return Case(case_kind, Direction.UPLOAD, cipher="aes128-ctr", mac=name)
    if kind is Kind.KEX:
        return Case(case_kind, Direction.SETUP, kex=name)
    return Case(case_kind, Direction.SETUP, hostkey=name)


def report_with(speeds: dict[tuple[Kind, str], float]) -> Report:
    """A report whose cases have the given speed (bytes/s for throughput, 1/seconds for handshakes)."""
    records, samples = [], []
    for (kind, name), speed in speeds.items():
        case = _case(kind, name)
        records.append(CaseRecord(case))
        for rnd in range(1, 7):
            if case.moves_data:
                samples.append(Sample(case.id, rnd, False, True, "t", GiB, bytes_received=GiB,
                                      data_seconds=GiB / speed, setup_seconds=0.2, phases={"banner_sent": 0.0}))
            else:
                samples.append(Sample(case.id, rnd, False, True, "t", 0, setup_seconds=1 / speed,
                                      phases={"banner_sent": 0.0, "session_open": 1 / speed}))
    report = Report(tool_version="t", started_at="t", seed=1, cases=records,
                    samples=samples)
    report.summaries = summarize(records, samples)
    return report


speeds_strategy = st.fixed_dictionaries({
    (kind, name): st.floats(min_value=1e3, max_value=1e10)
    for kind, names in MEASURABLE.items() for name in names
})


@settings(max_examples=40, deadline=None)
@given(speeds_strategy, st.sampled_from(["modern", "compatible"]), st.booleans())
def test_never_weak_or_broken_whatever_the_speeds(speeds: dict[tuple[Kind, str], float], policy: str,
                                                  strict: bool) -> None:
    rec = build(report_with(speeds), policy, strict_both=strict)
    allowed = {Grade.RECOMMENDED} if policy == "modern" else {Grade.RECOMMENDED, Grade.ACCEPTABLE}
    kinds = {v: k for k, v in KEYWORDS.items()}
    for line in rec.lines:
        for name in line.names:
            assert lookup(name, kinds[line.keyword]).grade in allowed, (line.keyword, name)
    for text in (client_block(rec), server_dropin(rec)):
        directives = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
        for weak in (n for n, a in TABLE.items() if a.grade.flagged):
            assert all(weak not in d.split(" ", 1)[-1].split(",") for d in directives)


def test_fastest_first_and_post_quantum_first() -> None:
    rec = build(report_with({
        (Kind.CIPHER, "aes128-gcm@openssh.com"): 500e6, (Kind.CIPHER, "aes256-gcm@openssh.com"): 900e6,
        (Kind.CIPHER, "3des-cbc"): 5e9,  # absurdly fast and still never recommended
        (Kind.KEX, "curve25519-sha256"): 1 / 0.1, (Kind.KEX, "sntrup761x25519-sha512"): 1 / 0.2,
        (Kind.KEX, "ecdh-sha2-nistp256"): 1 / 0.09,
    }), "compatible", strict_both=True)
    lines = {line.keyword: line for line in rec.lines}
    assert lines["Ciphers"].names == ["aes256-gcm@openssh.com", "aes128-gcm@openssh.com"]
    assert ("3des-cbc", "broken") in lines["Ciphers"].dropped
    assert lines["KexAlgorithms"].names == ["sntrup761x25519-sha512", "ecdh-sha2-nistp256", "curve25519-sha256"]
    assert any("MACs: not measured" in note for note in rec.notes)


def test_chacha_only_with_strict_kex_on_both_ends() -> None:
    speeds = {(Kind.CIPHER, "chacha20-poly1305@openssh.com"): 900e6, (Kind.CIPHER, "aes128-gcm@openssh.com"): 8e8}
    assert "chacha20-poly1305@openssh.com" in build(report_with(speeds), "modern", strict_both=True).lines[0].names
    for verdict in (False, None):
        line = build(report_with(speeds), "modern", strict_both=verdict).lines[0]
        assert line.names == ["aes128-gcm@openssh.com"]
        assert line.dropped[0][0] == "chacha20-poly1305@openssh.com" and "Terrapin" in line.dropped[0][1]


def test_modern_policy_with_nothing_allowed_leaves_defaults() -> None:
    rec = build(report_with({(Kind.CIPHER, "aes128-ctr"): 1e9}), "modern", strict_both=True)
    assert rec.directives() == []
    assert any("no measured algorithm passes policy modern" in note for note in rec.notes)


def test_negotiation_picks_the_first_client_choice_the_server_has() -> None:
    assert negotiated(["a", "b", "c"], ["c", "b"]) == "b"
    assert negotiated(["a"], ["b"]) is None
