"""The SSH clients sshbench measures (issue 64): the registry and what each part declares, the driver's contract,
and `--client` read, validated and refused in one line (exit 2; exit 3 where a client is not installed)."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import asyncssh
import asyncssh.connection
import paramiko  # type: ignore[import-untyped]
import pytest

import sshbench.cli
from sshbench.axes import effect_of
from sshbench.axes.client import CLIENT
from sshbench.cli import main
from sshbench.clientparts import (
    CLIENTS,
    DEFAULT,
    FAILED,
    MARK,
    Can,
    ClientPart,
    DriverLine,
    DriverRequest,
    client_part,
    failure,
)
from sshbench.clientparts.asyncssh import ASYNCSSH
from sshbench.clientparts.base import DRIVERS, MARKS
from sshbench.clientparts.dbclient import DBCLIENT
from sshbench.clientparts.drivers import contract, dbclient_pipe
from sshbench.clientparts.paramiko import PARAMIKO
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.vocabulary.errors import ExitCode, UsageError


def test_the_registry_names_each_part_once_with_openssh_the_default() -> None:
    assert list(CLIENTS) == ["openssh", "paramiko", "asyncssh", "dbclient", "plink", "goxcrypto"]
    assert DEFAULT == "openssh" == CLIENT.plain
    assert all(part.name == name for name, part in CLIENTS.items())
    assert client_part("openssh") is CLIENTS["openssh"] and client_part("putty") is None
    assert CLIENTS["openssh"].is_program and CLIENTS["openssh"].version() is None  # ssh -V says, elsewhere
    for part in CLIENTS.values():
        assert {Can.PIPE_UPLOAD, Can.PIPE_DOWNLOAD} <= part.can
        assert part.window.value > 0 and part.max_packet.value > 0 and part.install
        if not part.is_program:  # a Python driver's file, or a compiled one's source directory
            assert part.driver is not None and (os.path.isdir if part.built else os.path.isfile)(
                os.path.join(DRIVERS, part.driver))


def test_paramiko_s_window_and_packet_size_are_what_the_installed_source_says() -> None:
    """The citation is read again in whatever paramiko is installed: an upgrade that moves them fails here."""
    source = Path(inspect.getfile(paramiko.common))
    assert source.as_posix().endswith(PARAMIKO.window.file) and PARAMIKO.window.file == PARAMIKO.max_packet.file
    text = source.read_text()
    for cited, value in ((PARAMIKO.window, paramiko.common.DEFAULT_WINDOW_SIZE),
                         (PARAMIKO.max_packet, paramiko.common.DEFAULT_MAX_PACKET_SIZE)):
        assert cited.line in text.splitlines() and cited.value == value
        assert cited.release == f"paramiko {paramiko.__version__}" == f"paramiko {PARAMIKO.version()}"
    assert PARAMIKO.window.source == "paramiko 5.1.0 paramiko/common.py: DEFAULT_WINDOW_SIZE = 64 * 2**15"


def test_asyncssh_s_window_and_packet_size_are_what_the_installed_source_says() -> None:
    """As paramiko's: the cited lines must stand in the installed asyncssh's connection.py, their values be the
    constants every client session gets by default (the connect options' own defaults), the release this one."""
    source = Path(inspect.getfile(asyncssh.connection))
    assert source.as_posix().endswith(ASYNCSSH.window.file) and ASYNCSSH.window.file == ASYNCSSH.max_packet.file
    lines = source.read_text().splitlines()
    defaults = inspect.signature(asyncssh.SSHClientConnectionOptions.prepare).parameters
    for cited, value, option in ((ASYNCSSH.window, asyncssh.connection._DEFAULT_WINDOW, "window"),
                                 (ASYNCSSH.max_packet, asyncssh.connection._DEFAULT_MAX_PKTSIZE, "max_pktsize")):
        assert cited.line in lines and cited.value == value == defaults[option].default
        assert cited.release == f"asyncssh {asyncssh.__version__}" == f"asyncssh {ASYNCSSH.version()}"
    assert ASYNCSSH.window.source == ("asyncssh 2.24.1 asyncssh/connection.py: _DEFAULT_WINDOW = 2*1024*1024       "
                                      "# 2 MiB")
    assert {knob.name for knob in ASYNCSSH.knobs} >= {"window", "max_pktsize"}


DRIVEN = [part for part in CLIENTS.values() if part.driver is not None and part.built is None]  # Python drivers


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every import in a file, at any depth: (relative level, module name), one per name a `from . import` takes."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [(node.level, node.module or alias.name) for alias in node.names] if node.level or \
                node.module is None else [(0, node.module)]
    return found


def test_the_drivers_spell_the_contract_as_sshbench_reads_it_in_one_module_of_their_own() -> None:
    """The drivers share drivers/contract.py: its spellings are base.py's, and it imports the standard library
    only, as does a driver's own helper beside it (plink_log.py, plink_pipe.py's); each driver imports nothing of
    sshbench, and of its siblings only that module (and its own helper)."""
    assert (contract.MARK, contract.FAILED) == (MARK, FAILED)
    helpers = {"plink_pipe.py": {"plink_log"}}
    for shared in ("contract.py", "plink_log.py"):
        assert _imports(Path(DRIVERS, shared)) and all(
            level == 0 and name.split(".")[0] in sys.stdlib_module_names for level, name in
            _imports(Path(DRIVERS, shared))), f"{shared}: the standard library only"
    for part in DRIVEN:
        assert part.driver is not None
        imported = _imports(Path(DRIVERS, part.driver))
        siblings = {"contract", *helpers.get(part.driver, ())}
        assert all(name.split(".")[0] != "sshbench" for _, name in imported), "a program of its own"
        assert {(level, name) for level, name in imported if level or name in siblings} == {
            (level, name) for level in (0, 1) for name in siblings}
    for part in (PARAMIKO, ASYNCSSH):  # the library drivers' clocks: "started" in contract.library_main
        assert part.driver is not None
        text = Path(DRIVERS, part.driver).read_text() + Path(DRIVERS, "contract.py").read_text()
        assert f'NAME = "{part.name}"' in text and all(f'"{mark}"' in text for mark in MARKS)


@pytest.mark.parametrize("part", DRIVEN, ids=lambda part: part.name)
def test_each_driver_started_as_a_run_starts_it_finds_the_contract_beside_it_and_nothing_of_sshbench(
        part: ClientPart) -> None:
    """ClientPart.command: `python [-S] drivers/NAME.py`, whose directory is sys.path's first entry (-S keeps it);
    with -P's PYTHONSAFEPATH in the environment the driver puts it there itself. Its --probe answers, having
    imported `contract` and no module of sshbench (-X importtime lists every module imported)."""
    if part.unavailable() is not None:
        pytest.skip(part.unavailable() or "")
    for env in ({}, {"PYTHONSAFEPATH": "1"}):
        argv = part.command()
        done = subprocess.run([argv[0], "-X", "importtime", *argv[1:], "--probe"], capture_output=True, text=True,
                              timeout=60, check=False, env={**os.environ, **env})
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout)["client"] == part.name
        modules = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                   if line.startswith("import time:")]
        assert "contract" in modules and not [m for m in modules if m.startswith("sshbench")], env


