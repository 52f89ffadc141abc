"""--policy: the built-in policies and a user's TOML policy file, validated with one clear line per problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from sshbench.analysis.security.policy import policy_from
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.errors import UsageError


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "site.toml"
    path.write_text(text)
    return str(path)


def test_built_in_policies() -> None:
    modern, compatible = policy_from("modern"), policy_from("compatible")
    assert modern.refuses("aes128-ctr", Kind.CIPHER) == "acceptable, not in policy modern"
    assert compatible.refuses("aes128-ctr", Kind.CIPHER) is None
    assert compatible.refuses("hmac-sha1", Kind.MAC) == "weak"


def test_a_policy_file_forbids_and_allows(tmp_path: Path) -> None:
    policy = policy_from(_file(tmp_path, 'name = "site"\nbase = "compatible"\n[forbid]\nkex = ["ecdh-sha2-nistp256"]\n'
                                         '[allow]\nciphers = ["aes256-gcm@openssh.com"]\n'))
    assert policy.name == "site" and not policy.is_built_in
    assert policy.refuses("ecdh-sha2-nistp256", Kind.KEX) == "forbidden by policy site"
    assert policy.refuses("ecdh-sha2-nistp384", Kind.KEX) is None
    assert policy.refuses("aes128-gcm@openssh.com", Kind.CIPHER) == "not allowed by policy site"
    assert policy.refuses("aes256-gcm@openssh.com", Kind.CIPHER) is None


@pytest.mark.parametrize(("text", "message"), [
    ('base = "lax"\n', "base must be modern or compatible"),
    ("[allow]\nciphers = [\"hmac-sha1\"]\n", "is not a cipher name sshbench knows"),
    ("[allow]\nmacs = [\"hmac-sha1\"]\n", "graded weak"),
    ("[allow]\nciphers = [\"aes128-ctr\"]\n", "graded acceptable"),
    ("[forbid]\nprotocols = [\"x\"]\n", "'protocols' is not one of ciphers, macs, kex, hostkeys"),
    ("colour = 1\n", "unknown key 'colour'"),
    ("[allow\n", "not valid TOML"),
    ("[forbid]\nkex = \"curve25519-sha256\"\n", "must be a list of algorithm names"),
    ('name = "a\\nb"\n', "name must be a short word"),
])
def test_bad_policy_files_get_one_clear_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UsageError) as err:
        policy_from(_file(tmp_path, text))
    assert message in str(err.value) and "\n" not in str(err.value) and "--policy" in str(err.value)


def test_a_missing_file_or_unknown_name(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not modern or compatible, and no such policy file"):
        policy_from(str(tmp_path / "nope.toml"))
