"""The lock-out check on recorded client offers: negotiation, the rule that keeps people in, its guarantees."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sshbench.analysis.security.lockout import Refused, check, keep_in, negotiate
from sshbench.clients import ClientOffer, known_clients, load_offer_file, select_clients
from sshbench.vocabulary.algorithms import AlgorithmLists, Grade, Kind, lookup
from sshbench.vocabulary.errors import UsageError

KNOWN = {c.name: c for c in known_clients()}
# OpenSSH 9.2p1's compiled-in server offer (sshd -T with no algorithm lines, Debian 12), host keys it has.
TODAY = AlgorithmLists(
    cipher=("chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr", "aes128-gcm@openssh.com",
            "aes256-gcm@openssh.com"),
    mac=("umac-64-etm@openssh.com", "umac-128-etm@openssh.com", "hmac-sha2-256-etm@openssh.com",
         "hmac-sha2-512-etm@openssh.com", "hmac-sha1-etm@openssh.com", "umac-64@openssh.com", "umac-128@openssh.com",
         "hmac-sha2-256", "hmac-sha2-512", "hmac-sha1"),
    kex=("sntrup761x25519-sha512@openssh.com", "curve25519-sha256", "curve25519-sha256@libssh.org",
         "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256",
         "diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256"),
    hostkey=("ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512", "rsa-sha2-256"),
)
MODERN = {Kind.CIPHER: ["aes256-gcm@openssh.com", "aes128-gcm@openssh.com", "chacha20-poly1305@openssh.com"],
          Kind.MAC: ["hmac-sha2-512-etm@openssh.com", "hmac-sha2-256-etm@openssh.com", "umac-128-etm@openssh.com"],
          Kind.KEX: ["sntrup761x25519-sha512@openssh.com"]}


def grades_only(name: str, kind: Kind, client: ClientOffer) -> Refused | None:
    grade = lookup(name, kind).grade
    return Refused(grade.value, lasting=True) if grade.flagged or grade is Grade.UNKNOWN else None


def test_the_shipped_clients_are_the_ones_people_use() -> None:
    for name in ("openssh-9.2p1", "openssh-8.4p1", "openssh-10.2p1", "hpn-ssh-18.8.0", "dropbear-2022.83",
                 "putty-0.78", "paramiko-5.1.0", "asyncssh-2.24.1", "libssh2-1.10.0"):
        assert name in KNOWN, name
        assert KNOWN[name].origin == "recorded" and KNOWN[name].source
    assert any(name.startswith("go-x-crypto-") for name in KNOWN)


def test_ssh_takes_the_clients_first_choice_the_server_offers() -> None:
    got = negotiate(KNOWN["openssh-9.2p1"], TODAY)
    assert got.connects and got.kex == "sntrup761x25519-sha512@openssh.com"
    assert got.cipher == "chacha20-poly1305@openssh.com" and got.mac is None  # AEAD: the MAC is implicit


def test_paramiko_insists_on_a_common_mac_even_with_aes_gcm() -> None:
    server = dataclasses.replace(TODAY, cipher=("aes256-gcm@openssh.com",), mac=("umac-128-etm@openssh.com",))
    assert KNOWN["paramiko-5.1.0"].mac_with_aead
    got = negotiate(KNOWN["paramiko-5.1.0"], server)
    assert got.failed is Kind.MAC and got.reason.startswith("no common MAC")
    assert negotiate(KNOWN["openssh-9.2p1"], server).connects  # OpenSSH does not


def test_sntrup_alone_shuts_out_older_and_library_clients() -> None:
    shut = {o.client.name for o in check(list(KNOWN.values()), TODAY, MODERN).shut_out()}
    assert {"paramiko-5.1.0", "openssh-8.4p1", "dropbear-2022.83", "libssh2-1.10.0"} <= shut
    assert "openssh-9.2p1" not in shut


def test_the_rule_keeps_every_client_in_with_acceptable_algorithms_only() -> None:
    kept = keep_in(list(KNOWN.values()), TODAY, MODERN, grades_only)
    assert kept.shut_out() == []
    for kind, names in MODERN.items():
        assert kept.lists[kind][:len(names)] == names, "the policy's own lists stay first, in order"
    for addition in kept.additions:
        assert lookup(addition.name, addition.kind).grade in (Grade.RECOMMENDED, Grade.ACCEPTABLE)
        assert addition.clients, "every addition is needed by someone"
    assert any(a.kind is Kind.KEX and a.name.startswith("curve25519") for a in kept.additions)


def test_a_client_that_needs_a_weak_algorithm_leaves_that_line_unset() -> None:
    old = dataclasses.replace(KNOWN["openssh-9.2p1"], name="old", software="Old 1.0",
                              kex=("diffie-hellman-group14-sha1",))
    today = dataclasses.replace(TODAY, kex=(*TODAY.kex, "diffie-hellman-group14-sha1"))
    kept = keep_in([old], today, MODERN, grades_only)
    assert Kind.KEX not in kept.lists and "weak" in kept.unset[Kind.KEX]
    assert kept.shut_out() == [] and "diffie-hellman-group14-sha1" not in str(kept.lists)


def test_what_the_policy_forbids_is_not_added_and_the_client_stays_out() -> None:
    def forbid_curve(name: str, kind: Kind, client: ClientOffer) -> Refused | None:
        return Refused("forbidden by policy site") if kind is Kind.KEX and name != MODERN[Kind.KEX][0] else None
    kept = keep_in([KNOWN["paramiko-5.1.0"]], TODAY, MODERN, forbid_curve)
    assert [o.client.name for o in kept.shut_out()] == ["paramiko-5.1.0"]
    assert kept.lists[Kind.KEX] == MODERN[Kind.KEX]


def test_a_client_that_cannot_log_in_today_does_not_constrain_the_config() -> None:
    stranger = dataclasses.replace(KNOWN["openssh-9.2p1"], name="stranger", kex=("mlkem768x25519-sha256",))
    kept = keep_in([stranger], TODAY, MODERN, grades_only)
    assert kept.lists == MODERN and not kept.additions
    assert not negotiate(stranger, TODAY).connects


names = st.sampled_from


@settings(max_examples=150, deadline=None)
@given(kex=st.lists(names([n for n in TODAY.kex if lookup(n, Kind.KEX).grade is Grade.RECOMMENDED or
                           lookup(n, Kind.KEX).grade is Grade.ACCEPTABLE]), min_size=1, unique=True),
       cipher=st.lists(names(["aes256-gcm@openssh.com", "aes128-gcm@openssh.com", "chacha20-poly1305@openssh.com",
                              "aes256-ctr"]), min_size=1, unique=True),
       mac=st.lists(names(["hmac-sha2-512-etm@openssh.com", "hmac-sha2-256-etm@openssh.com",
                           "umac-128-etm@openssh.com"]), min_size=1, unique=True),
       chosen=st.lists(names(sorted(KNOWN)), min_size=1, unique=True))
def test_keep_in_never_shuts_out_and_never_adds_a_flagged_name(kex: list[str], cipher: list[str], mac: list[str],
                                                               chosen: list[str]) -> None:
    lists = {Kind.KEX: kex, Kind.CIPHER: cipher, Kind.MAC: mac}
    kept = keep_in([KNOWN[n] for n in chosen], TODAY, lists, grades_only)
    assert kept.shut_out() == []
    for kind, names_written in kept.lists.items():
        assert names_written[:len(lists[kind])] == lists[kind]
        assert not any(lookup(n, kind).grade.flagged for n in names_written)


_clients_drawn = st.builds(
    lambda kex, cipher, mac, hostkey, aead_mac: dataclasses.replace(
        KNOWN["openssh-9.2p1"], name="drawn", software="Drawn 1.0", kex=tuple(kex), cipher_c2s=tuple(cipher),
        cipher_s2c=tuple(cipher), mac_c2s=tuple(mac), mac_s2c=tuple(mac), hostkey=tuple(hostkey),
        mac_with_aead=aead_mac),
    kex=st.lists(names(list(TODAY.kex)), min_size=1, max_size=5, unique=True),
    cipher=st.lists(names(list(TODAY.cipher)), min_size=1, max_size=4, unique=True),
    mac=st.lists(names(list(TODAY.mac)), min_size=1, max_size=4, unique=True),
    hostkey=st.lists(names(list(TODAY.hostkey)), min_size=1, max_size=3, unique=True),
    aead_mac=st.booleans())


@settings(max_examples=200, deadline=None)
@given(known=st.lists(names(sorted(KNOWN)), unique=True), drawn=_clients_drawn)
def test_adding_any_client_only_adds_names_so_no_client_kept_in_before_is_shut_out(known: list[str],
                                                                                  drawn: ClientOffer) -> None:
    """The keep-in rule is monotone: the drop-in for more clients offers a superset of every kind, so every
    client (recorded or not) that logged in with the smaller set's drop-in still does."""
    before = keep_in([KNOWN[n] for n in known], TODAY, MODERN, grades_only)
    after = keep_in([*(KNOWN[n] for n in known), drawn], TODAY, MODERN, grades_only)
    offer_before, offer_after = before.offer(), after.offer()
    for kind in (Kind.KEX, Kind.HOSTKEY, Kind.CIPHER, Kind.MAC):
        assert set(offer_before.of(kind)) <= set(offer_after.of(kind)), kind
    for client in [*KNOWN.values(), drawn]:
        if negotiate(client, offer_before).connects:
            assert negotiate(client, offer_after).connects, client.name


