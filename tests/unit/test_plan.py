import binascii
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.options import RunOptions
from sshbench.plan.base import REMEASURED, RoundState
from sshbench.plan.cases import SweepSettings, build_cases, plan_cases
from sshbench.plan.partners import sweep_partner
from sshbench.plan.schedules import FixedSchedule, schedule
from sshbench.plan.selection import Selection, select
from sshbench.plumbing.kexinit import parse_kexinit_payload
from sshbench.results.model import Case, CaseKind, CaseStatus, Direction
from sshbench.targets.discovery import ClientInfo, lists_from_dump, parse_dump, parse_query_list
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind
from sshbench.vocabulary.errors import UsageError
from tests.conftest import recorded

CLIENT = ClientInfo(
    path="/usr/bin/ssh", version="OpenSSH_9.2p1", openssl=None,
    supported=AlgorithmLists(
        cipher=parse_query_list(recorded("ssh-Q-9.2-cipher.txt")),
        mac=parse_query_list(recorded("ssh-Q-9.2-mac.txt")),
        kex=parse_query_list(recorded("ssh-Q-9.2-kex.txt")),
        hostkey=parse_query_list(recorded("ssh-Q-9.2-key-sig.txt")),
    ),
    defaults=lists_from_dump(parse_dump(recorded("ssh-G-9.2-defaults.txt"))),
    aead_ciphers=parse_query_list(recorded("ssh-Q-9.2-cipher-auth.txt")),
    key_types=parse_query_list(recorded("ssh-Q-9.2-key.txt")),
)
SERVER = lists_from_dump(parse_dump(recorded("sshd-T-9.2-embedded.txt")))
SETTINGS = SweepSettings("hmac-sha2-256-etm@openssh.com", "aes128-ctr", (Direction.UPLOAD, Direction.DOWNLOAD))


def test_all_is_everything_both_sides_support() -> None:
    sel = select(Kind.CIPHER, "all", CLIENT, SERVER)
    assert len(sel.measure) == 10 and not sel.skipped


def test_default_is_the_client_preference_list() -> None:
    sel = select(Kind.CIPHER, "default", CLIENT, SERVER)
    assert sel.measure == CLIENT.defaults.cipher
    assert "3des-cbc" not in sel.measure


def test_exclusion_and_none() -> None:
    sel = select(Kind.CIPHER, "all,-3des-cbc,-aes192-cbc", CLIENT, SERVER)
    assert "3des-cbc" not in sel.measure and len(sel.measure) == 8
    assert select(Kind.MAC, "none", CLIENT, SERVER).measure == ()


def test_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(UsageError) as info:
        select(Kind.CIPHER, "aes128-gcm", CLIENT, SERVER)
    message = str(info.value)
    assert "unknown cipher 'aes128-gcm'" in message and "aes128-gcm@openssh.com" in message
    assert "\n" not in message


def test_name_the_server_lacks_is_skipped_with_reason() -> None:
    server = AlgorithmLists(cipher=("aes128-ctr",), mac=SERVER.mac, kex=SERVER.kex, hostkey=SERVER.hostkey)
    sel = select(Kind.CIPHER, "aes128-ctr,3des-cbc", CLIENT, server)
    assert sel.measure == ("aes128-ctr",)
    assert sel.skipped == (("3des-cbc", "not offered by the server"),)


def test_certificate_hostkeys_are_skipped_not_measured() -> None:
    sel = select(Kind.HOSTKEY, "all", CLIENT, SERVER)
    assert all("cert" not in name for name in sel.measure)
    sel = select(Kind.HOSTKEY, "ssh-ed25519-cert-v01@openssh.com", CLIENT, SERVER)
    assert sel.measure == () and "certificate" in sel.skipped[0][1]


