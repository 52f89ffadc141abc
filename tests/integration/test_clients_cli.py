"""`sshbench clients record` and `clients check` as users meet them: real clients, real sshd, every rough edge one
line (or the obvious behaviour)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench
from tests.integration.test_hostile import assert_one_clean_line

pytestmark = pytest.mark.integration

SSH = ["ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=/dev/null"]
# A hand-written drop-in an admin might copy from a hardening guide: curve25519 only, AEAD ciphers, EtM MACs
HARDENED = """KexAlgorithms curve25519-sha256,curve25519-sha256@libssh.org
Ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com
MACs hmac-sha2-512-etm@openssh.com,hmac-sha2-256-etm@openssh.com
"""


def test_clients_check_names_who_a_hand_written_drop_in_shuts_out(tmp_path: Path) -> None:
    dropin = tmp_path / "hardened.conf"
    dropin.write_text(HARDENED)
    done = sshbench("clients", "check", str(dropin), cwd=tmp_path)
    assert done.returncode == ExitCode.LOCKOUT, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.split()[:1]}
    assert "SHUT OUT: no common key exchange" in rows["paramiko-2.4.3"]
    assert "SHUT OUT" in rows["jsch-0.1.55"]
    assert "logs in: curve25519" in rows["russh-0.65.1"] and "logs in:" in rows["openssh-9.2p1"]
    assert "SHUTS OUT" in done.stdout.splitlines()[-1] and "paramiko-2.4.3" in done.stdout.splitlines()[-1]


def test_clients_check_reads_a_saved_sshd_T_of_a_running_server_too(tmp_path: Path) -> None:
    """What `sshd -T` prints on the server, copied here: read as it is, no sshd run on it."""
    dropin = tmp_path / "hardened.conf"
    dropin.write_text(HARDENED)
    key = tmp_path / "hk"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    dump = subprocess.run([sshd, "-T", "-f", str(dropin), "-o", f"HostKey={key}", "-o", "PidFile=none"],
                          capture_output=True, text=True, check=True).stdout
    saved = tmp_path / "sshd-T.txt"
    saved.write_text(dump)
    done = sshbench("clients", "check", str(saved), "--clients", "paramiko,russh", cwd=tmp_path)
    assert done.returncode == ExitCode.LOCKOUT, done.stderr
    assert "read as a saved `sshd -T` output" in done.stdout
    assert "checked against 4 clients" in done.stdout  # three paramiko releases and russh


def test_clients_check_of_a_stock_config_shuts_nobody_out(tmp_path: Path) -> None:
    empty = tmp_path / "empty.conf"
    empty.write_text("# nothing set: the sshd's own defaults\n")
    done = sshbench("clients", "check", str(empty), cwd=tmp_path)
    assert done.returncode == ExitCode.OK, done.stdout[-2000:] + done.stderr
    assert "each of them that logs in to a stock server still can" in done.stdout


@pytest.mark.parametrize("content, words", [
    (None, "cannot read"),
    ("Ciphers rot13\n", "-T refuses"),
])
def test_clients_check_of_a_bad_config_is_one_line(content: str | None, words: str, tmp_path: Path) -> None:
    config = tmp_path / "c.conf"
    if content is not None:
        config.write_text(content)
    assert_one_clean_line(sshbench("clients", "check", str(config), cwd=tmp_path), ExitCode.USAGE, words)


def test_record_a_missing_program_is_one_line(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "ghost", "-o", str(tmp_path / "g.json"), "--", "/nonexistent/bin", "{port}",
                    cwd=tmp_path)
    assert_one_clean_line(done, ExitCode.MISSING_TOOL, "cannot run /nonexistent/bin")
    assert not (tmp_path / "g.json").exists()


def test_record_shows_what_the_client_said_when_it_fails(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "typo", "-o", str(tmp_path / "t.json"), "--", *SSH, "-o", "Bogus=1", "-p",
                    "{port}", "127.0.0.1", "true", cwd=tmp_path)
    assert_one_clean_line(done, ExitCode.SERVER, "Bad configuration option: bogus")


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6 here")
@pytest.mark.parametrize("listen", ["::1", "[::1]:0"])
def test_record_listens_on_ipv6(listen: str, tmp_path: Path) -> None:
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        pytest.skip("::1 is not configured here")
    out = tmp_path / "v6.json"
    done = sshbench("clients", "record", "v6", "-o", str(out), "--listen", listen, "--", *SSH, "-6", "-p", "{port}",
                    "::1", "true", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["banner"].startswith("SSH-2.0-OpenSSH")


_GREETER = """import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"SSH-2.0-half\\r\\n")
if sys.argv[2] == "empty":  # a KEXINIT packet whose ten lists are all empty
    payload = bytes([20]) + bytes(16) + struct.pack(">I", 0) * 10 + bytes([0]) + bytes(4)
    pad = 8 - (len(payload) + 5) % 8 + 8
    s.sendall(struct.pack(">IB", len(payload) + pad + 1, pad) + payload + bytes(pad))
time.sleep(30)
"""


def test_record_a_greeting_without_a_kexinit_names_the_timeout(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "half", "-o", str(tmp_path / "h.json"), "--timeout", "2", "--",
                    sys.executable, "-c", _GREETER, "{port}", "banner", cwd=tmp_path)
    assert_one_clean_line(done, ExitCode.SERVER, "sent its banner but no KEXINIT within 2s (the --timeout)")


def test_record_an_empty_kexinit_is_refused_not_saved(tmp_path: Path) -> None:
    done = sshbench("clients", "record", "empty", "-o", str(tmp_path / "e.json"), "--", sys.executable, "-c",
                    _GREETER, "{port}", "empty", cwd=tmp_path)
    assert_one_clean_line(done, ExitCode.USAGE, "offers no key exchange")
    assert not (tmp_path / "e.json").exists()

