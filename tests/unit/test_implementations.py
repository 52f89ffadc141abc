"""What implementations declare about themselves, read by the stages instead of tables of their own."""

from __future__ import annotations

from sshbench.implementations import HPNSSH, OPENSSH, UNKNOWN, by_program
from sshbench.results.environment import EmbeddedFacts, ServerFacts, ServerKind


def test_a_program_is_known_by_its_file_name_and_only_hpn_ssh_has_the_none_cipher() -> None:
    assert by_program("/opt/hpn/bin/hpnssh") is HPNSSH and by_program("/opt/hpn/sbin/hpnsshd") is HPNSSH
    assert by_program("/usr/bin/ssh") is OPENSSH and by_program("/usr/sbin/sshd") is OPENSSH
    assert by_program("/usr/bin/putty") is UNKNOWN
    assert HPNSSH.has_none_cipher and HPNSSH.none_cipher_lines == ("NoneEnabled yes",)
    assert not OPENSSH.has_none_cipher


def _embedded(server: str, version: str) -> ServerFacts:
    return ServerFacts(ServerKind.EMBEDDED, version, "", embedded=EmbeddedFacts(server=server, path="", listen="",
                                                                               host_key_types=[], per_connection=""))


def test_an_embedded_server_is_its_launcher_unless_its_banner_marks_a_build() -> None:
    assert _embedded("openssh", "OpenSSH_9.2p1 Debian-2+deb12u10").software == "openssh"
    assert _embedded("openssh", "OpenSSH_10.2p1_hpn18.8.0").software == "hpnssh"
    assert _embedded("dropbear", "dropbear_2022.83").software == "dropbear"
    assert _embedded("tinysshd", "tinyssh_noversion").software == "tinysshd"
