"""A fitted run (--fit, or the default budget) ends in a run that fits, never in a refusal after its warm-up."""

from __future__ import annotations

from sshbench.plan.budget import leave_out_slowest
from sshbench.results.model import Case, CaseKind, CaseRecord, CaseStatus, Direction


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