def test_a_client_without_nist_curves_stays_in_when_a_nist_only_client_is_recorded() -> None:
    """The reported case: recording JSch-like clients (NIST curves only) moved everyone to ecdh-sha2-nistp521 and
    shut out russh, which nobody had recorded and which offers curve25519 but no NIST curve."""
    jsch = dataclasses.replace(KNOWN["openssh-9.2p1"], name="jsch-like", software="JSch-like",
                               kex=("ecdh-sha2-nistp256", "ecdh-sha2-nistp521", "diffie-hellman-group14-sha1"))
    russh = dataclasses.replace(KNOWN["openssh-9.2p1"], name="russh-like", software="russh-like",
                                kex=("curve25519-sha256", "curve25519-sha256@libssh.org"))
    recorded = [c for name, c in KNOWN.items() if not name.startswith(("openssh-9", "openssh-10", "hpn"))]
    today_kex = dataclasses.replace(TODAY, kex=(*TODAY.kex, *(n for n in jsch.kex if n not in TODAY.kex)))
    assert negotiate(russh, today_kex).connects
    with_jsch = keep_in([*recorded, jsch], today_kex, MODERN, grades_only)
    assert with_jsch.shut_out() == []
    assert negotiate(russh, with_jsch.offer()).connects, with_jsch.lists[Kind.KEX]
    assert any(n.startswith("ecdh-sha2-nistp") for n in with_jsch.lists[Kind.KEX]), "a NIST curve, for JSch"
    assert any(n.startswith("curve25519") for n in with_jsch.lists[Kind.KEX]), "and curve25519 stays"