def test_cases_aead_need_no_mac_and_macs_use_one_fixed_cipher() -> None:
    cases = build_cases([Selection(Kind.CIPHER, ("aes128-gcm@openssh.com", "aes128-ctr")),
                         Selection(Kind.MAC, ("hmac-sha1", "umac-128@openssh.com")),
                         Selection(Kind.KEX, ("curve25519-sha256",)),
                         Selection(Kind.HOSTKEY, ("ssh-ed25519",))], SETTINGS)
    by_id = {c.id: c for c in cases}
    assert by_id["cipher:aes128-gcm@openssh.com:upload"].mac is None
    assert by_id["cipher:aes128-ctr:download"].mac == "hmac-sha2-256-etm@openssh.com"
    assert {c.cipher for c in cases if c.kind is CaseKind.MAC} == {"aes128-ctr"}
    assert Counter(c.kind for c in cases) == {Kind.CIPHER: 4, Kind.MAC: 2, Kind.KEX: 1, Kind.HOSTKEY: 1}


def _offer(name: str) -> AlgorithmLists:
    """What a real server offered, from its recorded first KEXINIT."""
    lines = recorded(name).splitlines()
    return parse_kexinit_payload(binascii.unhexlify(lines[-1]), lines[0].removeprefix("# ")).lists


def test_the_default_run_plans_against_dropbear_and_tinysshd() -> None:
    """Dropbear 2022.83 lacks hmac-sha2-256-etm; tinysshd 20230101 has no non-AEAD cipher at all."""
    options = RunOptions(ciphers="all", macs="all", kex="all", hostkeys="all")
    dropbear = plan_cases(options, CLIENT, _offer("kexinit-dropbear-2022.83.txt"))
    assert dropbear.cipher_mac == "hmac-sha2-256" and dropbear.mac_cipher == "aes128-ctr"
    assert dropbear.notes == ("--cipher-mac auto: hmac-sha2-256 (hmac-sha2-256-etm@openssh.com is not offered by "
                              "both sides)",)
    assert {r.case.mac for r in dropbear.records[:dropbear.measured] if r.case.kind is CaseKind.CIPHER} \
        <= {"hmac-sha2-256", None}
    tiny = plan_cases(options, CLIENT, _offer("kexinit-tinysshd-20230101.txt"))
    macs = [r for r in tiny.records if r.case.kind is CaseKind.MAC]
    assert macs and all(r.status is CaseStatus.SKIPPED and "no non-AEAD cipher" in (r.reason or "") for r in macs)
    measured = [r.case for r in tiny.records[:tiny.measured]]
    assert {c.cipher for c in measured if c.kind is CaseKind.CIPHER} == {"chacha20-poly1305@openssh.com"}


def test_a_named_partner_is_checked_and_an_aead_mac_cipher_refused() -> None:
    with pytest.raises(UsageError, match="AEAD and ignores MACs"):
        sweep_partner(Kind.CIPHER, "aes128-gcm@openssh.com", "--mac-cipher", CLIENT, SERVER)
    with pytest.raises(UsageError, match=r"not offered by the server.*leave --cipher-mac out"):
        sweep_partner(Kind.MAC, "hmac-sha2-256-etm@openssh.com", "--cipher-mac", CLIENT,
                      _offer("kexinit-dropbear-2022.83.txt"))
    assert sweep_partner(Kind.MAC, "hmac-sha2-512", "--cipher-mac", CLIENT, SERVER).name == "hmac-sha2-512"


CASES = [Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=f"c{i}") for i in range(5)] + [
    Case(CaseKind.KEX, Direction.SETUP, kex=f"k{i}") for i in range(3)]


def test_schedule_warmup_then_rounds_with_every_case_once() -> None:
    rounds = schedule(CASES, runs=3, setup_runs=5, seed=7)
    assert [v.round for v in rounds[0]] == [0] * len(CASES)
    assert len(rounds) == 6
    for rnd in rounds:
        ids = [v.case.id for v in rnd]
        assert len(ids) == len(set(ids))
    visits = Counter(v.case.id for rnd in rounds[1:] for v in rnd)
    assert all(visits[c.id] == (3 if c.moves_data else 5) for c in CASES)


def test_schedule_is_deterministic_per_seed_and_shuffled() -> None:
    a = schedule(CASES, 4, 4, seed=42)
    assert a == schedule(CASES, 4, 4, seed=42)
    assert a != schedule(CASES, 4, 4, seed=43)
    orders = {tuple(v.case.id for v in rnd) for rnd in a}
    assert len(orders) > 1  # not the same order every round


