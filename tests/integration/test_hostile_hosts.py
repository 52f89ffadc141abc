"""Hostile input at the newest surfaces (issue 62, item 5), against real servers: what is planted where a
ControlMaster's socket goes never makes a login of its own count as reused, and a host whose shell prints (a
ForceCommand's colours and a title escape with no newline) is measured, its words stripped of their escapes."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sshbench.measure.command import run_command_sample
from sshbench.measure.masters import Masters
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.results.store import read_results
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.integration.cli_helpers import sshbench, standin_block

pytestmark = pytest.mark.integration

REUSED = Case(CaseKind.COMMAND, Direction.SETUP, command="true").at("reuse", "reused")


class _Planting(EmbeddedTarget):
    """The master's ssh (-M) started after `plant` (a shell command, the socket's path as $0) put something at
    its ControlPath: what another process could do between sshbench making the directory and the master binding."""

    def __init__(self, server: EmbeddedOpenSSH, plant: str) -> None:
        super().__init__(server)
        self.plant = plant

    def client_argv(self, argv: list[str]) -> list[str]:
        argv = super().client_argv(argv)
        if "-M" not in argv:
            return argv
        path = next(a.removeprefix("ControlPath=") for a in argv if a.startswith("ControlPath="))
        return ["sh", "-c", f'{self.plant} && exec "$@"', path, *argv]


class _Trusting(Masters):
    """The masters as they were: a path that exists is taken for the master's socket, and nothing else is checked;
    so only each sample's own ssh -v stands between a fallback login and a reused figure."""

    def _bound(self, case: Case, proc: subprocess.Popen[bytes], socket_path: str, log_path: str) -> tuple[int, int]:
        while not os.path.lexists(socket_path):
            time.sleep(0.01)
        found = os.lstat(socket_path)
        return found.st_dev, found.st_ino

    def _served(self, case: Case, proc: subprocess.Popen[bytes], socket_path: str) -> None:
        return None

    def _still_ours(self, key: tuple[str, str, str]) -> None:
        return None


def _reused_samples(target: EmbeddedTarget, trusting: bool = False,
                    count: int = 2) -> list[tuple[bool, str, int | None]]:
    """`count` reused samples of `true`, through the target's masters (as they are, or trusting)."""
    with (_Trusting if trusting else Masters)(target, 30.0) as masters:
        samples = [run_command_sample(target, REUSED, n, 30.0, masters=masters) for n in range(1, count + 1)]
    return [(s.ok, s.error or "", s.exit_status) for s in samples]


@pytest.fixture
def foreign(server: EmbeddedOpenSSH, tmp_path: Path) -> Iterator[tuple[str, int]]:
    """A live ControlMaster of the test's own to the same server (its socket, its pid): not sshbench's."""
    path = str(tmp_path / "foreign.sock")
    argv = EmbeddedTarget(server).ssh_argv(REUSED, "")[:-1]
    argv[1:1] = ["-M", "-N", "-o", f"ControlPath={path}", "-o", "ControlPersist=no"]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            process_group=0)
    deadline = time.monotonic() + 30
    while not os.path.exists(path):
        assert proc.poll() is None and time.monotonic() < deadline, "the test's own master did not start"
        time.sleep(0.02)
    yield path, proc.pid
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait()


def test_a_fifo_planted_at_the_master_s_socket_refuses_every_reused_sample(server: EmbeddedOpenSSH) -> None:
    """The master cannot bind a path already taken (ssh says 'disabling multiplexing' and logs in anyway), and a
    FIFO there exists: the run took it for the socket, and every sample was a fresh login counted as reused."""
    found = _reused_samples(_Planting(server, 'mkfifo "$0"'))
    for ok, error, _ in found:
        assert not ok and "is a FIFO, not the socket its master binds: refused" in error, error


def test_a_sample_that_logged_in_itself_fails_even_where_its_socket_was_trusted(server: EmbeddedOpenSSH) -> None:
    """With every check of the socket gone, each sample's own ssh -v still shows its login: it fails, named, though
    ssh itself ran the command and exited 0."""
    for ok, error, status in _reused_samples(_Planting(server, 'mkfifo "$0"'), trusting=True):
        assert not ok and status == 0
        assert error.startswith("not reused: it logged in itself (the ControlMaster's socket "), error
        assert "did not serve it: Control socket connect(" in error and "Authenticat" in error, error


