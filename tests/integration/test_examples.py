"""Every measuring example in README.md and docs/ runs as printed, and fits its time budget on a busy machine.

Each `sshbench ...` (or `sudo sshbench ...`, or `make run ARGS="..."`) line
of a shell block that runs a benchmark is run for real with `--plan`: the
real parser, the real servers, links and logins are started, the cases are
planned and the budget is checked exactly as the run would, and then it
stops before measuring. Its minimum (an interval for every case), guessed
for a busy 2-vCPU machine (plan/budget.BUSY: 0.5 s per login, as an EPYC VM
at load 4-6 showed), must fit the example's own budget. Real host names
(`myserver`, `web1`, `alice@10.0.0.5:2222`) are replaced by aliases of a
stand-in sshd on loopback, through `--ssh-config`; nothing else is changed.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from sshbench.cli.parser import build_parser
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.integration.cli_helpers import sshbench, standin_block

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUNS = {"report", "compare", "recommend", "algos", "clients", "--help", "-h"}
_DURATION = re.compile(r"(?:(\d+) min )?(\d+) s")


def _shell_lines(text: str) -> Iterator[str]:
    """The commands of ```sh blocks, continuation lines joined, comments dropped."""
    block, pending = False, ""
    for line in text.splitlines():
        if line.startswith("```"):
            block, pending = line.strip() in ("```sh", "```shell", "```console"), ""
            continue
        if not block:
            continue
        line = pending + line.split(" #")[0].rstrip() if not line.lstrip().startswith("#") else pending
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if line.strip():
            yield line.strip()


def examples() -> list[tuple[str, list[str]]]:
    """(where, argv after `sshbench`) for every documented command that runs a benchmark."""
    found = []
    for path in DOCS:
        for line in _shell_lines(path.read_text(encoding="utf-8")):
            words = shlex.split(line)
            if words[:2] == ["make", "run"]:
                args = next((w.split("=", 1)[1] for w in words if w.startswith("ARGS=")), "")
                argv = shlex.split(args)
            elif words and words[0] == "sudo":
                words = words[1:]
                argv = words[1:] if words and words[0] == "sshbench" else []
                if not argv and words[:1] != ["sshbench"]:
                    continue
            elif words and words[0] == "sshbench":
                argv = words[1:]
            else:
                continue
            if argv[:1] == ["run"]:
                argv = argv[1:]
            if argv and argv[0] in NOT_RUNS:
                continue
            found.append((f"{path.name}: {line}", argv))
    return found


EXAMPLES = examples()


def test_the_docs_have_the_examples_this_test_checks() -> None:
    assert len(EXAMPLES) >= 15, [where for where, _ in EXAMPLES]
    assert any(argv == [] for _, argv in EXAMPLES), "the default run is among them"


@pytest.fixture(scope="module")
def standin(client: ClientInfo, tmp_path_factory: pytest.TempPathFactory,
            module_tmpdir: Path) -> Iterator[tuple[EmbeddedOpenSSH, Path]]:
    """A stand-in for the real hosts the examples name: an sshd on loopback offering what a stock OpenSSH
    server offers (its defaults, which match this client's), and a directory for its config."""
    with EmbeddedOpenSSH(client, admit_all=True, enable=client.defaults) as srv:
        yield srv, tmp_path_factory.mktemp("examples")


def _seconds(text: str) -> float:
    match = _DURATION.fullmatch(text)
    assert match, text
    return int(match.group(1) or 0) * 60 + int(match.group(2))


@pytest.mark.parametrize("where, argv", EXAMPLES, ids=[where[:90] for where, _ in EXAMPLES])
def test_each_example_runs_as_printed_and_fits_its_budget_on_a_busy_machine(
        where: str, argv: list[str], standin: tuple[EmbeddedOpenSSH, Path], request: pytest.FixtureRequest) -> None:
    args = build_parser().parse_args(["run", *argv])  # as printed: the real parser takes it
    if args.link and os.geteuid() != 0:
        pytest.skip("--link needs root (the docs say sudo)")
    if args.build:  # the builds it names, made as the docs say (make ssh-builds), once per session
        request.getfixturevalue("builds")
    srv, directory = standin
    argv = list(argv)
    if args.destination:
        config = directory / f"config-{abs(hash(where))}"
        aliases = [f"standin{i}" for i in range(len(args.destination))]
        config.write_text("".join(standin_block(alias, srv) for alias in aliases))
        argv = [aliases[args.destination.index(w)] if w in args.destination else w for w in argv]
        if "--ssh-config" in argv:
            argv[argv.index("--ssh-config") + 1] = str(config)
        else:
            argv += ["--ssh-config", str(config)]
    done = sshbench("run", *argv, "--plan", timeout=600)
    assert done.returncode == 0, f"{where}\n{done.stderr}"
    assert "to fit the default time budget" not in done.stderr, f"{where}: measures less than it says\n{done.stderr}"
    busy = re.findall(r"about (.+?) on a busy 2-vCPU machine .*; the time budget is (none|.+?)(?: \(this host's "
                      r"share\))?$", done.stdout, re.MULTILINE)
    assert busy, done.stdout
    for needed, budget in busy:
        if budget != "none":
            assert _seconds(needed) <= _seconds(budget), f"{where}: needs {needed} on a busy machine, has {budget}"
