"""Options that need another, and combinations that cannot work, are refused before anything runs (issue 62):
exit 2 and one line naming both options and the fix, never the option silently dropped or the cases failed after
measuring; and an error line never repeats a huge value whole."""

from __future__ import annotations

import pytest

import sshbench.cli
from sshbench.cli import main
from sshbench.cli.context import LONG_VALUE, SHOWN_OF_LONG, bounded
from sshbench.cli.parser import parse
from sshbench.cli.run import request_from_args
from sshbench.vocabulary.errors import ExitCode

# (id, arguments of `run`, the one line after "sshbench: error: ")
REFUSED: list[tuple[str, list[str], str]] = [
    ("reuse-without-commands", ["--reuse", "reused"],
     "--reuse applies to short commands: add --commands (e.g. --commands true), or drop --reuse"),
    ("user-keys-without-commands", ["--user-keys", "ecdsa"],
     "--user-keys applies to short commands: add --commands (e.g. --commands true), or drop --user-keys"),
    ("logins-seconds-without-logins", ["--logins-seconds", "3"],
     "--logins-seconds applies to --logins: add --logins (e.g. --logins 1,4,16,64), or drop it"),
    ("sshd-without-openssh", ["--server", "dropbear", "--sshd", "/usr/sbin/sshd"],
     "--sshd names the OpenSSH sshd of the embedded server, and --server dropbear runs none: add openssh to "
     "--server (e.g. --server openssh,dropbear), or drop --sshd"),
    ("slow-login-real-host", ["web1", "--commands", "true", "--slow-login", "dns"],
     "--slow-login dns is reproduced in sshbench's own embedded OpenSSH server, and sshbench never changes a real "
     "server: drop --slow-login, or the destination"),
    ("slow-login-dropbear", ["--server", "dropbear", "--commands", "true", "--slow-login", "dns"],
     "--slow-login dns: reproduced in the embedded OpenSSH server only, not in dropbear: leave dropbear out of "
     "--server (e.g. --server openssh), or drop --slow-login"),
    ("slow-login-builds", ["--build", "stock", "--commands", "true", "--slow-login", "gssapi"],
     "--slow-login gssapi is reproduced in the embedded OpenSSH server alone, not in the servers of --build: drop "
     "one of them"),
    ("user-keys-reused", ["--commands", "true", "--reuse", "fresh,reused", "--user-keys", "ed25519,ecdsa"],
     "--user-keys ecdsa with --reuse reused: a reused connection keeps the key of the login that opened it, so "
     "comparing keys means fresh logins: drop reused from --reuse, or measure --reuse in a run of its own"),
    ("user-keys-tinysshd", ["--server", "tinysshd", "--commands", "true", "--user-keys", "ed25519,rsa3072"],
     "--user-keys rsa3072: --server tinysshd accepts ed25519 client keys only: drop rsa3072, or leave tinysshd out "
     "of --server"),
    ("user-keys-all-servers", ["--server", "all", "--commands", "true", "--user-keys", "ecdsa"],
     "--user-keys ecdsa: --server tinysshd accepts ed25519 client keys only: drop ecdsa, or leave tinysshd out of "
     "--server (e.g. --server openssh,dropbear)"),
    ("user-keys-real-host", ["web1", "--commands", "true", "--user-keys", "ed25519,ecdsa"],
     "--user-keys chooses among the client keys sshbench's embedded server makes and authorizes; a real host is "
     "logged in with your own keys, which sshbench never chooses among: drop --user-keys, or the destination"),
]


@pytest.fixture
def no_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    """`run` sweeps what dead runs left before it starts: not a unit test's to do (the refusals come first)."""
    monkeypatch.setattr(sshbench.cli, "SWEEPING", ())


@pytest.mark.usefixtures("no_sweep")
@pytest.mark.parametrize(("args", "line"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_combination_that_cannot_work_is_one_line_and_exit_2(args: list[str], line: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", *args]) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert captured.err == f"sshbench: error: {line}\n" and not captured.out


@pytest.mark.parametrize("args", [
    ["--logins", "4", "--reuse", "fresh,reused"],  # --logins alone measures `true`: each axis crosses it
    ["--logins", "4", "--user-keys", "ed25519,ecdsa"],
    ["--logins", "4", "--logins-seconds", "3"],
    ["--server", "openssh,dropbear", "--sshd", "/usr/sbin/sshd"],  # --sshd is the openssh one's
    ["web1", "--sshd", "/usr/sbin/sshd"],  # the embedded OpenSSH server beside a real host checks the drop-in
    ["--commands", "true", "--reuse", "fresh,reused", "--user-keys", "ed25519"],  # one key: the master's own
    ["--commands", "true", "--user-keys", "ed25519,ecdsa,rsa3072,rsa4096", "--server", "dropbear"],
    ["--commands", "true", "--user-keys", "ed25519", "--server", "tinysshd"],
    ["--commands", "true", "--slow-login", "dns"],
], ids=lambda args: " ".join(args))
def test_the_combinations_that_work_are_accepted(args: list[str]) -> None:
    request_from_args(parse(["run", *args]))


@pytest.mark.usefixtures("no_sweep")
@pytest.mark.parametrize("args", [["--placement", "x" * 100_000], ["--reuse", "y" * 100_000],
                                  ["--commands", "true,z" + "z" * 99_999], ["--reuse=" + "w" * 100_000]])
def test_an_error_line_quotes_a_huge_value_shortened(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", *args]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and len(err) < 500, err[:600]
    assert "(100,000 characters)" in err and "…" in err


def test_bounded_shortens_only_long_given_values_however_quoted() -> None:
    huge = "v" * (LONG_VALUE + 1)
    said = bounded(f'bad --x {huge!r}: use e.g. 1; also --y {huge}, and "{huge}".', ["--x", huge])
    short = "v" * SHOWN_OF_LONG
    assert said == (f"bad --x '{short}…' ({LONG_VALUE + 1:,} characters): use e.g. 1; also --y {short}… "
                    f'({LONG_VALUE + 1:,} characters), and "{short}… ({LONG_VALUE + 1:,} characters)".')
    piece = "p" * (LONG_VALUE + 5)
    assert bounded(f"--commands {piece}: not a short command", [f"true,{piece}"]) == \
        f"--commands {'p' * SHOWN_OF_LONG}… ({LONG_VALUE + 5:,} characters): not a short command"
    path = "/tmp/" + "d" * 300 + "/r.json"  # what sshbench says of its own (a path it made) stays whole
    assert bounded(f"cannot write {path}: read-only", ["--output", "/tmp/x.json"]) == f"cannot write {path}: read-only"
    assert bounded("bad --x 'short'", ["--x", "short"]) == "bad --x 'short'"
