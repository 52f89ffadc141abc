"""Dropbear's dbclient as a client (issue 64): what its part declares against what the installed dbclient says, the
driver's contract as it spells it, its pinned known_hosts, and the run refusals that are its own."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import sshbench.cli
from sshbench.cli import main
from sshbench.clientparts import CLIENTS, FAILED, DriverRequest, failure
from sshbench.clientparts.base import DRIVERS
from sshbench.clientparts.dbclient import DBCLIENT
from sshbench.clientparts.drivers import contract, dbclient_pipe
from sshbench.targets.servers.inetd import LOGGED, UNCOMPRESSED
from sshbench.vocabulary.errors import ExitCode

INSTALLED = shutil.which("dbclient")
needs_dbclient = pytest.mark.skipif(INSTALLED is None, reason="no dbclient here (apt-get install dropbear-bin)")


def _driver() -> ModuleType:
    """The driver as a module of sshbench's package (a run starts it as the program it is:
    tests/unit/test_clientparts.py runs it so)."""
    assert DBCLIENT.driver == "dbclient_pipe.py"
    return dbclient_pipe


def _said(*args: str) -> str:
    assert INSTALLED is not None
    done = subprocess.run([INSTALLED, *args], capture_output=True, text=True, timeout=30, check=False)
    return done.stderr + done.stdout


def test_its_part_is_a_program_run_through_a_driver_that_says_nothing() -> None:
    assert CLIENTS["dbclient"] is DBCLIENT and not DBCLIENT.is_program and DBCLIENT.program == "dbclient"
    assert not DBCLIENT.says_negotiation and DBCLIENT.version() is None  # its driver's --probe says it
    assert DBCLIENT.command() == [sys.executable, "-S", str(Path(DRIVERS, "dbclient_pipe.py"))]
    assert DBCLIENT.window.source == "Dropbear 2022.83 default_options.h: #define DEFAULT_RECV_WINDOW 24576"
    assert DBCLIENT.max_packet.value == 32759
    (knob,) = DBCLIENT.knobs
    assert (knob.name, knob.low, knob.high) == ("-W", 1, 10 * 1024 * 1024)


@needs_dbclient
def test_the_declared_window_release_and_range_are_what_the_installed_dbclient_says() -> None:
    """`dbclient -h`: "-W <receive_window_buffer> (default 24576, larger may be faster, max 10MB)"."""
    helped = re.search(r"-W <receive_window_buffer> \(default (\d+), .*max (\d+)MB\)", _said("-h"))
    assert helped is not None
    assert int(helped.group(1)) == DBCLIENT.window.value
    assert int(helped.group(2)) << 20 == DBCLIENT.knobs[0].high
    version = re.search(r"Dropbear v(\S+)", _said("-V"))
    assert version is not None and DBCLIENT.window.release == f"Dropbear {version.group(1)}"


def test_the_driver_spells_the_contract_as_sshbench_reads_it() -> None:
    driver = _driver()
    spelled = (contract.FAILED, driver.PROGRAM, driver.MAX_PACKET, contract.LOGGED, contract.UNCOMPRESSED)
    assert spelled == (FAILED, DBCLIENT.name, DBCLIENT.max_packet.value, LOGGED, UNCOMPRESSED)  # inetd's words
    request = DriverRequest("127.0.0.1", 2222, "u", "/k", "/kh", "sshbench-embedded", "/e", "wc -c", "upload",
                            cipher="aes128-ctr", mac="hmac-sha2-256", kex="curve25519-sha256")
    args = driver.arguments(request.argv(DBCLIENT)[3:])
    argv = driver.dbclient_argv(args, "/usr/bin/dbclient", "/run/h", 40000)
    assert argv == ["/usr/bin/dbclient", "-c", "aes128-ctr", "-m", "hmac-sha2-256", "-i", "/run/h/identity",
                    "-b", ":40000", "-p", "2222", "-l", "u", "127.0.0.1", "wc -c"]
    assert "-y" not in argv, "never accept an unknown host key"
    offered = {"version": "2022.83", "ciphers": ["aes128-ctr"], "macs": ["hmac-sha2-256"],
               "kex": ["curve25519-sha256"], "keys": ["ssh-ed25519"]}
    driver.checked(args, offered)
    args.kex = "ecdh-sha2-nistp256"
    with pytest.raises(contract.Failed, match=r"cannot use key exchange ecdh-sha2-nistp256 \(it has no option to "
                                            r"choose one: it takes its first\) \(it has: curve25519-sha256\)"):
        driver.checked(args, offered)


def test_its_known_hosts_pins_every_key_type_it_knows(tmp_path: Path) -> None:
    """The run's keys under the address dbclient is given, and for each other type a line that matches nothing:
    dbclient finds a line for every key, so it never asks (on stdin, without a tty) to accept one."""
    driver = _driver()
    known = tmp_path / "known_hosts"
    known.write_text("sshbench-embedded ssh-ed25519 AAAAC3Nza1\nother ssh-rsa AAAAB3Nz2\n"
                     "sshbench-embedded ecdsa-sha2-nistp256 AAAAE2V3\n")
    request = DriverRequest("127.0.0.1", 2222, "u", "/k", str(known), "sshbench-embedded", "/e", "true", "upload")
    lines = driver.known_hosts(driver.arguments(request.argv(DBCLIENT)[3:])).splitlines()
    assert [line.split()[1] for line in lines] == list(driver.KEY_TYPES)
    keys = {line.split()[1]: line.split()[2] for line in lines}
    assert all(line.startswith("127.0.0.1 ") for line in lines)
    assert keys["ssh-ed25519"] == "AAAAC3Nza1" and keys["ecdsa-sha2-nistp256"] == "AAAAE2V3"
    assert keys["ssh-rsa"] == driver.UNPINNED, "another host's key is never this server's"


def test_its_own_failure_lines_are_the_reason_where_the_driver_gave_none() -> None:
    lines = ["dbclient: Bad recv window 'x', using 24576", "", "dbclient: Exited: No valid ciphers specified"]
    assert failure(lines, "dbclient") == "dbclient: Exited: No valid ciphers specified"
    assert failure(lines) is None and failure([f"{FAILED} dbclient: no", *lines], "dbclient") == "dbclient: no"


@pytest.fixture
def no_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sshbench.cli, "SWEEPING", ())


@pytest.mark.usefixtures("no_sweep")
def test_against_a_server_that_logs_nothing_it_is_refused_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/usr/bin/{name}")
    assert main(["run", "--client", "openssh,dbclient", "--server", "openssh,dropbear"]) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert captured.err == ("sshbench: error: --client dbclient: Dropbear's dbclient says nothing of what it "
                            "negotiated, and --server dropbear logs none of it, so nothing would prove a sample's "
                            "cipher: leave dropbear out of --server (e.g. --server openssh), or drop dbclient from "
                            "--client\n") and not captured.out


@pytest.mark.usefixtures("no_sweep")
def test_not_installed_it_is_named_with_the_package_exit_3(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "dbclient" else real(name, *a, **k))
    assert main(["run", "--client", "openssh,dbclient"]) == ExitCode.MISSING_TOOL
    err = capsys.readouterr().err
    assert err == ("sshbench: error: --client dbclient: Dropbear's dbclient is not installed here (no dbclient on "
                   "PATH); install it: apt-get install dropbear-bin\n")
