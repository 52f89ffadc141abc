"""The command line's words: a misspelt subcommand is not a host, unknown options point to the right help,
and the man page and completions are the parser's own (regenerated and compared)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sshbench.cli import main
from sshbench.cli.parser import mistyped_command
from sshbench.vocabulary.errors import ExitCode
from tests.conftest import DATA

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("word", "meant"), [("reprot", "report"), ("recomend", "recommend"), ("algo", "algos"),
                                             ("comapre", "compare"), ("rn", "run")])
def test_a_misspelt_subcommand_is_a_usage_error_with_did_you_mean(word: str, meant: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main([word, str(DATA / "results-small.json")]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f"did you mean 'sshbench {meant}'" in err and f"'sshbench run {word}'" in err
    assert len(err.strip().splitlines()) == 1


def test_a_results_file_after_an_unknown_word_is_a_usage_error() -> None:
    message = mistyped_command(["myhost", str(DATA / "results-small.json")])
    assert message is not None and "did you mean 'sshbench report'" in message


@pytest.mark.parametrize("args", [["web1"], ["web1.example.org", "--ciphers", "default"], ["user@backup:2222"],
                                  ["--ciphers", "all"], ["run", "reprot"], []])
def test_destinations_and_options_still_go_to_run(args: list[str]) -> None:
    assert mistyped_command(args) is None


@pytest.mark.parametrize(("args", "where"), [(["run", "--nope"], "sshbench run --help"),
                                             (["--nope"], "sshbench run --help"),
                                             (["report", "x.json", "--nope"], "sshbench report --help")])
def test_an_unknown_option_points_to_its_commands_help(args: list[str], where: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == ExitCode.USAGE
    assert f"(see {where})" in capsys.readouterr().err


def test_help_says_how_the_default_command_takes_a_destination(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "'sshbench HOST' measures HOST" in out and "Linux only; Python 3.11+" in out


def test_man_page_and_completions_match_the_parser() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_shell_files.py"), "--check"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    man = (ROOT / "share/man/man1/sshbench.1").read_text()
    assert ".TH SSHBENCH" in man and "\\-\\-policy" in man and "\\-\\-wide" in man
    assert "--host-key-algorithms" in (ROOT / "share/bash-completion/completions/sshbench").read_text()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert all(f'"{path}"' in pyproject for path in ("share/man/man1/sshbench.1",
                                                     "share/bash-completion/completions/sshbench",
                                                     "share/zsh/site-functions/_sshbench"))


def test_every_subcommand_has_its_function_and_nothing_else_does() -> None:
    from sshbench.cli.dispatch import COMMANDS
    from sshbench.cli.parser import SUBCOMMANDS

    assert set(COMMANDS) == set(SUBCOMMANDS)
