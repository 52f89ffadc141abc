import os

import pytest

from sshbench.targets import discovery
from sshbench.targets.discovery import find_tool, lists_from_dump, parse_dump, parse_query_list, parse_version
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.errors import MissingToolError
from tests.conftest import recorded


def test_client_version_and_openssl() -> None:
    assert parse_version(recorded("ssh-V-9.2.txt")) == ("OpenSSH_9.2p1 Debian-2+deb12u10",
                                                         "OpenSSL 3.0.19 27 Jan 2026")


def test_sshd_version_from_usage_banner() -> None:
    version, crypto = parse_version(recorded("sshd-usage-9.2.txt"))
    assert version == "OpenSSH_9.2p1 Debian-2+deb12u10"
    assert crypto == "OpenSSL 3.0.19 27 Jan 2026"


def test_version_without_openssl() -> None:
    assert parse_version("OpenSSH_9.9p1, LibreSSL 3.3.6") == ("OpenSSH_9.9p1", "LibreSSL 3.3.6")
    assert parse_version("OpenSSH_8.4p1\n") == ("OpenSSH_8.4p1", None)
    with pytest.raises(ValueError):
        parse_version("dropbear v2022.83")


def test_query_lists() -> None:
    ciphers = parse_query_list(recorded("ssh-Q-9.2-cipher.txt"))
    assert ciphers[0] == "3des-cbc" and "chacha20-poly1305@openssh.com" in ciphers and len(ciphers) == 10
    assert parse_query_list(recorded("ssh-Q-9.2-cipher-auth.txt")) == (
        "aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com")
    assert "rsa-sha2-512" in parse_query_list(recorded("ssh-Q-9.2-key-sig.txt"))
    assert "rsa-sha2-512" not in parse_query_list(recorded("ssh-Q-9.2-key.txt"))


def test_client_defaults_from_ssh_G() -> None:
    lists = lists_from_dump(parse_dump(recorded("ssh-G-9.2-defaults.txt")))
    assert lists.cipher[0] == "chacha20-poly1305@openssh.com"
    assert "3des-cbc" not in lists.cipher
    assert lists.kex[0] == "sntrup761x25519-sha512"  # Debian 12 backports the IANA name
    assert all("ext-info" not in k and "kex-strict" not in k for k in lists.kex)
    assert lists.mac[0] == "umac-64-etm@openssh.com"


def test_server_lists_from_sshd_T() -> None:
    dump = parse_dump(recorded("sshd-T-9.2-embedded.txt"))
    lists = lists_from_dump(dump)
    assert "3des-cbc" in lists.cipher and "hmac-md5" in lists.mac
    assert "diffie-hellman-group1-sha1" in lists.kex
    assert "ssh-dss" in lists.hostkey
    assert len(dump["hostkey"]) == 6  # every generated host key is listed
    assert dump["listenaddress"][0].startswith("127.0.0.1:")  # loopback only
    assert lists.of(Kind.CIPHER) == lists.cipher


def test_missing_sshd_names_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(discovery, "_SBIN_DIRS", (str(tmp_path),))
    with pytest.raises(MissingToolError, match="openssh-server"):
        find_tool("sshd")
    with pytest.raises(MissingToolError, match="openssh-client"):
        find_tool("ssh")


def test_override_must_be_executable(tmp_path: os.PathLike[str]) -> None:
    with pytest.raises(MissingToolError, match="not found at"):
        find_tool("sshd", os.path.join(tmp_path, "nope"))