def test_a_driver_request_pins_what_the_case_asks_and_passes_the_command_last() -> None:
    request = DriverRequest("127.0.0.1", 2222, "u", "/k", "/kh", "sshbench-embedded", "/e", "echo hi; wc -c",
                            "upload", cipher="aes128-ctr", mac="hmac-sha2-256")
    argv = request.argv(PARAMIKO)
    assert argv[:2] == PARAMIKO.command() and argv[-2:] == ["--", "echo hi; wc -c"]
    assert argv[argv.index("--cipher") + 1] == "aes128-ctr" and argv[argv.index("--mac") + 1] == "hmac-sha2-256"
    assert "--kex" not in argv and "--server-log" in argv and argv[argv.index("--port") + 1] == "2222"


def test_every_driver_reads_a_request_s_argv_as_driver_request_writes_it() -> None:
    """The drivers read their arguments with contract.py's one parser (dbclient's adds --window): what a request
    says, each reads the same."""
    request = DriverRequest("127.0.0.1", 2222, "u", "/k", "/kh", "sshbench-embedded", "/e", "echo hi; wc -c",
                            "download", cipher="aes128-ctr", kex="curve25519-sha256", hostkey="ssh-ed25519")
    read = [vars(contract.arguments(request.argv(part)[len(part.command()):], "x")) for part in (PARAMIKO, ASYNCSSH)]
    read.append({k: v for k, v in vars(dbclient_pipe.arguments(request.argv(DBCLIENT)[len(DBCLIENT.command()):]))
                 .items() if k != "window"})
    assert read[0] == read[1] == read[2] and read[0]["command"] == "echo hi; wc -c" and read[0]["port"] == 2222
    assert read[0]["server_log"] and read[0]["direction"] == "download" and read[0]["mac"] is None
    assert read[0]["kex"] == "curve25519-sha256" and read[0]["identity"] == "/k" and not read[0]["probe"]


