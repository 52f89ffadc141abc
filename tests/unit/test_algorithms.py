from sshbench.targets.discovery import parse_query_list
from sshbench.vocabulary.algorithms import TABLE, Grade, Kind, is_aead, lookup, needs_certificate
from tests.conftest import recorded


def test_every_name_openssh_92_knows_is_graded() -> None:
    for kind, query in ((Kind.CIPHER, "cipher"), (Kind.MAC, "mac"), (Kind.KEX, "kex"), (Kind.HOSTKEY, "key-sig")):
        for name in parse_query_list(recorded(f"ssh-Q-9.2-{query}.txt")):
            assert lookup(name, kind).grade is not Grade.UNKNOWN, name


def test_unknown_names_are_unknown_never_guessed() -> None:
    alg = lookup("aes512-quantum@example.com", Kind.CIPHER)
    assert alg.grade is Grade.UNKNOWN
    assert lookup("hmac-sha1", Kind.CIPHER).grade is Grade.UNKNOWN  # right name, wrong kind


def test_grades_follow_the_published_facts() -> None:
    assert lookup("3des-cbc", Kind.CIPHER).grade is Grade.BROKEN
    assert lookup("aes128-cbc", Kind.CIPHER).grade is Grade.WEAK
    assert lookup("umac-64-etm@openssh.com", Kind.MAC).grade is Grade.WEAK
    assert lookup("diffie-hellman-group1-sha1", Kind.KEX).grade is Grade.BROKEN
    assert lookup("ssh-rsa", Kind.HOSTKEY).grade is Grade.WEAK
    assert lookup("ssh-dss-cert-v01@openssh.com", Kind.HOSTKEY).grade is Grade.BROKEN
    assert lookup("mlkem768x25519-sha256", Kind.KEX).grade is Grade.RECOMMENDED
    assert Grade.WEAK.flagged and Grade.BROKEN.flagged and not Grade.ACCEPTABLE.flagged


def test_aead_and_etm_flags() -> None:
    aead = {n for n, a in TABLE.items() if a.aead}
    assert aead == {*parse_query_list(recorded("ssh-Q-9.2-cipher-auth.txt")), "chacha20-poly1305-mt@hpnssh.org"}
    assert is_aead("chacha20-poly1305@openssh.com") and not is_aead("aes128-ctr")
    assert all(a.etm == ("-etm@" in n) for n, a in TABLE.items() if a.kind is Kind.MAC)


def test_certificate_detection() -> None:
    assert needs_certificate("rsa-sha2-512-cert-v01@openssh.com")
    assert needs_certificate("sk-ssh-ed25519@openssh.com")
    assert not needs_certificate("ssh-ed25519")


def test_hpn_ssh_names_are_known_and_none_is_broken_as_cipher_and_as_mac() -> None:
    mt = lookup("chacha20-poly1305-mt@hpnssh.org", Kind.CIPHER)
    assert mt.aead and mt.grade is lookup("chacha20-poly1305@openssh.com", Kind.CIPHER).grade
    assert lookup("none", Kind.CIPHER).grade is Grade.BROKEN and "clear" in lookup("none", Kind.CIPHER).reason
    assert lookup("none", Kind.MAC).grade is Grade.BROKEN and "integrity" in lookup("none", Kind.MAC).reason
