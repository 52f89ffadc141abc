"""The ordering rule's properties, on random lines: security first, a swap only on proof, never on n < 6."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sshbench.analysis.security.ordering import (
    HANDSHAKE,
    PREFERENCE,
    Candidate,
    Evidence,
    comparisons,
    order,
    proven_faster,
    security_rank,
)
from sshbench.vocabulary.algorithms import TABLE, Grade, Kind
from sshbench.vocabulary.case_terms import Direction

MARGIN = 0.05
ORDERABLE = {kind: sorted(n for n, a in TABLE.items() if a.kind is kind and a.grade in (Grade.RECOMMENDED,
             Grade.ACCEPTABLE) and "cert" not in n and not n.startswith(("sk-", "webauthn-")))
             for kind in PREFERENCE}


@st.composite
def lines(draw: st.DrawFn) -> list[Candidate]:
    """A line of one kind: random names, each with 3-14 samples per direction around a random speed."""
    kind = draw(st.sampled_from(sorted(ORDERABLE)))
    names = draw(st.lists(st.sampled_from(ORDERABLE[kind]), min_size=1, max_size=8, unique=True))
    noise = draw(st.sampled_from([0.0, 0.05, 0.15]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    directions = (Evidence(Direction.UPLOAD), Evidence(Direction.DOWNLOAD)) if kind in (Kind.CIPHER, Kind.MAC) \
        else (HANDSHAKE,)
    out = []
    for name in names:
        base = draw(st.sampled_from([1.0, 1.02, 1.1, 1.5, 3.0, 10.0]))
        speeds = {d: [base * (1 + rng.gauss(0, noise)) + 1e-9 for _ in range(draw(st.integers(3, 14)))]
                  for d in directions[:draw(st.integers(1, len(directions)))]}
        out.append(Candidate(name, kind, speeds))
    return out


def _level(line: list[Candidate]) -> float:
    return 1 - 0.05 / comparisons(line)


@settings(max_examples=300, deadline=None)
@given(lines())
def test_grade_first_and_every_inversion_is_proven(line: list[Candidate]) -> None:
    names, moves = order(line, MARGIN)
    by_name = {c.name: c for c in line}
    assert sorted(names) == sorted(by_name)
    ranks = [security_rank(n, line[0].kind) for n in names]
    assert [r[0] for r in ranks] == sorted(r[0] for r in ranks), "recommended before acceptable, always"
    for i, ahead in enumerate(names):
        for behind in names[i + 1:]:
            if security_rank(ahead, line[0].kind) > security_rank(behind, line[0].kind):
                move = proven_faster(by_name[ahead], by_name[behind], MARGIN, _level(line))
                assert move is not None and move.low > 1 + MARGIN, (ahead, behind)
    assert all(names.index(m.name) < names.index(m.over) for m in moves)


@settings(max_examples=200, deadline=None)
@given(lines())
def test_cases_without_an_interval_never_move(line: list[Candidate]) -> None:
    names, _ = order(line, MARGIN)
    kind = line[0].kind
    short = {c.name for c in line if all(len(v) < 6 for v in c.speeds.values())}
    for i, ahead in enumerate(names):
        for behind in names[i + 1:]:
            if ahead in short or behind in short:
                assert security_rank(ahead, kind) < security_rank(behind, kind), (ahead, behind)


@settings(max_examples=200, deadline=None)
@given(lines(), st.randoms(use_true_random=False))
def test_the_input_order_does_not_matter(line: list[Candidate], rnd: random.Random) -> None:
    shuffled = list(line)
    rnd.shuffle(shuffled)
    assert order(shuffled, MARGIN)[0] == order(line, MARGIN)[0]


def test_the_stated_preferences() -> None:
    def first(kind: Kind, *names: str) -> str:
        return order([Candidate(n, kind, {Evidence(Direction.UPLOAD): [1.0] * 6}) for n in names], MARGIN)[0][0]

    assert first(Kind.KEX, "curve25519-sha256", "mlkem768x25519-sha256") == "mlkem768x25519-sha256"
    assert first(Kind.KEX, "ecdh-sha2-nistp256", "curve25519-sha256") == "curve25519-sha256"
    assert first(Kind.MAC, "hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com") \
        == "hmac-sha2-512-etm@openssh.com"
    assert first(Kind.MAC, "hmac-sha2-512", "umac-128-etm@openssh.com") == "umac-128-etm@openssh.com"
    assert first(Kind.HOSTKEY, "rsa-sha2-512", "ecdsa-sha2-nistp256", "ssh-ed25519") == "ssh-ed25519"
    assert first(Kind.HOSTKEY, "rsa-sha2-512", "ecdsa-sha2-nistp256") == "ecdsa-sha2-nistp256"
    assert first(Kind.CIPHER, "chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com") == "aes128-gcm@openssh.com"


def test_a_proven_speed_up_moves_and_says_by_how_much() -> None:
    slow = Candidate("curve25519-sha256", Kind.KEX, {HANDSHAKE: [10.0, 10.2, 9.9, 10.1, 10.0, 9.8]})
    fast = Candidate("ecdh-sha2-nistp256", Kind.KEX, {HANDSHAKE: [20.0, 20.5, 19.8, 20.2, 19.9, 20.1]})
    names, moves = order([slow, fast], MARGIN)
    assert names == ["ecdh-sha2-nistp256", "curve25519-sha256"]
    assert len(moves) == 1 and 1.9 < moves[0].ratio < 2.1 and moves[0].low > 1.05
    noisy = Candidate("ecdh-sha2-nistp256", Kind.KEX, {HANDSHAKE: [10.0, 10.6, 9.7, 10.4, 10.1, 9.9]})
    assert order([slow, noisy], MARGIN)[0] == ["curve25519-sha256", "ecdh-sha2-nistp256"], "within the margin"
