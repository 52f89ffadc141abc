"""What a hostile probe planted, or a crash and a full disk left: none of it may stop a run or hang a command.

Real files in a real state dir (a normal user's, in the test's own TMPDIR), a
real background child handed over by `exec`, stdout on /dev/full, a FIFO where a
host key's .pub should be, and a real daemon-mode sshd whose MaxStartups turns
streams away.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sshbench.targets.servers.privsep import PrivsepDir
from sshbench.vocabulary.errors import ExitCode
from tests.conftest import leftovers
from tests.integration.cli_helpers import sshbench, wait_listening
from tests.integration.processes import ALGOS, NOBODY, ROOT, as_nobody, nobody_env

pytestmark = pytest.mark.integration
QUICK = ["--ciphers", "aes128-ctr", *ALGOS, "--no-controls", "--directions", "upload", "--runs", "1",
         "--size", "16MiB"]


@pytest.mark.skipif(not ROOT or not shutil.which("setpriv"), reason="runs sshbench as nobody, with its own state dir")
def test_a_corrupt_record_is_set_aside_with_one_warning_and_the_command_goes_on(nobody_tmp: Path) -> None:
    work = nobody_tmp
    state = work / f"sshbench-runs-{NOBODY}"
    record = state / "run-0123456789abcdef"
    record.mkdir(parents=True, mode=0o700)
    (record / "lock").write_bytes(b"")
    (record / "info").write_bytes(b"[" * 100_000)
    for path in (state, record, record / "lock", record / "info"):
        os.chown(path, NOBODY, NOBODY)
    state.chmod(0o700)
    done = subprocess.run(as_nobody(["/usr/bin/python3", "-m", "sshbench", "algos", "--server", "dropbear", "--json"]),
                          capture_output=True, text=True, timeout=120, env=nobody_env(work), cwd=work, check=False)
    assert done.returncode == ExitCode.OK, done.stderr
    warning = [line for line in done.stderr.splitlines() if "could not be read and was set aside" in line]
    assert len(warning) == 1 and "RecursionError" in warning[0], done.stderr
    assert (state / "unreadable-run-0123456789abcdef").is_dir() and not record.exists()
    assert json.loads(done.stdout)["schema"] == "sshbench/algos"


@pytest.mark.skipif(not ROOT or not shutil.which("setpriv"), reason="needs a child this user may not signal")
def test_a_child_handed_over_by_exec_is_left_alone_and_no_traceback(nobody_tmp: Path, tmp_path: Path) -> None:
    """`sh -c 'sleep 60 & exec setpriv ... sshbench'`: root's sleep becomes nobody's sshbench's child (its output
    elsewhere, or the captured pipes stay open, and the test waits, for the sleep's 60 s)."""
    work = nobody_tmp
    argv = " ".join(as_nobody(["/usr/bin/python3", "-m", "sshbench", "--server", "dropbear", *QUICK, "--output",
                               str(work / "r.json")]))
    pid_file = tmp_path / "sleeper"
    script = f"sleep 60 </dev/null >/dev/null 2>&1 & echo $! > {pid_file}; exec {argv}"
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=nobody_env(work), cwd=work,
                          timeout=300, check=False)
    sleeper = int(pid_file.read_text())
    try:
        assert done.returncode == ExitCode.OK, done.stderr
        assert "Traceback" not in done.stderr and "PermissionError" not in done.stderr, done.stderr
        assert Path(f"/proc/{sleeper}").exists(), "a process sshbench did not start was never signalled"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(sleeper, signal.SIGKILL)