def test_select_clients_by_family_exclusion_and_file(tmp_path: Path) -> None:
    assert {c.name for c in select_clients("openssh")} == {n for n in KNOWN if n.startswith("openssh-")}
    assert "paramiko-5.1.0" not in {c.name for c in select_clients("all,-paramiko")}
    assert select_clients("none") == []
    mine = tmp_path / "mine.json"
    mine.write_text(dataclasses.replace(KNOWN["putty-0.78"], name="mine").to_json())
    assert {c.name for c in select_clients(str(mine))} == {*KNOWN, "mine"}, "a recording adds to the known ones"
    assert [c.name for c in select_clients(f"none,{mine}")] == ["mine"]
    assert [c.name for c in select_clients(["none", str(mine)])] == ["mine"], "repeated --clients combine"
    assert {c.name for c in select_clients(["all", str(mine)])} == {*KNOWN, "mine"}, "not the last one only"
    assert "putty-0.78" not in {c.name for c in select_clients("-putty-0.78")}
    assert {c.name for c in select_clients("-putty-0.78")} == set(KNOWN) - {"putty-0.78"}
    for empty in ("", " ,", ["all", ""]):
        with pytest.raises(UsageError, match="give all, none"):
            select_clients(empty)
    with pytest.raises(UsageError, match="no known client 'putyy'"):
        select_clients("putyy")


@pytest.mark.parametrize("body, problem", [
    ("{", "not a client recording"),
    ('{"format": 1, "name": "x"}', "has no"),
    ('{"format": 2}', "format 1"),
])
def test_a_bad_recording_is_one_line(tmp_path: Path, body: str, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(body)
    with pytest.raises(UsageError, match=problem):
        load_offer_file(str(path))


def test_a_recording_with_a_forged_name_or_a_fifo_is_refused(tmp_path: Path) -> None:
    forged = dataclasses.replace(KNOWN["putty-0.78"], name="mine").to_json().replace(
        '"curve25519-sha256"', '"curve25519-sha256\\nPermitRootLogin yes"', 1)
    path = tmp_path / "forged.json"
    path.write_text(forged)
    with pytest.raises(UsageError, match="not an algorithm name"):
        load_offer_file(str(path))
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="not a regular file"):
        load_offer_file(str(fifo))
