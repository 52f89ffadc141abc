"""Recommendations: never weak or broken, Terrapin-aware, security first, and texts that keep logins working."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sshbench.analysis.config.configtext import client_block, client_directives, server_advice, server_dropin
from sshbench.analysis.config.recommend import KEYWORDS, build, client_has_prepend, negotiated, prediction
from sshbench.analysis.security.safety import terrapin_exposed
from sshbench.analysis.stats.stats import summarize
from sshbench.results.environment import RemoteFacts, ServerFacts, ServerKind, TerrapinFacts, TerrapinSide
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.vocabulary.algorithms import TABLE, AlgorithmLists, Grade, Kind, lookup
from sshbench.vocabulary.units import GiB

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


def report_with(speeds: dict[tuple[Kind, str], float], runs: int = 6) -> Report:
    """A report whose cases have the given speed (bytes/s for throughput, 1/seconds for handshakes)."""
    records, samples = [], []
    for (kind, name), speed in speeds.items():
        case = _case(kind, name)
        records.append(CaseRecord(case))
        for rnd in range(1, runs + 1):
            if case.moves_data:
                samples.append(Sample(case.id, rnd, False, True, "t", GiB, bytes_received=GiB,
                                      data_seconds=GiB / speed, setup_seconds=0.2, phases={"banner_sent": 0.0}))
            else:
                samples.append(Sample(case.id, rnd, False, True, "t", 0, setup_seconds=1 / speed,
                                      phases={"banner_sent": 0.0, "session_open": 1 / speed}))
    report = Report(tool_version="t", started_at="t", seed=1, cases=records, samples=samples)
    report.environment.client.version = "OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15"
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
    for text in (client_block(rec), server_dropin(rec) or ""):
        directives = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
        for weak in (n for n, a in TABLE.items() if a.grade.flagged):
            assert all(weak not in d.split(" ", 1)[-1].lstrip("^").split(",") for d in directives)


def test_security_first_when_speed_is_not_proven() -> None:
    # identical samples, so every interval is a point: 6 v 6 proves any gap beyond the margin
    rec = build(report_with({
        (Kind.CIPHER, "aes128-gcm@openssh.com"): 900e6, (Kind.CIPHER, "aes256-gcm@openssh.com"): 880e6,
        (Kind.CIPHER, "3des-cbc"): 5e9,  # absurdly fast and still never recommended
        (Kind.KEX, "curve25519-sha256"): 1 / 0.1, (Kind.KEX, "sntrup761x25519-sha512"): 1 / 0.2,
        (Kind.KEX, "ecdh-sha2-nistp256"): 1 / 0.05,
        (Kind.MAC, "hmac-sha2-512"): 2e9, (Kind.MAC, "umac-128-etm@openssh.com"): 1e9,
    }), "compatible", strict_both=True)
    lines = {line.keyword: line for line in rec.lines}
    # 2% apart is within the 5% tie margin: the 256-bit key leads
    assert lines["Ciphers"].names == ["aes256-gcm@openssh.com", "aes128-gcm@openssh.com"]
    assert ("3des-cbc", "broken") in lines["Ciphers"].dropped
    # recommended before acceptable, however fast: PQ first; then twice as fast NIST ECDH beats curve25519
    assert lines["KexAlgorithms"].names == ["sntrup761x25519-sha512", "ecdh-sha2-nistp256", "curve25519-sha256"]
    assert [(m.name, m.over) for m in lines["KexAlgorithms"].moves] == [("ecdh-sha2-nistp256", "curve25519-sha256")]
    # encrypt-then-MAC (recommended) before encrypt-and-MAC (acceptable), even at half the speed
    assert lines["MACs"].names == ["umac-128-etm@openssh.com", "hmac-sha2-512"]


def test_five_samples_never_reorder() -> None:
    rec = build(report_with({(Kind.KEX, "curve25519-sha256"): 1 / 0.5, (Kind.KEX, "ecdh-sha2-nistp256"): 1 / 0.01},
                            runs=5), "compatible", strict_both=True)
    assert rec.lines[0].names == ["curve25519-sha256", "ecdh-sha2-nistp256"] and rec.lines[0].moves == []


def test_host_key_algorithms_only_when_asked() -> None:
    speeds = {(Kind.HOSTKEY, "rsa-sha2-256"): 1 / 0.01, (Kind.HOSTKEY, "ssh-ed25519"): 1 / 0.02}
    default = build(report_with(speeds), "compatible", strict_both=True)
    text = client_block(default)
    assert "HostKeyAlgorithms" not in "".join(client_directives(default))
    assert "# HostKeyAlgorithms: not set." in text and "known_hosts" in text
    asked = build(report_with(speeds), "compatible", strict_both=True, host_keys=True)
    assert client_directives(asked) == ["HostKeyAlgorithms ^ssh-ed25519,rsa-sha2-256"]


def test_prepend_form_keeps_the_defaults_and_exact_does_not() -> None:
    speeds = {(Kind.CIPHER, "aes128-gcm@openssh.com"): 9e8}
    report = report_with(speeds)
    report.environment.algorithms.client_defaults = AlgorithmLists(cipher=("chacha20-poly1305@openssh.com",
                                                                           "aes128-gcm@openssh.com", "aes256-ctr"))
    assert client_directives(build(report, strict_both=True)) == ["Ciphers ^aes128-gcm@openssh.com"]
    assert client_directives(build(report, strict_both=True, exact=True)) == ["Ciphers aes128-gcm@openssh.com"]
    report.environment.client.version = "OpenSSH_8.1p1, OpenSSL 1.1.1"
    assert client_directives(build(report, strict_both=True)) == [
        "Ciphers aes128-gcm@openssh.com,chacha20-poly1305@openssh.com,aes256-ctr"]
    assert client_has_prepend("OpenSSH_8.2p1") and not client_has_prepend("OpenSSH_7.9p1")
    assert not client_has_prepend("dropbear")


def _terrapin(strict: bool) -> TerrapinFacts:
    side = TerrapinSide("b", strict_kex=strict, exploitable=not strict)
    return TerrapinFacts(client=TerrapinSide("c", True), server=side, protected=strict)


def _remote(report: Report, banner: str, ciphers: tuple[str, ...], strict: bool) -> Report:
    report.environment.server = ServerFacts(ServerKind.REMOTE, banner, remote=RemoteFacts(destination="h"))
    etm = ("hmac-sha2-256-etm@openssh.com",)
    report.environment.algorithms.server_enabled = AlgorithmLists(cipher=ciphers, mac=etm)
    report.environment.algorithms.client_defaults = AlgorithmLists(cipher=("chacha20-poly1305@openssh.com",
                                                                           "aes128-gcm@openssh.com"))
    report.environment.terrapin = _terrapin(strict)
    return report


def test_a_server_with_only_chacha_and_no_strict_kex_is_exposed_and_says_what_to_do() -> None:
    report = _remote(report_with({(Kind.CIPHER, "chacha20-poly1305@openssh.com"): 9e8}), "tinyssh_20230101",
                     ("chacha20-poly1305@openssh.com",), strict=False)
    rec = build(report)
    assert rec.lines[0].names == [] and "Terrapin" in rec.lines[0].dropped[0][1]
    assert rec.exposure is not None and rec.exposure.startswith("Terrapin: NOT protected")
    assert "tinysshd 20240101" in rec.exposure and "\n" not in rec.exposure
    assert rec.software == "tinysshd" and server_dropin(rec) is None and "tinysshd(8)" in (server_advice(rec) or "")
    assert rec.exposure in client_block(rec, "h")


def test_a_protected_cipher_first_closes_the_exposure() -> None:
    report = _remote(report_with({(Kind.CIPHER, "chacha20-poly1305@openssh.com"): 9e8,
                                  (Kind.CIPHER, "aes128-gcm@openssh.com"): 8e8}), "dropbear_2022.83",
                     ("chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com"), strict=False)
    rec = build(report)
    assert rec.exposure is None and rec.lines[0].names == ["aes128-gcm@openssh.com"]
    assert prediction(report, rec) == [
        "Ciphers: now chacha20-poly1305@openssh.com (900 MB/s up (n=6)); after aes128-gcm@openssh.com "
        "(800 MB/s up (n=6))"]
    assert rec.software == "dropbear" and "localoptions.h" in (server_advice(rec) or "")


def test_no_effect_line_when_nothing_changes() -> None:
    report = _remote(report_with({(Kind.CIPHER, "aes128-gcm@openssh.com"): 8e8}), "OpenSSH_9.2p1",
                     ("aes128-gcm@openssh.com",), strict=True)
    report.environment.algorithms.client_defaults = AlgorithmLists(cipher=("aes128-gcm@openssh.com",))
    assert prediction(report, build(report)) == []


def test_terrapin_exposed_modes() -> None:
    assert terrapin_exposed("chacha20-poly1305@openssh.com", None)
    assert terrapin_exposed("aes128-cbc", "hmac-sha2-256-etm@openssh.com")
    assert not terrapin_exposed("aes128-cbc", "hmac-sha2-256")
    assert not terrapin_exposed("aes128-ctr", "hmac-sha2-256-etm@openssh.com")


def test_chacha_only_with_strict_kex_on_both_ends() -> None:
    speeds = {(Kind.CIPHER, "chacha20-poly1305@openssh.com"): 900e6, (Kind.CIPHER, "aes128-gcm@openssh.com"): 8e8}
    assert "chacha20-poly1305@openssh.com" in build(report_with(speeds), "modern", strict_both=True).lines[0].names
    for verdict in (False, None):
        line = build(report_with(speeds), "modern", strict_both=verdict).lines[0]
        assert line.names == ["aes128-gcm@openssh.com"]
        assert line.dropped[0][0] == "chacha20-poly1305@openssh.com" and "Terrapin" in line.dropped[0][1]


def test_modern_policy_with_nothing_allowed_leaves_defaults() -> None:
    rec = build(report_with({(Kind.CIPHER, "aes128-ctr"): 1e9}), "modern", strict_both=True)
    assert client_directives(rec) == []
    assert any("no measured algorithm passes policy modern" in note for note in rec.notes)
    block = client_block(rec)  # no empty `Host *` block (a tinysshd run's used to be one): comments only
    assert "\nHost " not in block and all(line.startswith("#") for line in block.splitlines() if line)


def test_negotiation_picks_the_first_client_choice_the_server_has() -> None:
    assert negotiated(["a", "b", "c"], ["c", "b"]) == "b"
    assert negotiated(["a"], ["b"]) is None
