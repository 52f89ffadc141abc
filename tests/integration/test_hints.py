"""Every command a run suggests works for the target it names: each one is run here (bounded in time)."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench
from tests.integration.other_servers import missing, other_server

pytestmark = pytest.mark.integration

BOUND = ["--time-budget", "25s"]  # appended to suggested runs (the last value wins): bounded in time
SMALL = ["--ciphers", "aes128-gcm@openssh.com,aes128-ctr", "--macs", "none", "--kex", "none", "--hostkeys", "none",
         "--runs", "2", "--size", "4MiB", "--no-controls"]


# The program as the tests start it (python -m sshbench): a suggestion must name it so, since `sshbench` may not
# be on PATH (cli/hints.program)
PROGRAM = f"{shlex.quote(sys.executable)} -m sshbench "


def suggestions(stdout: str) -> dict[str, list[str]]:
    """'Label:  PROGRAM ...' lines of the run's last block, as argument lists (without the program)."""
    out = {}
    for line in stdout.splitlines():
        label, sep, command = line.partition(":  " + PROGRAM)
        if sep:
            out[label.strip()] = shlex.split(command.split("   " + PROGRAM)[0])
    return out


def run_each(found: dict[str, list[str]], tmp: Path) -> None:
    for n, (label, args) in enumerate(found.items()):
        extra = [] if args[0] in ("algos", "compare", "report", "recommend") else [*BOUND, "--output",
                                                                                      str(tmp / f"s{n}.json")]
        done = sshbench(*args, *extra, timeout=240)
        # `algos HOST` exits by what the server offers (12 weak, 13 broken or Terrapin); every other suggestion 0
        allowed = (ExitCode.OK, ExitCode.OFFERS_WEAK, ExitCode.OFFERS_BROKEN) if args[:1] == ["algos"] and \
            len(args) > 1 else (ExitCode.OK,)
        assert done.returncode in allowed, (label, args, done.stderr[-800:])


def test_the_embedded_runs_suggestions_work(tmp_path: Path) -> None:
    done = sshbench(*SMALL, "--output", str(tmp_path / "r.json"))
    assert done.returncode == ExitCode.OK, done.stderr
    found = suggestions(done.stdout)
    assert set(found) >= {"Compare the top two more tightly", "Same schedule again", "What each side supports"}
    same = found["Same schedule again"]
    assert all(option in same for option in ("--ciphers", "--size", "--no-controls", "--seed", "--runs"))
    assert found["What each side supports"] == ["algos"]
    run_each(found, tmp_path)


