"""Short commands (--commands, --reuse) end to end against the embedded OpenSSH server: each command run over a
fresh connection, and as a session over sshbench's own ControlMaster, from ssh's start to its exit, its output
checked, its phases summing to its figure, reuse judged against fresh, shown in the terminal and in `report
--json` (validated by its schema); the master gone with the run; a name sshbench does not know is one clean
line."""

from __future__ import annotations

import json
import os
import shutil
from importlib import resources
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs
import pytest

from sshbench.analysis.connections.phases import split
from sshbench.results.store import read_results
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from tests.integration.cli_helpers import sshbench
from tests.integration.test_hostile import assert_one_clean_line
from tests.integration.test_remote import standin  # noqa: F401  # the stand-in real host, its fixture

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    cwd = tmp_path_factory.mktemp("commands")
    done = sshbench("--commands", "all", "--reuse", "fresh,reused", "--compression", "off,ssh,zstd",
                    "--setup-runs", "2", "--runs", "1", "--output", str(cwd / "r.json"), cwd=cwd, tmpdir=cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    return cwd / "r.json", done.stdout


def test_each_command_is_its_own_case_and_nothing_else_is_measured(run: tuple[Path, str]) -> None:
    path, _ = run
    data = json.loads(path.read_text())
    measured = [r["case"]["id"] for r in data["cases"] if r["status"] == "measured"]
    assert measured == [f"command:{n}:setup{c}{r}" for n in ("true", "output", "input") for c in ("", "~ssh")
                        for r in ("", "+reused")]
    skipped = [r for r in data["cases"] if r["status"] == "skipped"]  # an external compressor wraps transfers
    assert len(skipped) == 6 and all("a short command takes SSH's own only" in r["reason"] for r in skipped)
    assert data["options"]["commands"] == ["true", "output", "input"]  # --commands alone: no other sweep
    assert data["options"]["dims"] == [["reuse", ["fresh", "reused"]]]
    assert {s["group"] for s in data["summaries"]} == set(measured)  # each ranked only against itself ...
    assert not [p for p in path.parent.iterdir() if p.name.startswith("sshbench-mux-")]  # the master's dir gone


def test_every_sample_runs_its_command_to_the_exit_and_its_phases_sum_to_that(run: tuple[Path, str]) -> None:
    path, _ = run
    (report,) = read_results(str(path))
    samples = [s for s in report.samples if not s.warmup]
    assert len(samples) == 24 and all(s.ok for s in samples), [s.error for s in samples]
    for sample in samples:
        reused = sample.case_id.endswith("+reused")
        assert sample.command_seconds is not None and sample.setup_seconds is not None
        assert 0 < sample.setup_seconds < sample.command_seconds <= (sample.total_seconds or 0)
        parts = split(sample)
        assert parts is not None and parts[-1].name == "exit"
        assert sum(p.seconds for p in parts) == pytest.approx(sample.command_seconds, abs=1e-9)
        assert sample.negotiated is not None and sample.negotiated.kex  # fresh: its own; reused: its master's
        zlib = "zlib@openssh.com" if "~ssh" in sample.case_id else "none"  # -C proven, on its master too
        assert sample.negotiated.compression_c2s == zlib, sample.case_id
        # fresh: a key exchange phase of its own; reused: none (its marks absent, merged into the command's start)
        assert [p.name for p in parts].count("kex") == (0 if reused else 1)
        assert (sample.server_cpu_user_seconds is None) == reused  # fresh: its server process, matched by port
    outputs = {s.case_id: s.bytes_received for s in samples}
    assert outputs["command:output:setup"] == outputs["command:output:setup+reused"] == 16 * 1024
    assert outputs["command:true:setup"] == 0


def test_the_terminal_and_report_json_show_the_time_to_exit_and_where_it_went(run: tuple[Path, str]) -> None:
    path, stdout = run
    assert stdout.startswith("What a short command costs\n")  # the answer first
    assert "Short commands: ssh started to ssh exited" in stdout and "through a ControlMaster" in stdout
    assert "ssh HOST true: the connection alone" in stdout and "Where the time goes" in stdout
    done = sshbench("report", str(path), "--json", cwd=path.parent, tmpdir=path.parent)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    jsonschema.validate(document, json.loads((resources.files("sshbench.schemas") / "report.schema.json")
                                             .read_text()))
    (found,) = document["runs"]
    commands = {c["case_id"]: c for c in found["commands"]}
    assert commands["command:true:setup"]["versus_fresh"] is None
    versus = commands["command:true:setup+reused"]["versus_fresh"]
    assert versus is not None and versus["relation"] in ("different", "unsettled", "equivalent")
    phases = {p["case_id"]: p for p in found["setup_phases"]}
    true = phases["command:true:setup"]
    assert [p["name"] for p in true["phases"]][-1] == "exit"
    assert sum(p["seconds"] for p in true["phases"]) == pytest.approx(true["total_seconds"], abs=1e-9)


def test_a_command_sshbench_does_not_know_is_one_clean_line(tmp_path: Path) -> None:
    done = sshbench("--commands", "true,rm -rf", cwd=tmp_path, tmpdir=tmp_path)
    assert_one_clean_line(done, 2, "--commands rm -rf: not a short command sshbench knows")


def test_a_real_host_through_the_user_s_own_config_whose_controlmaster_never_makes_fresh_samples_reused(
        standin: tuple[Path, EmbeddedOpenSSH], tmp_path: Path) -> None:  # noqa: F811  # the fixture
    """A host sshbench did not start (a second sshd, reached through a user's ssh config that asks for
    ControlMaster auto with ControlPersist): fresh samples get a connection of their own each (their own key
    exchange in their own ssh -v), reused ones go through sshbench's master, and no master of the user's
    config is left behind (ControlPersist would have kept one for 10 minutes)."""
    config, _ = standin
    user_sockets = tmp_path / "cm"
    user_sockets.mkdir(mode=0o700)
    muxed = tmp_path / "config"
    muxed.write_text(f"Host standin\n  ControlMaster auto\n  ControlPath {user_sockets}/%C\n  ControlPersist 600\n"
                     + config.read_text())
    out = tmp_path / "r.json"
    done = sshbench("run", "standin", "--ssh-config", str(muxed), "--commands", "true", "--reuse", "fresh,reused",
                    "--setup-runs", "2", "--runs", "1", "--output", str(out), cwd=tmp_path, tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    (report,) = read_results(str(out))
    samples = [s for s in report.samples if not s.warmup]
    assert samples and all(s.ok for s in samples), [s.error for s in samples]
    fresh = [s for s in samples if not s.case_id.endswith("+reused")]
    assert fresh and all("kex" in [p.name for p in split(s) or ()] for s in fresh)  # each its own key exchange
    assert list(user_sockets.iterdir()) == []  # the user's ControlMaster was never started
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sshbench-mux-")]  # ours is gone too
    assert "What a short command costs" in done.stdout


# --slow-login: the marks the wait sits between, and the words the run names it with
STALLS = {"dns": ("service_accepted", "methods_listed", "reverse DNS"),  # the server's first answer
          "gssapi": ("methods_listed", "key_accepted", "GSSAPI")}  # the client's method tried first


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
@pytest.mark.parametrize("stall", sorted(STALLS))
def test_a_resolver_that_never_answers_lands_where_it_waits_and_is_named(stall: str, tmp_path: Path) -> None:
    """--slow-login: a real sshd with UseDNS yes whose resolver (sshbench's, in the sshd's own mount namespace)
    never answers waits before the server's first authentication answer, and the run names reverse DNS; a
    client that tries GSSAPI first, its Kerberos lookups unanswered, waits between the methods, named GSSAPI.
    The system's resolver files are untouched and no mount is left."""
    system = (Path("/etc/resolv.conf").read_bytes(), Path("/etc/hosts").read_bytes())
    out = tmp_path / "r.json"
    done = sshbench("--commands", "true", "--slow-login", stall, "--setup-runs", "1", "--runs", "1",
                    "--output", str(out), cwd=tmp_path, tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    (report,) = read_results(str(out))
    after, before, words = STALLS[stall]
    for sample in (s for s in report.samples if not s.warmup):
        parts = {p.name: p.seconds for p in split(sample) or ()}
        # the wait is in auth, whatever the rest took (beside two CPU hogs kex alone took 0.49 s, and auth's 2.37 s
        # was 75% of the login, not the 80% this once asked): auth holds it and is the longest phase
        assert parts["auth"] >= 1.5 and parts["auth"] == max(parts.values()), parts
        assert sample.phases[before] - sample.phases[after] >= 1.5, sample.phases
    assert "stalled: command true: auth took" in done.stdout and words in done.stdout
    assert (Path("/etc/resolv.conf").read_bytes(), Path("/etc/hosts").read_bytes()) == system
    assert str(tmp_path) not in Path("/proc/self/mountinfo").read_text()


def test_a_slow_login_is_the_embedded_openssh_server_s_only(tmp_path: Path) -> None:
    done = sshbench("--commands", "true", "--slow-login", "dns", "--server", "dropbear", cwd=tmp_path,
                    tmpdir=tmp_path)
    assert_one_clean_line(done, 2, "--slow-login dns: reproduced in the embedded OpenSSH server only")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the listening sshd runs in a namespace of its own")
def test_logins_per_second_against_a_listening_sshd_count_every_login_and_leave_nothing(tmp_path: Path) -> None:
    """--logins: the embedded server's config as a real listening sshd in sshbench's own namespace, loaded by 1
    and 4 parallel clients: every login counted (completed, refused or failed), each side's CPU, the table; the
    sshd and its namespace gone afterwards."""
    before = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
    out = tmp_path / "r.json"
    done = sshbench("--logins", "1,4", "--logins-seconds", "1.5", "--setup-runs", "1", "--runs", "1",
                    "--output", str(out), cwd=tmp_path, tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(out.read_text())
    assert [r["case"]["id"] for r in data["cases"]] == ["command:true:setup"]  # --logins alone: one login's phases
    stages = data["logins"]
    assert [s["clients"] for s in stages] == [1, 4]
    for stage in stages:
        assert stage["completed"] >= 1 and stage["failed"] == 0, stage
        assert len(stage["latency_seconds"]) == stage["completed"] and stage["seconds"] >= 1.5
        assert stage["server_cpu_seconds"] > 0 and stage["client_cpu_seconds"] > 0
        assert stage["negotiated"]  # the key exchange the logins used, from their own ssh -v
    assert "Logins per second: parallel clients against a listening sshd" in done.stdout
    after = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
    assert after <= before  # its namespace removed
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sshbench-logins-")]


def test_logins_never_load_a_real_host(tmp_path: Path) -> None:
    done = sshbench("example.invalid", "--logins", "1,4", cwd=tmp_path, tmpdir=tmp_path)
    assert_one_clean_line(done, 2, "--logins loads sshbench's own OpenSSH server")


def test_each_user_key_type_logs_in_with_that_key_made_in_the_server_s_own_dir(tmp_path: Path) -> None:
    """--user-keys: the embedded server makes and authorizes an ECDSA key on first use; its samples prove the
    server accepted that type (ssh -v), the ed25519 ones theirs; nothing of the user's own keys is read."""
    out = tmp_path / "r.json"
    done = sshbench("--commands", "true", "--user-keys", "ed25519,ecdsa", "--setup-runs", "1", "--runs", "1",
                    "--output", str(out), cwd=tmp_path, tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    (report,) = read_results(str(out))
    samples = [s for s in report.samples if not s.warmup]
    assert samples and all(s.ok for s in samples), [s.error for s in samples]
    accepted = {s.case_id: s.negotiated.userkey for s in samples if s.negotiated is not None}
    assert accepted == {"command:true:setup": "ED25519", "command:true:setup=ecdsa": "ECDSA"}
    assert "ECDSA P-256 key" in done.stdout


@pytest.mark.skipif(shutil.which("dropbear") is None, reason="needs dropbear (dropbear-bin)")
def test_dropbear_logs_in_with_each_user_key_type_authorized_in_its_private_home(tmp_path: Path) -> None:
    """--user-keys with --server dropbear: the ECDSA and RSA-3072 keys are made in the server's private dir and
    authorized in the home its connections see, and each sample proves the type Dropbear accepted (it failed
    every rsa3072 sample, "not sshbench's to choose", after measuring them)."""
    out = tmp_path / "r.json"
    done = sshbench("--server", "dropbear", "--commands", "true", "--user-keys", "ed25519,ecdsa,rsa3072",
                    "--setup-runs", "1", "--runs", "1", "--output", str(out), cwd=tmp_path, tmpdir=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    (report,) = read_results(str(out))
    samples = [s for s in report.samples if not s.warmup]
    assert samples and all(s.ok for s in samples), [s.error for s in samples]
    accepted = {s.case_id: s.negotiated.userkey for s in samples if s.negotiated is not None}
    assert accepted == {"command:true:setup": "ED25519", "command:true:setup=ecdsa": "ECDSA",
                        "command:true:setup=rsa3072": "RSA"}
