"""What a host (or the path to it) says that sshbench must not take at its word (issue 62, item 5): a server that
resets or closes the connection under ssh, named from ssh's own recorded words; a printing shell's escapes and its
bytes before the ready marker; a reused sample whose ssh -v shows it logged in itself."""

from __future__ import annotations

import os
import sys
from typing import cast

import pytest

from sshbench.measure.connection import NOT_STARTED, Lines
from sshbench.measure.leanrun import run_lean
from sshbench.measure.masters import Masters
from sshbench.measure.proof import Failed, concluded, ended_by
from sshbench.plumbing.negotiation import parse_text
from sshbench.results.model import Case, CaseKind, Direction, Sample
from sshbench.targets.base import Target
from sshbench.targets.remote import system_of
from sshbench.vocabulary import untrusted
from tests.conftest import recorded


def _lines(name: str) -> list[tuple[float, str]]:
    return [(0.0, line) for line in recorded(name).splitlines()]


# ---------------------------------------------------------------- B: what ended the connection, named

@pytest.mark.parametrize(("name", "said"), [
    ("ssh-v-9.2-reset-after-banner.txt", "the server reset the connection after its banner, during the key exchange "
                                         "(ssh: Connection reset by 127.0.0.1 port 34527)"),
    ("ssh-v-9.2-closed-after-banner.txt", "the server closed the connection after its banner, during the key "
                                          "exchange (ssh: Connection closed by 127.0.0.1 port 54127)"),
    ("ssh-v-9.2-reset-before-banner.txt", "the server reset the connection before its banner (ssh: Connection "
                                          "reset by 127.0.0.1 port 51733)"),
])
def test_what_ended_a_connection_is_named_from_ssh_s_recorded_words(name: str, said: str) -> None:
    lines = _lines(name)
    assert ended_by(lines, parse_text(recorded(name)).phases) == said


def test_a_refused_connect_or_a_clean_exit_names_nothing() -> None:
    assert ended_by([(0.0, "ssh: connect to host 127.0.0.1 port 1: Connection refused")], {}) is None
    assert ended_by([(0.0, "debug1: Connection reset by nothing we said")], {}) is None


class _Flag:
    def __init__(self) -> None:
        self.value = False

    def is_set(self) -> bool:
        return self.value


class _Exit:
    returncode: int | None = 255


class _Ran:
    """An ended connection as proof.Ran reads it: ssh's recorded stderr, exit 255."""

    def __init__(self, lines: list[tuple[float, str]]) -> None:
        self.stderr_lines = lines
        self.peer_port: int | None = None
        self.timed_out = _Flag()
        self.server_gone = _Flag()
        self.proc = _Exit()


class _Target:
    server_cpu_exact = False

    def server_log_tail(self) -> list[str]:
        return []


@pytest.mark.parametrize("streams", [1, 3])
def test_a_sample_whose_server_reset_after_its_banner_says_so_in_its_error(streams: int) -> None:
    """The error was only "ssh ended before the remote command started", with the reset in stderr_tail alone."""
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr")
    sample = Sample(case_id=case.id, round=1, warmup=False, ok=False, started_at="", size_bytes=1)
    lines = _lines("ssh-v-9.2-reset-after-banner.txt")
    error = NOT_STARTED if streams == 1 else f"stream 2 of {streams}: {NOT_STARTED}"
    connections = [_Ran(lines if index == 1 or streams == 1 else []) for index in range(streams)]
    failed = Failed(NOT_STARTED, 1 if streams > 1 else 0, not_started=True)
    done = concluded(cast(Target, _Target()), case, sample, connections, [], failed, False, 30.0)
    assert not done.ok and done.error == (f"{error}: the server reset the connection after its banner, during the "
                                          "key exchange (ssh: Connection reset by 127.0.0.1 port 34527)")
    assert done.stderr_tail[-1] == "Connection reset by 127.0.0.1 port 34527"


# ---------------------------------------------------------------- C: a printing shell's bytes

@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b]0;title\x07SSHBENCH-READY 127.0.0.1 5 22", "SSHBENCH-READY 127.0.0.1 5 22"),
    ("\x1b[1;31mWelcome to prod\x1b[0m", "Welcome to prod"),
    ("\x1b]2;t\x1b\\after", "after"),
    ("a\tb\rc\x07", "a bc"),
    ("\x9b2J\x9d0;c1 title\x9cleft", "left"),
    ("bidi \u202eX", "bidi \ufffdX"),
    ("plain", "plain"),
])
def test_a_host_s_escapes_are_stripped_whole(raw: str, shown: str) -> None:
    assert untrusted.stripped(raw) == shown
    assert untrusted.text(untrusted.stripped(raw), "field") == shown


def test_the_host_s_system_is_what_follows_the_marker_not_its_shell_s_junk() -> None:
    junk = "\x1b[1;31mWelcome to prod\x1b[0m\nLast login: never\n\x1b]0;title\x07"
    assert system_of(f"{junk}SSHBENCH-SYSTEM Linux\n") == "Linux"
    assert system_of("SSHBENCH-SYSTEM \x1b[1mFreeBSD\x1b[0m\n") == "FreeBSD"
    assert system_of('SSHBENCH-SYSTEM "$(uname -s)"\n') == "unknown"  # a shell that is not sh
    assert system_of("SSHBENCH-SYSTEM \n") == "unknown"


def test_the_ready_marker_is_found_behind_bytes_with_no_newline() -> None:
    read, write = os.pipe()
    os.write(write, b"motd\n\x1b]0;title\x07SSHBENCH-READY 127.0.0.1 4242 22\npayload")
    os.close(write)
    lines = Lines(read)
    assert lines.until(b"SSHBENCH-READY") == b"SSHBENCH-READY 127.0.0.1 4242 22"
    assert lines.buffer == b"payload"
    os.close(read)


def test_a_short_command_s_ready_marker_is_found_behind_a_title_escape() -> None:
    script = ("import sys; w = sys.stdout.buffer.write; w(b'\\x1b]0;title\\x07SSHBENCH-READY 127.0.0.1 4242 22\\n');"
              "w(b'out'); sys.stderr.write('\\x1b[31mred\\x1b[0m\\n')")
    run = run_lean([sys.executable, "-c", script], dict(os.environ), b"", 30.0)
    assert run.setup_seconds is not None and run.peer_port == 4242 and run.output_bytes == 3
    assert [text for _, text in run.stderr_lines] == ["red"]


# ---------------------------------------------------------------- A: a reused sample that was not reused

def test_a_reused_sample_that_logged_in_itself_fails_naming_it() -> None:
    masters = Masters(cast(Target, _Target()), 30.0)
    case = Case(CaseKind.COMMAND, Direction.SETUP, command="true").at("reuse", "reused")
    assert masters.not_reused(case, _lines("ssh-v-9.2-mux-session.txt"), False) is None
    why = masters.not_reused(case, _lines("ssh-v-9.2-mux-fifo-fallback.txt"), False)
    assert why is not None and why.startswith("not reused: it logged in itself (the ControlMaster's socket")
    assert "Control socket connect(/tmp/exp62/fifo): Connection refused" in why
    assert "Authenticated to 127.0.0.1" in why or "Authentications that can continue" in why
    assert masters.not_reused(case, [(0.0, "debug1: Reading configuration data x")], False) == (
        "not reused: its ssh -v shows no session over the ControlMaster's socket (none) (no "
        "mux_client_request_session line)")
    assert masters.not_reused(case, [], True) is None  # failed already: its own error stands
