from sshbench.measure.proof import negotiation_mismatch
from sshbench.plumbing.negotiation import parse_text, parse_verbose
from sshbench.results.model import Case, CaseKind, Direction
from tests.conftest import recorded


def test_parses_cipher_mac_kex_hostkey_from_real_ssh_v() -> None:
    got = parse_text(recorded("ssh-v-9.2-aes128-ctr-etm.txt"))
    neg = got.negotiated
    assert neg.kex == "sntrup761x25519-sha512"
    assert neg.hostkey == "ssh-ed25519"
    assert (neg.cipher_c2s, neg.cipher_s2c) == ("aes128-ctr", "aes128-ctr")
    assert neg.mac_c2s == neg.mac_s2c == "hmac-sha2-256-etm@openssh.com"
    assert neg.compression_c2s == neg.compression_s2c == "none"
    assert neg.server_version == "OpenSSH_9.2p1"  # softwareversion only; the comment is the banner's
    assert got.refused is None
    assert set(got.phases) == {"tcp_connected", "banner_sent", "banner_received", "kexinit_sent", "newkeys_received",
                               "service_accepted", "methods_listed", "key_accepted", "authenticated", "session_open"}
    marks = got.phases  # in the order the protocol runs them
    assert marks["newkeys_received"] <= marks["service_accepted"] <= marks["methods_listed"] <= \
        marks["key_accepted"] <= marks["authenticated"]


def test_aead_cipher_reports_implicit_mac() -> None:
    neg = parse_text(recorded("ssh-v-9.2-gcm-gex-dss.txt")).negotiated
    assert neg.cipher_c2s == "aes128-gcm@openssh.com"
    assert neg.mac_c2s == "<implicit>"
    assert neg.kex == "diffie-hellman-group-exchange-sha256"
    assert neg.hostkey == "ssh-dss"


def test_refusal_is_recognised() -> None:
    got = parse_text(recorded("ssh-v-9.2-refused-cipher.txt"))
    assert got.refused == "no matching cipher found"
    assert not got.negotiated.complete


def test_phase_marks_keep_the_first_arrival_time() -> None:
    lines = [(0.01, "debug1: Connection established."), (0.02, "debug1: SSH2_MSG_KEXINIT sent"),
             (0.09, "debug1: SSH2_MSG_NEWKEYS received"), (0.5, "debug1: SSH2_MSG_NEWKEYS received")]
    phases = parse_verbose(lines).phases
    assert phases == {"tcp_connected": 0.01, "kexinit_sent": 0.02, "newkeys_received": 0.09}


def test_mismatch_between_request_and_negotiation_is_reported() -> None:
    neg = parse_text(recorded("ssh-v-9.2-aes128-ctr-etm.txt")).negotiated
    ok = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", mac="hmac-sha2-256-etm@openssh.com")
    assert negotiation_mismatch(ok, neg) is None
    wrong_cipher = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-ctr", mac="hmac-sha2-256-etm@openssh.com")
    assert "aes256-ctr" in (negotiation_mismatch(wrong_cipher, neg) or "")
    wrong_kex = Case(CaseKind.KEX, Direction.SETUP, kex="curve25519-sha256")
    assert "key exchange" in (negotiation_mismatch(wrong_kex, neg) or "")


def test_aead_case_expects_implicit_mac() -> None:
    neg = parse_text(recorded("ssh-v-9.2-gcm-gex-dss.txt")).negotiated
    case = Case(CaseKind.HOSTKEY, Direction.SETUP, hostkey="ssh-dss")
    assert negotiation_mismatch(case, neg) is None
    aead_with_mac = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com", mac="hmac-sha1")
    assert negotiation_mismatch(aead_with_mac, neg) is None


def test_incomplete_transcript_is_a_mismatch() -> None:
    neg = parse_text(recorded("ssh-v-9.2-refused-cipher.txt")).negotiated
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="3des-cbc")
    assert negotiation_mismatch(case, neg) is not None


def test_remote_cpu_lines_from_a_real_sshd_session_process() -> None:
    from sshbench.measure.proof import parse_remote_cpu

    lines = [(0.0, line) for line in recorded("remote-cpu-lines-upload-200MiB.txt").splitlines()]
    cpu = parse_remote_cpu(lines)
    assert set(cpu) == {"before", "after"}
    assert sum(cpu["after"]) > sum(cpu["before"]) > 0  # schedstat: nanoseconds, so even the handshake shows
    assert 0.05 < sum(cpu["after"]) - sum(cpu["before"]) < 5  # 200 MiB decrypted and MAC-checked by sshd


def test_remote_cpu_from_a_non_sshd_parent_is_unknown() -> None:
    from sshbench.measure.proof import parse_remote_cpu

    line = "SSHBENCH-CPU after 100 5000000 4242 (bash) S 1 2 3 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0"
    assert parse_remote_cpu([(0.0, line)]) == {}


def test_a_connection_the_server_turned_away_is_named_with_the_setting_that_explains_it() -> None:
    """Recorded: OpenSSH 9.2's sshd with MaxStartups 1:100:1 and one connection already waiting."""
    transcript = parse_text(recorded("ssh-v-9.2-maxstartups.txt"))
    assert transcript.turned_away is not None and "Exceeded MaxStartups" in transcript.turned_away
    assert "default 10:30:100" in transcript.turned_away and transcript.refused is None
    closed = parse_text("kex_exchange_identification: read: Connection reset by peer\n").turned_away
    assert closed is not None and "MAX_UNAUTH_CLIENTS" in closed and "Connection reset by peer" in closed
    assert parse_text(recorded("ssh-v-9.2-aes128-ctr-etm.txt")).turned_away is None
