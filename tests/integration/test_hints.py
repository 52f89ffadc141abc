"""Every command a run suggests works for the target it names: each one is run here (bounded in time)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from sshbench.errors import ExitCode
from tests.integration.cli_helpers import sshbench
from tests.integration.other_servers import missing, other_server

pytestmark = pytest.mark.integration

BOUND = ["--time-budget", "25s"]  # appended to suggested runs (the last value wins): bounded in time
SMALL = ["--ciphers", "aes128-gcm@openssh.com,aes128-ctr", "--macs", "none", "--kex", "none", "--hostkeys", "none",
         "--runs", "2", "--size", "4MiB", "--no-controls"]


def suggestions(stdout: str) -> dict[str, list[str]]:
    """'Label:  sshbench ...' lines of the run's last block, as argument lists (without 'sshbench')."""
    out = {}
    for line in stdout.splitlines():
        label, sep, command = line.partition(":  sshbench ")
        if sep:
            out[label.strip()] = shlex.split(command.split("   sshbench ")[0])
    return out


def run_each(found: dict[str, list[str]], tmp: Path) -> None:
    for n, (label, args) in enumerate(found.items()):
        extra = [] if args[0] in ("algos", "compare", "report", "recommend") else [*BOUND, "--output",
                                                                                      str(tmp / f"s{n}.json")]
        done = sshbench(*args, *extra, timeout=240)
        assert done.returncode == ExitCode.OK, (label, args, done.stderr[-800:])


def test_the_embedded_runs_suggestions_work(tmp_path: Path) -> None:
    done = sshbench(*SMALL, "--output", str(tmp_path / "r.json"))
    assert done.returncode == ExitCode.OK, done.stderr
    found = suggestions(done.stdout)
    assert set(found) >= {"Compare the top two more tightly", "Same schedule again", "What each side supports"}
    same = found["Same schedule again"]
    assert all(option in same for option in ("--ciphers", "--size", "--no-controls", "--seed", "--runs"))
    assert found["What each side supports"] == ["algos"]
    run_each(found, tmp_path)


@pytest.fixture(scope="module")
def dropbear(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    reason = missing("dropbear")
    if reason:
        pytest.skip(f"dropbear: {reason}")
    root = tmp_path_factory.mktemp("dropbear-hints")
    with other_server("dropbear", root) as srv:
        config = root / "config"
        config.write_text(srv.ssh_config("db", srv.known_hosts(root / "known_hosts", *srv.host_keys)))
        yield config


def test_a_remote_runs_suggestions_name_that_host_and_keep_what_it_needed(dropbear: Path, tmp_path: Path) -> None:
    # Dropbear 2022.83 lacks the default --cipher-mac (hmac-sha2-256-etm): the run needed this option
    args = ["run", "db", "--ssh-config", str(dropbear), "--cipher-mac", "hmac-sha2-256", *SMALL]
    args[args.index("aes128-gcm@openssh.com,aes128-ctr")] = "aes128-ctr,aes256-ctr"
    done = sshbench(*args, "--output", str(tmp_path / "r.json"))
    assert done.returncode == ExitCode.OK, done.stderr
    found = suggestions(done.stdout)
    assert found["What each side supports"] == ["algos", "db", "--ssh-config", str(dropbear)]
    for label in ("Compare the top two more tightly", "Same schedule again"):
        assert found[label][:5] == ["db", "--ssh-config", str(dropbear), "--cipher-mac", "hmac-sha2-256"], label
    run_each(found, tmp_path)


def test_no_compare_hint_with_one_cipher(tmp_path: Path) -> None:
    args = [*SMALL]
    args[args.index("aes128-gcm@openssh.com,aes128-ctr")] = "aes128-gcm@openssh.com"
    done = sshbench(*args, "--output", str(tmp_path / "r.json"))
    assert done.returncode == ExitCode.OK, done.stderr
    assert "Compare the top two" not in done.stdout


def test_algos_reads_a_hosts_offer_without_logging_in_and_speaks_json(dropbear: Path) -> None:
    done = sshbench("algos", "db", "--ssh-config", str(dropbear), "--json")
    assert done.returncode == ExitCode.OK, done.stderr
    doc = json.loads(done.stdout)
    assert "dropbear_2022.83" in doc["server"]
    offered = {row["name"] for row in doc["algorithms"] if row["server"] and row["kind"] == "cipher"}
    assert "aes128-ctr" in offered and "aes128-gcm@openssh.com" not in offered
    assert doc["terrapin"]["server"]["strict_kex"] is True  # Debian's backport
    table = sshbench("algos", "db", "--ssh-config", str(dropbear))
    assert table.returncode == ExitCode.OK and "dropbear_2022.83" in table.stdout and "Terrapin" in table.stdout
    gone = sshbench("algos", "nosuchhost.invalid")
    assert gone.returncode == ExitCode.SERVER and len(gone.stderr.strip().splitlines()) == 1