def test_a_symlink_to_another_master_s_socket_is_refused(server: EmbeddedOpenSSH, foreign: tuple[str, int]) -> None:
    path, _ = foreign
    for ok, error, _ in _reused_samples(_Planting(server, f'ln -s {path} "$0"')):
        assert not ok and "is a symbolic link, not the socket its master binds: refused" in error, error


def test_a_hard_link_to_another_master_s_socket_is_refused_by_who_serves_it(server: EmbeddedOpenSSH,
                                                                             foreign: tuple[str, int]) -> None:
    """A hard link is a socket of this user's at the very path: only `ssh -O check` tells whose master it is."""
    path, pid = foreign
    for ok, error, _ in _reused_samples(_Planting(server, f'ln {path} "$0"')):
        assert not ok and f"is served by process {pid}, not the master sshbench started" in error, error


def test_an_untouched_master_s_samples_ride_it(server: EmbeddedOpenSSH) -> None:
    for ok, error, status in _reused_samples(EmbeddedTarget(server)):
        assert ok and status == 0, error


def test_the_run_through_a_planting_ssh_never_counts_a_reused_sample(tmp_path: Path) -> None:
    """End to end: an `--ssh` that plants a FIFO where each master's socket goes before it starts the master."""
    wrapper = tmp_path / "ssh"
    wrapper.write_text('#!/bin/sh\nfor a; do case $a in ControlPath=*) p=${a#ControlPath=};; esac; done\n'
                       'case " $* " in *" -M "*) mkfifo "$p";; esac\nexec /usr/bin/ssh "$@"\n')
    wrapper.chmod(0o755)
    out = tmp_path / "r.json"
    done = sshbench("--ssh", str(wrapper), "--commands", "true", "--reuse", "fresh,reused", "--setup-runs", "2",
                    "--runs", "1", "--output", str(out), cwd=tmp_path, tmpdir=tmp_path)
    assert out.exists(), done.stderr[-2000:]
    (report,) = read_results(str(out))
    reused = [s for s in report.samples if s.case_id.endswith("+reused")]
    fresh = [s for s in report.samples if not s.case_id.endswith("+reused")]
    assert reused and not any(s.ok for s in reused)
    assert all("is a FIFO, not the socket its master binds" in (s.error or "") for s in reused)
    assert fresh and all(s.ok for s in fresh), [s.error for s in fresh]
    assert done.returncode != 0 or "through a ControlMaster" not in done.stdout.split("What a short command")[-1]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sshbench-mux-")]


# ---------------------------------------------------------------- a host whose shell prints

PRINTS = r"printf '\033[1;31mWelcome to prod\033[0m\n\033]0;title\007'"


@pytest.fixture(scope="module")
def printer(client: ClientInfo, tmp_path_factory: pytest.TempPathFactory,
            module_tmpdir: Path) -> Iterator[Path]:
    """A stand-in real host whose every session prints colours and a title with no newline, then runs the command
    (a ForceCommand in the drop-in the embedded server Includes first), and an ssh config that names it."""
    base = tmp_path_factory.mktemp("printer")
    dropin = f'ForceCommand {PRINTS}; eval "$SSH_ORIGINAL_COMMAND"\n'
    with EmbeddedOpenSSH(client, admit_all=True, dropin=dropin) as srv:
        config = base / "config"
        config.write_text(standin_block("printer", srv))
        yield config


@pytest.mark.parametrize("mode", [["--commands", "true", "--reuse", "fresh,reused", "--setup-runs", "2"],
                                  ["--ciphers", "aes128-ctr", "--macs", "none", "--kex", "none", "--hostkeys",
                                   "none", "--size", "4MiB"]], ids=["commands", "transfers"])
def test_a_host_whose_shell_prints_is_measured_and_its_escapes_never_shown(printer: Path, mode: list[str],
                                                                          tmp_path: Path) -> None:
    """Every sample failed "ssh ended before the remote command started" (the ready marker behind the title's
    bytes), though ssh ran the command and exited 0; and the colours reached the `remote:` line as the host's
    system."""
    out = tmp_path / "r.json"
    done = sshbench("run", "printer", "--ssh-config", str(printer), *mode, "--runs", "1", "--echo", "0",
                    "--output", str(out), cwd=tmp_path, tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(out.read_text())
    assert data["environment"]["server"]["remote"]["system"] == "Linux"
    (report,) = read_results(str(out))
    assert report.samples and all(s.ok for s in report.samples), [s.error for s in report.samples]
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
    remote = next(line for line in done.stdout.splitlines() if "remote" in line and "printer =" in line)
    assert "Linux; round trip" in remote and "Welcome" not in remote
    assert stat.S_ISREG(os.stat(out).st_mode)
