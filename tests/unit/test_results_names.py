"""The newest fields of a results file checked like the rest: phase marks against the list sshbench records, login
stages within what --logins can run, and the names of builds, sides and launchers never a path. Each field of a
real recorded file is corrupted on its own and `report` refuses the copy in one line naming the field and the
file (exit 2, as every bad results file); every real recorded file still loads."""

from __future__ import annotations

import copy
import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sshbench.cli import main
from sshbench.options import MAX_LOGIN_CLIENTS
from sshbench.results.codec import results_from_dict
from sshbench.vocabulary.buildspec import parse_build
from sshbench.vocabulary.errors import ExitCode, UsageError
from tests.conftest import DATA

SHARED_RUNS = Path(__file__).resolve().parents[3] / "shared" / "data" / "runs"
LOGINS = "results-logins-1-4.json.gz"  # a real --logins 1,4 run (tests/data/README.md)
SERVERS = "results-servers-openssh-dropbear-tinysshd.json.gz"  # a real --server all run: three sides


def _recorded(name: str) -> dict[str, Any]:
    raw = (DATA / name).read_bytes()
    loaded = json.loads(gzip.decompress(raw) if name.endswith(".gz") else raw)
    assert isinstance(loaded, dict)
    return loaded


def _phased(data: dict[str, Any]) -> dict[str, float]:
    phases = next(s["phases"] for s in data["samples"] if s["phases"])
    assert isinstance(phases, dict)
    return phases


Corrupt = Callable[[dict[str, Any]], None]
CASES: list[tuple[str, str, Corrupt, str]] = [
    ("an unknown phase", LOGINS, lambda d: _phased(d).update(evil=0.1),
     r"a key in samples\[\d+\]\.phases is not a phase mark sshbench records: 'evil'"),
    ("a phase named as a path", LOGINS, lambda d: _phased(d).update({"../x": 0.1}),
     r"a key in samples\[\d+\]\.phases is not a phase mark"),
    ("a stage of no clients", LOGINS, lambda d: d["logins"][0].update(clients=0),
     rf"logins\[0\]: clients is 0: a stage has 1 to {MAX_LOGIN_CLIENTS} parallel clients"),
    ("a stage of 10^15 clients", LOGINS, lambda d: d["logins"][1].update(clients=10**15),
     r"logins\[1\]: clients is 1000000000000000: a stage has 1 to"),
    ("a stage one client past the bound", LOGINS, lambda d: d["logins"][1].update(clients=MAX_LOGIN_CLIENTS + 1),
     rf"logins\[1\]: clients is {MAX_LOGIN_CLIENTS + 1}"),
    ("a stage of no time", LOGINS, lambda d: d["logins"][0].update(seconds=0),
     r"logins\[0\]: seconds is 0\.0: a stage lasts a positive, finite time"),
    ("a stage of negative time", LOGINS, lambda d: d["logins"][0].update(seconds=-1.5),
     r"logins\[0\]\.seconds must not be negative"),
    ("a launcher named as a path", LOGINS, lambda d: d["environment"]["server"]["embedded"].update(
        server="../../tmp/evil"), r"environment\.server\.embedded\.server is not a name: '\.\./\.\./tmp/evil'"),
    ("an implementation named as a path", LOGINS, lambda d: d["environment"]["server"]["embedded"].update(
        implementation=".."), r"environment\.server\.embedded\.implementation is not a name: '\.\.'"),
    ("a build named as a path", SERVERS, lambda d: d["environment"]["builds"][1].update(name="../../etc"),
     r"environment\.builds\[1\]\.name is not a name: '\.\./\.\./etc'"),
    ("a side's launcher named as a path", SERVERS, lambda d: d["environment"]["builds"][2].update(spec="../evil"),
     r"environment\.builds\[2\]\.spec is not a name: '\.\./evil'"),
    ("a side's own launcher named as a path", SERVERS,
     lambda d: d["environment"]["builds"][1]["own"]["server"]["embedded"].update(server="a/b"),
     r"environment\.builds\[1\]\.own\.server\.embedded\.server is not a name: 'a/b'"),
    ("a case's build named ..", SERVERS, lambda d: d["cases"][0]["case"].update(build=".."),
     r"cases\[0\]\.build is not a name: '\.\.'"),
    ("a hidden name", SERVERS, lambda d: d["cases"][0]["case"].update(build=".dropbear"),
     r"cases\[0\]\.build is not a name: '\.dropbear'"),
]


@pytest.mark.parametrize("what, name, corrupt, line", CASES, ids=[c[0] for c in CASES])
def test_a_corrupted_field_is_refused_in_one_line_naming_it_and_the_file(
        what: str, name: str, corrupt: Corrupt, line: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    data = copy.deepcopy(_recorded(name))
    results_from_dict(copy.deepcopy(data))  # the file as recorded loads: only the corruption is refused
    corrupt(data)
    path = tmp_path / "corrupted.json"
    path.write_text(json.dumps(data))
    assert main(["report", str(path)]) == ExitCode.USAGE
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"sshbench: error: {path} is not a valid sshbench results file: "), err
    assert re.search(line, err), (line, err)


def test_a_build_side_s_spec_is_its_canonical_build_text() -> None:
    data = _recorded(SERVERS)
    side = data["environment"]["builds"][1]
    side.pop("own")  # a build's side (--build), not a server's: its spec is --build text, a path allowed
    for spec in ("dropbear", "client=/opt/dropbear-build,server=stock,label=dropbear"):
        side["spec"] = spec
        results_from_dict(copy.deepcopy(data))
    for spec in ("client=stock,server=stock", "x,label=../y", "/opt/a b"):
        side["spec"] = spec
        with pytest.raises(ValueError, match=r"environment\.builds\[1\]\.spec is not a build's canonical --build"):
            results_from_dict(copy.deepcopy(data))


def test_a_build_name_sshbench_would_refuse_to_read_back_is_refused_up_front() -> None:
    for text in ("/opt/..", "label=..,stock", "stock,label=.hidden", "client=/a/.x,server=stock"):
        with pytest.raises(UsageError):
            parse_build(text)
    assert parse_build("client=/opt/hpn-ssh-18.8.0,server=stock").name == "hpn-ssh-18.8.0>stock"


def _every_recorded() -> list[Path]:
    return sorted([*DATA.glob("results-*.json*"), *SHARED_RUNS.glob("*.json*")])


@pytest.mark.parametrize("path", _every_recorded(), ids=lambda p: p.name)
def test_every_real_recorded_results_file_still_loads(path: Path) -> None:
    raw = path.read_bytes()
    runs = results_from_dict(json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw))
    assert runs and all(run.cases for run in runs)