def test_a_driver_line_is_read_and_anything_else_is_not() -> None:
    said = {"client": "paramiko", "version": "5.1.0", "kex": "curve25519-sha256@libssh.org",
            "cipher_c2s": "aes128-gcm@openssh.com", "mac_c2s": "<implicit>", "window": 2097152, "max_packet": 32768,
            "marks": {"data_started": 2.5, "data_ended": 3.0, "bogus": 1.0, "connected": "x"}, "bytes_in": -1}
    line = DriverLine.parse(f"{MARK} {json.dumps(said)}")
    assert line is not None and line.kex == "curve25519-sha256@libssh.org" and line.cipher_s2c is None
    assert line.window == 2097152 and line.bytes_in is None and line.marks == (("data_started", 2.5),
                                                                                ("data_ended", 3.0))
    assert line.mark("data_ended") == 3.0 and line.mark("connected") is None
    for other in ("debug1: kex: algorithm: x", f"{MARK} not json", f"{MARK} [1]", f'{MARK} {{"client": 3}}'):
        assert DriverLine.parse(other) is None
    assert failure(["x", f"{FAILED} paramiko 5.1.0 cannot use cipher y", "z"]) == "paramiko 5.1.0 cannot use cipher y"
    assert failure(["debug1: x"]) is None


def test_the_client_axis_reads_names_and_says_what_a_client_cannot_take() -> None:
    assert CLIENT.parse("openssh, paramiko,openssh") == ("openssh", "paramiko")
    for bad, said in (("putty", "bad --client 'putty': sshbench measures openssh, paramiko, asyncssh, dbclient, "
                                "plink, goxcrypto"),
                      (",", "needs one")):
        with pytest.raises(UsageError, match=said):
            CLIENT.parse(bad)
    assert CLIENT.skipped("paramiko", "pipe") is None and CLIENT.skipped("openssh", "scp") is None
    assert CLIENT.skipped("paramiko", "sftp") == "--client paramiko: measured over the pipe only (SFTP is the " \
        "next slice of its driver)"
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr")
    assert case.at("client", "paramiko").id == "cipher:aes128-ctr:upload^paramiko"
    assert case.at("client", "openssh") == case and case.at("client", "openssh").id == case.id  # ids as before
    assert effect_of(case.at("client", "paramiko").dims).client == "paramiko" and effect_of(case.dims).client is None
    assert CLIENT.title("paramiko") == "paramiko as the client"


@pytest.fixture
def no_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sshbench.cli, "SWEEPING", ())


@pytest.mark.usefixtures("no_sweep")
@pytest.mark.parametrize(("args", "line"), [
    (["--client", "putty"], "bad --client 'putty': sshbench measures openssh, paramiko, asyncssh, dbclient, "
                            "plink, goxcrypto, e.g. --client openssh,paramiko"),
    (["web1", "--client", "openssh,paramiko"], "--client paramiko: a real host is reached through your own ssh "
     "setup only, and a client driver connects on its own to sshbench's embedded servers: drop paramiko from "
     "--client, or measure it in a run of its own"),
    (["--client", "paramiko", "--link", "rtt=20ms"], "--client paramiko: its driver's connections do not cross "
     "sshbench's emulated links yet: drop paramiko from --client, or measure it in a run of its own"),
    (["--client", "paramiko", "--ciphers", "none", "--commands", "true"],
     "--client applies to the cipher sweep: add --ciphers (e.g. --ciphers default), or drop --client"),
], ids=["unknown", "real-host", "link", "no-cipher-sweep"])
def test_a_client_that_cannot_be_measured_so_is_one_line_and_exit_2(args: list[str], line: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", *args]) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert captured.err == f"sshbench: error: {line}\n" and not captured.out


@pytest.mark.usefixtures("no_sweep")
@pytest.mark.parametrize("part", [PARAMIKO, ASYNCSSH], ids=lambda part: part.name)
def test_a_client_not_installed_is_named_with_the_command_that_installs_it_exit_3(
        part: ClientPart, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == part.distribution:
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    assert main(["run", "--client", f"openssh,{part.name}"]) == ExitCode.MISSING_TOOL
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"sshbench: error: --client {part.name}: {part.title} is not installed in the Python that "
                          "runs sshbench (") and err.rstrip().endswith(f"install it: {part.install}")
