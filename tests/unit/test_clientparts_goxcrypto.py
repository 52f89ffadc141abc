"""Go's x/crypto/ssh as a client: its part against its pinned module (go.mod, go.sum, and the cited lines in that
release's ssh/channel.go where the Go module cache holds it), its compiled driver's spelling of the contract, when
a build counts as built, `sshbench clients install` (exit 2 on a name it does not know, 3 without Go when named,
a skip under `all`), its built driver's own --probe, and what a run holds it at."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import sshbench.cli
from sshbench.cli import main
from sshbench.clientparts import CLIENTS, DriverRequest
from sshbench.clientparts import built as built_module
from sshbench.clientparts.base import DRIVERS, MARKS
from sshbench.clientparts.built import Built
from sshbench.clientparts.drivers import contract
from sshbench.clientparts.goxcrypto import GOXCRYPTO
from sshbench.clientparts.paramiko import PARAMIKO
from sshbench.clients import known_clients
from sshbench.options import RunOptions
from sshbench.orchestrate.client_sides import _lacks, client_options
from sshbench.plumbing import procs
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.clientprobe import ClientProbe
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.errors import ExitCode
from tests.unit.test_clientparts_plink import _offer
from tests.unit.test_plan import CLIENT as SSH

ROOT = Path(__file__).resolve().parents[2]
SOURCES = Path(DRIVERS, "goxcrypto")
assert GOXCRYPTO.built is not None
BUILT: Built = GOXCRYPTO.built
# What x/crypto v0.58.0 can be told to use (ssh/common.go: SupportedAlgorithms, then InsecureAlgorithms; for key
# exchange also Curve25519's old name, which kex.go's kexAlgoMap takes), as its driver's --probe lists it
CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com", "aes128-ctr",
           "aes192-ctr", "aes256-ctr", "aes128-cbc", "3des-cbc", "arcfour256", "arcfour128", "arcfour")
MACS = ("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com", "hmac-sha2-256", "hmac-sha2-512",
        "hmac-sha1", "hmac-sha1-96")
KEX = ("mlkem768x25519-sha256", "curve25519-sha256", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521",
       "diffie-hellman-group14-sha256", "diffie-hellman-group16-sha512", "diffie-hellman-group-exchange-sha256",
       "diffie-hellman-group14-sha1", "diffie-hellman-group1-sha1", "diffie-hellman-group-exchange-sha1",
       "curve25519-sha256@libssh.org")
KEYS = ("rsa-sha2-256-cert-v01@openssh.com", "rsa-sha2-512-cert-v01@openssh.com",
        "ecdsa-sha2-nistp256-cert-v01@openssh.com", "ecdsa-sha2-nistp384-cert-v01@openssh.com",
        "ecdsa-sha2-nistp521-cert-v01@openssh.com", "ssh-ed25519-cert-v01@openssh.com", "rsa-sha2-256", "rsa-sha2-512",
        "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-ed25519", "ssh-rsa", "ssh-dss",
        "ssh-rsa-cert-v01@openssh.com", "ssh-dss-cert-v01@openssh.com")
PROBE = ClientProbe(GOXCRYPTO, "0.58.0", AlgorithmLists(CIPHERS, MACS, KEX, KEYS), 2097152, 32768)


def test_its_part_is_a_compiled_driver_built_into_the_venv_s_opt() -> None:
    assert CLIENTS["goxcrypto"] is GOXCRYPTO and not GOXCRYPTO.is_program and GOXCRYPTO.program is None
    assert GOXCRYPTO.command() == [BUILT.path] == [os.path.join(built_module.BUILT_DIR, "goxcrypto",
                                                                "sshbench-goxcrypto")]
    assert (os.environ.get("SSHBENCH_DRIVERS") or os.path.join(sys.prefix, "opt", "drivers")) == built_module.BUILT_DIR
    assert BUILT.source_dir == str(SOURCES) and {"main.go", "go.mod", "go.sum"} <= set(os.listdir(SOURCES))
    assert "sshbench clients install goxcrypto" in GOXCRYPTO.install
    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["sshbench"]
    assert {f"clientparts/drivers/goxcrypto/{name}" for name in ("*.go", "go.mod", "go.sum")} <= set(shipped)


def test_the_pinned_module_is_the_cited_release_in_go_mod_and_go_sum() -> None:
    module, release = BUILT.module, BUILT.release
    assert f"\t{module} v{release}\n" in (SOURCES / "go.mod").read_text()
    sums = (SOURCES / "go.sum").read_text().splitlines()
    assert any(line.startswith(f"{module} v{release} h1:") for line in sums)
    assert any(line.startswith(f"{module} v{release}/go.mod h1:") for line in sums)
    assert GOXCRYPTO.window.release == GOXCRYPTO.max_packet.release == f"{module} v{release}"
    assert GOXCRYPTO.window.source == "golang.org/x/crypto v0.58.0 ssh/channel.go: channelWindowSize = 64 * " \
                                      "channelMaxPacket"


def _module_cache() -> Path | None:
    if os.environ.get("GOMODCACHE"):
        return Path(os.environ["GOMODCACHE"])
    if shutil.which("go"):
        said = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, timeout=60, check=False)
        return Path(said.stdout.strip()) if said.returncode == 0 and said.stdout.strip() else None
    return None


def test_the_window_and_packet_size_stand_in_the_pinned_release_s_channel_go() -> None:
    """The cited lines, read again in the module's own source where a build fetched it: an upgrade that moves them
    fails here (and the driver's own constants, which its line reports, must be the same values)."""
    cache = _module_cache()
    source = cache / f"{BUILT.module}@v{BUILT.release}" / GOXCRYPTO.window.file if cache else None
    if source is None or not source.is_file():
        pytest.skip(f"the Go module cache has no {BUILT.module}@v{BUILT.release} (sshbench clients install goxcrypto "
                    "fetches it)")
    lines = [line.strip() for line in source.read_text().splitlines()]
    values: dict[str, int] = {}
    for cited in (GOXCRYPTO.max_packet, GOXCRYPTO.window):  # the packet first: the window is 64 of them
        assert cited.line in lines, cited.line
        name, expression = cited.line.split(" = ")
        values[name] = eval(expression, {}, dict(values))  # "1 << 15", "64 * channelMaxPacket"
        assert values[name] == cited.value
    driver = (SOURCES / "main.go").read_text()
    assert re.search(r"^\twindow += 64 \* \(1 << 15\)$", driver, re.M) and re.search(r"^\tmaxPacket = 1 << 15$",
                                                                                      driver, re.M)


def test_the_driver_spells_the_contract_as_sshbench_reads_it() -> None:
    """A Go program cannot import contract.py: it spells the same words, every argument DriverRequest writes, and
    every mark of its line."""
    driver = (SOURCES / "main.go").read_text()
    for spelled in (contract.MARK, contract.FAILED, contract.LOGGED, GOXCRYPTO.name):
        assert f'"{spelled}"' in driver, spelled
    request = DriverRequest("127.0.0.1", 2222, "u", "/k", "/kh", "sshbench-embedded", "/e", "wc -c", "upload",
                            cipher="aes128-ctr", mac="m", kex="k", hostkey="h")
    flags = {word[2:] for word in request.argv(GOXCRYPTO) if word.startswith("--") and word != "--"}
    assert flags >= {"host", "port", "known-hosts", "expect-dir", "server-log", "cipher", "hostkey"}
    assert all(f'"{flag}"' in driver for flag in flags | {"probe", "direction"})
    assert all(f'"{mark}"' in driver for mark in MARKS)


def test_a_build_counts_only_when_it_was_made_from_today_s_sources(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(built_module, "BUILT_DIR", str(tmp_path))
    assert BUILT.missing() == f"no {tmp_path}/goxcrypto/sshbench-goxcrypto" and GOXCRYPTO.version() is None
    assert GOXCRYPTO.unavailable() == (f"Go's x/crypto/ssh's driver is not built here (no {BUILT.path}); install "
                                       f"it: {GOXCRYPTO.install}")
    os.makedirs(BUILT.directory)
    Path(BUILT.path).write_text("#!/bin/sh\n")
    os.chmod(BUILT.path, 0o755)
    stamp = Path(BUILT.directory, built_module.STAMP)
    stamp.write_text(json.dumps({"sources": "0" * 64, "release": "0.58.0"}))
    assert BUILT.missing() == f"{BUILT.path} was built from other sources than this sshbench's"
    stamp.write_text(json.dumps({"sources": BUILT.digest(), "release": "0.58.0"}))
    assert BUILT.missing() is None and GOXCRYPTO.unavailable() is None and GOXCRYPTO.version() == "0.58.0"


def test_a_run_asking_for_it_unbuilt_is_one_line_naming_the_install_command_exit_3(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sshbench.cli, "SWEEPING", ())
    monkeypatch.setattr(built_module, "BUILT_DIR", str(tmp_path))
    assert main(["run", "--client", "openssh,goxcrypto"]) == ExitCode.MISSING_TOOL
    err = capsys.readouterr().err
    assert err == (f"sshbench: error: --client goxcrypto: Go's x/crypto/ssh's driver is not built here (no "
                   f"{tmp_path}/goxcrypto/sshbench-goxcrypto); install it: {GOXCRYPTO.install}\n")


def test_clients_install_names_a_client_it_does_not_know_in_one_line_exit_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clients", "install", "putty"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err == ("sshbench: error: clients install: no client 'putty'; sshbench measures openssh, paramiko, "
                   "asyncssh, dbclient, plink, goxcrypto (or: all)\n")


def test_without_go_a_named_client_is_exit_3_and_under_all_it_is_skipped_saying_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(built_module, "BUILT_DIR", str(tmp_path))
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no go on PATH
    assert main(["clients", "install", "goxcrypto"]) == ExitCode.MISSING_TOOL
    said = "goxcrypto: its driver is built with go, which is not on PATH: install Go 1.26 or newer"
    assert capsys.readouterr().err.startswith(f"sshbench: error: {said}")
    assert main(["clients", "install", "all"]) == ExitCode.OK
    assert capsys.readouterr().err.startswith(f"goxcrypto skipped: {said}")
    assert not list(tmp_path.iterdir()), "nothing was made"


def test_a_build_of_today_s_sources_is_not_made_again_and_a_client_with_none_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(built_module, "BUILT_DIR", str(tmp_path))
    monkeypatch.setattr(procs, "run_text", lambda *a, **k: pytest.fail("built again"))
    os.makedirs(BUILT.directory)
    Path(BUILT.path).write_text("#!/bin/sh\n")
    os.chmod(BUILT.path, 0o755)
    Path(BUILT.directory, built_module.STAMP).write_text(json.dumps({"sources": BUILT.digest()}))
    assert main(["clients", "install", "goxcrypto", "paramiko"]) == ExitCode.OK
    err = capsys.readouterr().err
    assert f"goxcrypto: {BUILT.path} is built from this sshbench's sources (golang.org/x/crypto 0.58.0)" in err
    assert "paramiko: nothing to build (paramiko is ready)" in err
    assert PARAMIKO.built is None


@pytest.mark.skipif(GOXCRYPTO.unavailable() is not None, reason=str(GOXCRYPTO.unavailable()))
def test_the_built_driver_says_its_pinned_version_its_lists_and_its_window() -> None:
    done = subprocess.run([*GOXCRYPTO.command(), "--probe"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert (said["client"], said["version"]) == ("goxcrypto", "0.58.0")
    assert (tuple(said["ciphers"]), tuple(said["macs"]), tuple(said["kex"]), tuple(said["keys"])) == (
        CIPHERS, MACS, KEX, KEYS)
    assert (said["window"], said["max_packet"]) == (GOXCRYPTO.window.value, GOXCRYPTO.max_packet.value)


def test_its_lists_hold_every_name_its_recorded_default_offer_makes() -> None:
    """The recorded KEXINIT of x/crypto v0.58.0's defaults (clients/offers), less the two markers that are no
    algorithm: every name it offers by default is one it can be told to use alone."""
    (offer,) = [o for o in known_clients() if o.name == "go-x-crypto-0.58.0"]
    markers = {"ext-info-c", "kex-strict-c-v00@openssh.com"}
    assert set(offer.cipher_c2s) <= set(CIPHERS) and set(offer.mac_c2s) <= set(MACS)
    assert set(offer.kex) - markers <= set(KEX) and set(offer.hostkey) <= set(KEYS)


def test_a_run_holds_curve25519_and_skips_what_it_lacks_saying_so() -> None:
    offered = _offer("kexinit-openssh-9.2-all-enabled.txt")
    options = client_options(RunOptions(ciphers="aes128-gcm@openssh.com,aes128-ctr"), SSH, offered, [PROBE])
    assert (options.partner_kex, options.cipher_mac) == ("curve25519-sha256", "hmac-sha2-256-etm@openssh.com")
    paramiko = ClientProbe(PARAMIKO, "5.1.0", AlgorithmLists(("aes128-ctr",), ("hmac-sha2-256-etm@openssh.com",),
                                                             ("curve25519-sha256@libssh.org",), ("ssh-ed25519",)))
    both = client_options(RunOptions(ciphers="aes128-ctr"), SSH, offered, [PROBE, paramiko])
    assert both.partner_kex == "curve25519-sha256@libssh.org", "the old name, which Go takes by name too"
    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes256-cbc", kex="curve25519-sha256")
    assert _lacks(PROBE, case.at("client", "goxcrypto"), offered) == (
        "Go's x/crypto/ssh 0.58.0 cannot use cipher aes256-cbc (it has: " + ", ".join(CIPHERS) + ")")
    compressed = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", compression="ssh")
    assert _lacks(PROBE, compressed, offered) == ("Go's x/crypto/ssh's driver does not ask for SSH's own compression "
                                                  "(--compression ssh) yet")
    sntrup = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", kex="sntrup761x25519-sha512@openssh.com")
    assert str(_lacks(PROBE, sntrup, offered)).startswith("Go's x/crypto/ssh 0.58.0 cannot use key exchange "
                                                          "sntrup761x25519-sha512@openssh.com (it has: ")