@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=6), st.integers(0, 2**32))
def test_schedule_counts_for_any_settings(runs: int, setup_runs: int, seed: int) -> None:
    rounds = schedule(CASES, runs, setup_runs, seed)
    total = sum(len(r) for r in rounds)
    assert total == len(CASES) + 5 * runs + 3 * setup_runs


def _fixed_run(runs: int, set_aside: dict[str, int]) -> tuple[Counter[str], int]:
    """Drive a FixedSchedule as the run loop does, the first `set_aside[case]` measured samples of a case set
    aside (RoundState.visits discounts up to REMEASURED of them, as plan/base.round_state does)."""
    fixed = FixedSchedule(CASES, runs, runs, seed=3)
    measured: Counter[str] = Counter()
    rounds = 0
    while rounds < 50 and (rnd := fixed.next_round(RoundState(visits={
            case_id: n - min(REMEASURED, set_aside.get(case_id, 0), n) for case_id, n in measured.items()}))):
        rounds += 1
        measured.update(v.case.id for v in rnd if v.round > 0)
    return measured, rounds


@pytest.mark.parametrize("aside", [0, 1, 2, 3, 5])
def test_a_fixed_schedule_measures_a_set_aside_sample_again(aside: int) -> None:
    """`--runs 4` gives each case 4 counted samples: one set aside is measured again in a later round, up to
    REMEASURED times; a case whose samples keep being set aside stops there (bounded, never a loop)."""
    short = CASES[0].id
    measured, rounds = _fixed_run(4, {short: aside})
    assert measured[short] == 4 + min(aside, REMEASURED)
    assert all(measured[c.id] == 4 for c in CASES[1:])
    assert rounds == 1 + 4 + min(aside, REMEASURED)


def test_a_budget_shared_by_hosts_asks_for_enough_for_all_of_them() -> None:
    from sshbench.plan.budget import host_share, too_long

    share = host_share(RunOptions(time_budget_seconds=360.0), (0.0, 0), 3)
    assert share.time_budget_seconds == 120.0 and share.budget_shared_by == 3
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr")
    message = too_long({case: 300.0}, 20.0, 100.0, share)
    assert "this host's share of the time budget (1 of 3)" in message and "--time-budget to 16m" in message
    alone = too_long({case: 300.0}, 20.0, 100.0, RunOptions())
    assert "and the time budget leaves" in alone and "--time-budget to 6m" in alone
    # a need a fraction of a second over what is left never reads as the same figure twice
    close = too_long({case: 600.4}, 0.0, 600.0, RunOptions(), before=True)
    assert "needs about 10 min 1 s more (at least, guessed before measuring, 10% to spare)" in close, close
    assert "leaves 10 min 0 s" in close


@pytest.mark.parametrize("first", [Direction.UPLOAD, Direction.DOWNLOAD])
def test_where_both_directions_save_alike_the_fitted_run_keeps_upload(first: Direction) -> None:
    """A default sweep over a link needs both directions alike: the one left out is download, whichever came first
    in the plan (before, the first case's direction decided, and a fitted link run measured downloads only)."""
    from sshbench.plan.budget import largest_savings

    options = RunOptions(directions=(Direction.UPLOAD, Direction.DOWNLOAD))
    other = Direction.DOWNLOAD if first is Direction.UPLOAD else Direction.UPLOAD
    needed = {Case(CaseKind.CIPHER, d, cipher=c, link="rtt=40ms"): 30.0
              for d in (first, other) for c in ("aes128-ctr", "aes256-ctr")}
    needed[Case(CaseKind.CONTROL, Direction.UPLOAD, link="rtt=40ms")] = 10.0
    assert list(largest_savings(needed, options)) == ["--directions upload", "--directions download", "--no-controls"]
    needed[Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes192-ctr", link="rtt=40ms")] = 1.0
    assert next(iter(largest_savings(needed, options))) == "--directions download", "a larger saving still leads"