def _started(software: str, alias: str, factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real server of that kind on loopback, and a user's ssh config naming it `alias` (both host keys known)."""
    reason = missing(software)
    if reason:
        pytest.skip(f"{software}: {reason}")
    root = factory.mktemp(f"{software}-runs")
    with other_server(software, root) as srv:
        config = root / "config"
        config.write_text(srv.ssh_config(alias, srv.known_hosts(root / "known_hosts", *srv.host_keys)))
        yield config


@pytest.fixture(scope="module")
def dropbear(tmp_path_factory: pytest.TempPathFactory, module_tmpdir: Path) -> Iterator[Path]:
    yield from _started("dropbear", "db", tmp_path_factory)


@pytest.fixture(scope="module")
def tinysshd(tmp_path_factory: pytest.TempPathFactory, module_tmpdir: Path) -> Iterator[Path]:
    yield from _started("tinysshd", "ty", tmp_path_factory)


def test_a_remote_runs_suggestions_name_that_host_and_keep_what_it_needed(dropbear: Path, tmp_path: Path) -> None:
    # an option the user gave (auto would pick hmac-sha2-256 by itself): every suggestion keeps it
    args = ["run", "db", "--ssh-config", str(dropbear), "--cipher-mac", "hmac-sha2-256", *SMALL]  # as a user would
    args[args.index("aes128-gcm@openssh.com,aes128-ctr")] = "aes128-ctr,aes256-ctr"
    done = sshbench(*args, "--output", str(tmp_path / "r.json"))
    assert done.returncode == ExitCode.OK, done.stderr
    found = suggestions(done.stdout)
    data = json.loads((tmp_path / "r.json").read_text())
    cpu = [s["server_cpu_seconds_per_gib"] for s in data["summaries"] if s["case_id"].startswith("cipher:")]
    assert cpu and all(c is not None for c in cpu), "Dropbear's per-connection process found by its role"
    assert "server dropbear" in done.stdout  # the limit line names the server's process, not "sshd"
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
    doc = json.loads(done.stdout)
    # Debian's Dropbear 2022.83 still offers SHA-1 MACs and group14-sha1: weak, not broken
    assert done.returncode == ExitCode.OFFERS_WEAK and doc["verdict"]["severity"] == "weak", done.stderr
    assert any("hmac-sha1" in line for line in doc["verdict"]["findings"])
    assert "dropbear_2022.83" in doc["server"]
    offered = {row["name"] for row in doc["algorithms"] if row["server"] and row["kind"] == "cipher"}
    assert "aes128-ctr" in offered and "aes128-gcm@openssh.com" not in offered
    assert doc["terrapin"]["server"]["strict_kex"] is True  # Debian's backport
    table = sshbench("algos", "db", "--ssh-config", str(dropbear))
    assert table.returncode == ExitCode.OFFERS_WEAK
    assert "dropbear_2022.83" in table.stdout and "Terrapin" in table.stdout
    assert sshbench("algos", "db", "--ssh-config", str(dropbear), "--fail-on", "broken").returncode == ExitCode.OK
    gone = sshbench("algos", "nosuchhost.invalid")
    assert gone.returncode == ExitCode.SERVER and len(gone.stderr.strip().splitlines()) == 1


def test_host_keys_the_user_never_accepted_are_skipped_not_attempted(dropbear: Path, tmp_path: Path) -> None:
    """A known_hosts with only the ed25519 key: the RSA algorithms are skipped, with how to add the key."""
    config = dropbear.read_text()
    known = Path(next(line.split()[1] for line in config.splitlines() if "UserKnownHostsFile" in line))
    only_ed25519 = tmp_path / "known_hosts"
    only_ed25519.write_text("".join(line + "\n" for line in known.read_text().splitlines() if " ssh-ed25519 " in line))
    narrowed = tmp_path / "config"
    narrowed.write_text(config.replace(str(known), str(only_ed25519)))
    out = tmp_path / "r.json"
    done = sshbench("run", "db", "--ssh-config", str(narrowed), "--ciphers", "none", "--macs", "none", "--kex",
                    "none", "--hostkeys", "all", "--runs", "2", "--setup-runs", "2", "--output", str(out))
    assert done.returncode == ExitCode.OK, done.stderr[-1500:]
    cases = {c["case"]["hostkey"]: c for c in json.loads(out.read_text())["cases"] if c["case"]["hostkey"]}
    assert cases["ssh-ed25519"]["status"] == "measured"
    rsa = [name for name in cases if name in ("rsa-sha2-256", "rsa-sha2-512", "ssh-rsa")]
    assert rsa, "Dropbear 2022.83 offers RSA host key algorithms"
    for name in rsa:
        assert cases[name]["status"] == "skipped" and "ssh-keyscan -t rsa" in cases[name]["reason"], cases[name]


def test_a_default_scope_run_against_tinysshd_skips_what_it_lacks(tinysshd: Path, tmp_path: Path) -> None:
    """tinysshd 20230101: AEAD only (no MAC sweep possible), no compression; nothing fails, reasons recorded."""
    out = tmp_path / "r.json"
    done = sshbench("run", "ty", "--ssh-config", str(tinysshd), "--ciphers", "all", "--macs", "all", "--kex", "all",
                    "--hostkeys", "all", "--runs", "2", "--setup-runs", "2", "--size", "8MiB", "--output", str(out))
    assert done.returncode == ExitCode.OK, done.stderr[-1500:]
    data = json.loads(out.read_text())
    assert not [c for c in data["cases"] if c["status"] == "failed"]
    macs = [c for c in data["cases"] if c["case"]["kind"] == "mac"]
    assert macs and all(c["status"] == "skipped" and "no non-AEAD cipher" in c["reason"] for c in macs)
    assert data["environment"]["server"]["version"] == "tinyssh_20230101-1", "no random banner comment"
    assert len({s["negotiated"]["server_version"] for s in data["samples"] if s["negotiated"]}) == 1
    cpu = [s["server_cpu_seconds_per_gib"] for s in data["summaries"] if s["case_id"].startswith("cipher:")]
    assert cpu and all(c is not None for c in cpu)
    refused = sshbench("run", "ty", "--ssh-config", str(tinysshd), "--compression", "--ciphers", "all", "--runs",
                       "2", "--output", str(tmp_path / "c.json"))
    assert refused.returncode == ExitCode.OK, refused.stderr[-1500:]  # the handshakes are measured; not the rest
    compressed = [c for c in json.loads((tmp_path / "c.json").read_text())["cases"] if c["case"]["kind"] == "cipher"]
    assert compressed and all(c["status"] == "skipped" and "offers no compression (only none)" in c["reason"]
                              for c in compressed)