def test_jsonl_into_a_full_disk_is_the_output_exit_code_with_the_results_complete(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    with open("/dev/full", "w", encoding="ascii") as full:
        done = subprocess.run([sys.executable, "-m", "sshbench", *QUICK, "--jsonl", "--output", str(out)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=300, cwd=tmp_path, check=False,
                              env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == ExitCode.OUTPUT, done.stderr
    assert "--jsonl: stdout could not be written (No space left on device)" in done.stderr
    data = json.loads(out.read_text())
    # the first line ("started") failed; the warm-up and the one measured sample came after it
    assert data["status"] == "complete" and sum(s["ok"] and not s["warmup"] for s in data["samples"]) == 1
    assert any(s["warmup"] for s in data["samples"])
    assert not leftovers(str(tmp_path))


@pytest.mark.skipif(not ROOT or not shutil.which("setpriv"), reason="runs sshbench as nobody")
def test_a_user_whose_shell_runs_no_command_is_told_so_by_the_embedded_openssh(nobody_tmp: Path) -> None:
    """Debian's nobody has /usr/sbin/nologin: the embedded OpenSSH cannot run a command for it, and says so at
    once (before, every sample failed and the run said only that)."""
    work = nobody_tmp
    done = subprocess.run(as_nobody(["/usr/bin/python3", "-m", "sshbench", *QUICK]), capture_output=True,
                          text=True, timeout=120, env=nobody_env(work), cwd=work, check=False)
    assert done.returncode == ExitCode.SERVER, done.stderr
    assert "login shell of nobody, /usr/sbin/nologin, which runs none" in done.stderr and "--server dropbear" in \
        done.stderr


def test_clients_check_reads_no_fifo_and_calls_empty_lists_what_they_are(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    os.mkfifo(keys / "key.pub")
    base = ("kexalgorithms curve25519-sha256\nciphers aes128-gcm@openssh.com\nmacs hmac-sha2-256-etm@openssh.com\n"
            f"hostkeyalgorithms ssh-ed25519\nhostkey {keys}/key\n")
    dump = tmp_path / "dump.txt"
    dump.write_text(base)
    start = time.monotonic()
    done = sshbench("clients", "check", str(dump), cwd=tmp_path, timeout=120)
    assert time.monotonic() - start < 100 and done.returncode in (ExitCode.OK, ExitCode.LOCKOUT), done.stderr
    assert "host keys: not readable here" in done.stdout
    empty = tmp_path / "empty.txt"
    empty.write_text("kexalgorithms \nciphers \nmacs \nhostkeyalgorithms ssh-ed25519\n")
    done = sshbench("clients", "check", str(empty), cwd=tmp_path, timeout=120)
    assert done.returncode == ExitCode.LOCKOUT, done.stdout + done.stderr
    assert "kexalgorithms, ciphers, macs lists are empty: sshd refuses to start" in done.stdout


@pytest.fixture
def throttled(tmp_path: Path) -> Iterator[Path]:
    """A daemon-mode sshd on loopback admitting 2 unauthenticated connections at once (MaxStartups 2:100:2), with
    its own host key and the test's key; returns an ssh config naming it `throttled`."""
    if not ROOT or not os.path.exists("/usr/sbin/sshd"):
        pytest.skip("a daemon-mode sshd on loopback needs root here (privilege separation)")
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / name)], check=True)
    (tmp_path / "authorized_keys").write_text((tmp_path / "client.pub").read_text())
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (tmp_path / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {tmp_path}/host\nPidFile {tmp_path}/pid\n"
        f"AuthorizedKeysFile {tmp_path}/authorized_keys\nMaxStartups 2:100:2\nUsePAM no\nStrictModes no\n")
    with PrivsepDir() as privsep:  # sshbench's way to /run/sshd (servers/privsep.py), the system's never touched
        daemon = subprocess.Popen(privsep.wrap(["/usr/sbin/sshd", "-D", "-f", str(tmp_path / "sshd_config"), "-E",
                                                str(tmp_path / "sshd.log")]), stdin=subprocess.DEVNULL)
        try:
            host = (tmp_path / "host.pub").read_text().split()
            (tmp_path / "known_hosts").write_text(f"[127.0.0.1]:{port} {host[0]} {host[1]}\n")
            config = tmp_path / "ssh_config"
            config.write_text(f"Host throttled\n  HostName 127.0.0.1\n  Port {port}\n  User root\n  IdentityFile "
                              f"{tmp_path}/client\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile "
                              f"{tmp_path}/known_hosts\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking "
                              "yes\n")
            with contextlib.suppress(RuntimeError):  # the test says what the server did
                wait_listening(port)
            yield config
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)


def test_streams_turned_away_by_max_startups_are_named_with_the_setting(throttled: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("throttled", "--ssh-config", str(throttled), "--streams", "8", "--ciphers", "aes128-ctr", *ALGOS,
                    "--directions", "upload", "--runs", "1", "--size", "128MiB", "--output", str(out), cwd=tmp_path,
                    timeout=300)
    assert done.returncode == ExitCode.SAMPLES_FAILED, done.stderr[-2000:]
    data = json.loads(out.read_text())
    failed = [s for s in data["samples"] if not s["ok"]]
    assert failed, "eight streams at once past MaxStartups 2"
    for sample in failed:
        # sshd 9.2 writes "Exceeded MaxStartups" and closes; where the close resets the connection first, the
        # client sees only the reset: either way the setting is named
        assert "turned this connection away before its banner" in sample["error"], sample["error"]
        assert "MaxStartups" in sample["error"], sample["error"]
        if any("Exceeded MaxStartups" in line for line in sample["stderr_tail"]):
            assert "banner: Exceeded MaxStartups" in sample["error"], sample["error"]
        assert len(sample["stream_status"]) == 8 and sample["stream_status"].count("ok") < 8
        assert any("MaxStartups" in status for status in sample["stream_status"])
    assert "MaxStartups" in done.stdout + done.stderr, "the report names it"


@pytest.mark.skipif(not ROOT, reason="--link needs root")
def test_a_budget_the_links_round_trips_cannot_hold_is_refused_before_they_are_built(tmp_path: Path) -> None:
    start = time.monotonic()
    done = sshbench("--link", "rtt=10s", "--time-budget", "60s", "--ciphers", "aes128-ctr", cwd=tmp_path,
                    tmpdir=tmp_path, timeout=120)
    assert time.monotonic() - start < 30, "refused from the RTT alone (it took 4 minutes, after the links)"
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert "--link rtt=10s: at its round trips" in done.stderr and "raise --time-budget to" in done.stderr
    assert not leftovers(str(tmp_path))
