"""A fitted run (--fit, or the default budget) ends in a run that fits, never in a refusal after its warm-up."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sshbench.measure.fitting import fit_after_warmup
from sshbench.options import RunOptions
from sshbench.plan.budget import FIT_MARGIN, leave_out_slowest
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Direction, Report
from sshbench.vocabulary.errors import BudgetTooSmall


def _case(cipher: str, streams: int = 1) -> Case:
    return Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=cipher, streams=streams)


def test_changes_go_before_plain_cases_and_the_slowest_first() -> None:
    plain, fast, slow, streams = _case("a"), _case("b"), _case("c"), _case("a", 4)
    records = {c.id: CaseRecord(c) for c in (plain, fast, slow, streams)}
    needed = {plain: 90.0, fast: 10.0, slow: 50.0, streams: 20.0}
    left = dict(needed)
    order: list[Case] = []
    while len(left) > 1:
        before = set(left)
        left = leave_out_slowest(records, left, "why")
        order.extend(c for c in before - set(left))
    assert order == [streams, plain, slow], order  # a change (4 streams) before any plain case, then the slowest
    assert records[streams.id].status is CaseStatus.SKIPPED
    reason = records[streams.id].reason or ""
    assert reason.startswith("left out to fit the time budget (the slowest case left, 20 s)"), reason
    assert len(left) == 1
    assert leave_out_slowest(records, left, "why") == {}, "one case left: it runs as far as the budget goes"
    assert sum(1 for r in records.values() if r.status is CaseStatus.SKIPPED) == 3


def test_the_client_defaults_plain_case_goes_last() -> None:
    """The plain transfer of the client's default cipher is what every change is compared with: a full sweep in a
    short budget left it out first of the plain cases ("chacha20-poly1305@openssh.com" sorts last by name)."""
    default, other, weak = _case("chacha20-poly1305@openssh.com"), _case("aes128-ctr"), _case("3des-cbc")
    records = {c.id: CaseRecord(c) for c in (default, other, weak)}
    needed = {default: 30.0, other: 10.0, weak: 20.0}
    left = leave_out_slowest(records, needed, "why", reference=default.cipher)
    left = leave_out_slowest(records, left, "why", reference=default.cipher)
    assert list(left) == [default], left


def test_a_reference_sshbench_added_goes_before_what_the_user_asked_for() -> None:
    """`--ciphers aes128-gcm --streams 8 --compression ssh --fit` in 90 s: the client's default was added as the
    plain reference; fitting down to one case kept it and left out the one case the user asked to measure."""
    default = _case("chacha20-poly1305@openssh.com")
    asked = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com", streams=8, compression="ssh")
    records = {default.id: CaseRecord(default, added=True), asked.id: CaseRecord(asked)}
    left = leave_out_slowest(records, {default: 10.0, asked: 60.0}, "why", reference=default.cipher)
    assert list(left) == [asked], left
    plain = _case("aes128-gcm@openssh.com")  # a plain selection too (`--link rtt=80ms --ciphers aes128-gcm`)
    records = {default.id: CaseRecord(default, added=True), plain.id: CaseRecord(plain)}
    assert list(leave_out_slowest(records, {default: 10.0, plain: 60.0}, "why", reference=default.cipher)) == [plain]


# Every axis a fitted run's cases vary along: links (none, a round trip, a slow lossy line), servers (the build
# field: "" is OpenSSH), compressors, stream counts, directions and the kinds that options leave out
_LINKS = ("", "rtt=20ms", "rtt=150ms,rate=1gbit", "rtt=2ms,rate=20mbit,loss=1%")
_SERVERS = ("", "dropbear", "tinysshd")
_COMPRESSION = ("off", "ssh", "zstd:3")
_KINDS = (CaseKind.CIPHER, CaseKind.MAC, CaseKind.KEX, CaseKind.CONTROL)


@st.composite
def _fitted(draw: st.DrawFn) -> tuple[list[Case], dict[Case, float], float]:
    """Cases across links x servers x compressors x streams x directions, each with the minimum the warm-up
    measured for it (0.1 s to 20 min), and the budget left (0 to 10 min)."""
    axes = st.tuples(st.sampled_from(_KINDS), st.sampled_from(tuple(Direction)), st.sampled_from(_LINKS),
                     st.sampled_from(_SERVERS), st.sampled_from(_COMPRESSION), st.sampled_from((1, 2, 4, 8)),
                     st.sampled_from(("aes128-gcm@openssh.com", "chacha20-poly1305@openssh.com", "aes128-ctr")))
    made = (_made(*drawn) for drawn in draw(st.lists(axes, min_size=1, max_size=30)))
    cases = list({case.id: case for case in made}.values())  # one case per id, as a plan has them
    needed = {case: draw(st.floats(0.1, 1200.0)) for case in cases}
    return cases, needed, draw(st.floats(0.0, 600.0))


def _made(kind: CaseKind, direction: Direction, link: str, server: str, compression: str, streams: int,
          cipher: str) -> Case:
    if kind is CaseKind.CONTROL:
        return Case(kind, direction, link=link, build=server)
    if kind is not CaseKind.CIPHER:  # a MAC or key exchange case: one connection, its own partners
        return Case(kind, direction, cipher=cipher, mac="hmac-sha2-256" if kind is CaseKind.MAC else None,
                    kex="curve25519-sha256" if kind is CaseKind.KEX else None, link=link, build=server)
    return Case(kind, direction, cipher=cipher, link=link, build=server, streams=streams, compression=compression)


@settings(max_examples=150, deadline=None)
@given(_fitted())
def test_a_fitted_run_never_refuses_after_its_warm_up(drawn: tuple[list[Case], dict[Case, float], float]) -> None:
    """--fit and the default budget (both set options.fit) end in a run that fits, or in one case measured as far
    as the budget goes, whatever links, servers, compressors and stream counts the warm-up measured (issue 62:
    they refused after minutes of warm-up). What went is each said in its case's record; what stays fits."""
    cases, needed, left = drawn
    records = {case.id: CaseRecord(case) for case in cases}
    options = RunOptions(fit=True, directions=(Direction.UPLOAD, Direction.DOWNLOAD))
    spare = fit_after_warmup(Report("t", "", 1), records, dict(needed), left, 30.0, options)
    kept = [case for case in cases if records[case.id].status is not CaseStatus.SKIPPED]
    assert kept, "a fitted run keeps at least one case"
    assert len(kept) == 1 or sum(needed[case] for case in kept) * FIT_MARGIN <= left + 1e-9, (kept, left)
    assert spare == max(0.0, left - sum(needed[case] for case in kept) * FIT_MARGIN) or len(kept) == 1
    for case in cases:
        record = records[case.id]
        assert (record.status is CaseStatus.SKIPPED) == (case not in kept)
        if case not in kept:
            assert (record.reason or "").startswith("left out to fit the time budget ("), record.reason


@settings(max_examples=100, deadline=None)
@given(_fitted())
def test_a_given_budget_refuses_exactly_what_cannot_fit(drawn: tuple[list[Case], dict[Case, float], float]) -> None:
    """Without --fit the same minimum is refused (BudgetTooSmall, exit 2, naming what to leave out) exactly when
    it does not fit, and nothing is left out silently."""
    cases, needed, left = drawn
    records = {case.id: CaseRecord(case) for case in cases}
    fits = sum(needed.values()) * FIT_MARGIN <= left
    try:
        fit_after_warmup(Report("t", "", 1), records, dict(needed), left, 30.0, RunOptions())
    except BudgetTooSmall as refused:
        assert not fits and "raise --time-budget to" in str(refused), str(refused)
    else:
        assert fits
    assert all(record.status is not CaseStatus.SKIPPED for record in records.values())
