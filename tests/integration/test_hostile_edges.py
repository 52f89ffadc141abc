"""The last bad inputs that hung, crashed or lied: each now one clear line, or the obvious behaviour.

A build prefix whose ssh lists 100,000 names, a client recording nested
100,000 deep, a machine with no writable temp dir, a closed stdout pipe, a
fleet directory holding a directory named *.json, and a Dropbear server
killed in the middle of a sample. Real programs throughout.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sshbench.vocabulary.errors import ExitCode
from tests.conftest import DATA
from tests.integration.cli_helpers import sshbench
from tests.integration.processes import ALGOS, ROOT, as_nobody, descendants, nobody_env, start, wait_for_samples
from tests.integration.test_hostile import ONE_CASE, assert_nothing_left, assert_one_clean_line

pytestmark = pytest.mark.integration


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    path = tmp_path / "cwd"
    path.mkdir()
    return path


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def test_a_build_whose_ssh_lists_100000_names_is_refused_at_once(cwd: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "prefix"
    _script(prefix / "bin" / "ssh", 'case "$1" in -V) echo "OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15" >&2;; '
                                    '-Q) seq -f "fake%g-cipher" 100000;; *) exit 1;; esac\n')
    (prefix / "sbin").mkdir()
    os.symlink(shutil.which("sshd") or "/usr/sbin/sshd", prefix / "sbin" / "sshd")
    started = time.monotonic()
    done = sshbench("--build", str(prefix), *ONE_CASE, "--runs", "1", cwd=cwd, timeout=120)
    assert_one_clean_line(done, ExitCode.MISSING_TOOL, "listed 100,000 names")
    assert time.monotonic() - started < 60
    assert_nothing_left(cwd)


def test_a_client_recording_nested_100000_deep_is_a_usage_error(cwd: Path) -> None:
    deep = cwd / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    done = sshbench("recommend", str(DATA / "results-small.json"), "--clients", str(deep), cwd=cwd)
    assert_one_clean_line(done, ExitCode.USAGE, "nested too deeply")


@pytest.mark.skipif(not ROOT or not shutil.which("unshare") or not os.path.exists("/usr/bin/python3"),
                    reason="a machine without a writable temp dir is made with a mount namespace (root)")
def test_no_writable_temp_dir_is_named_in_one_line(tmp_path: Path) -> None:
    """/tmp and /var/tmp read-only (a private mount namespace), TMPDIR unset, the working dir not writable."""
    env = {k: v for k, v in nobody_env(tmp_path).items() if k != "TMPDIR"}
    # the checkout (and its venv) may live under /tmp, which the mounts hide: its directories are opened first
    # and reached through the descriptors (/proc/self/fd/N follows the open file, not its hidden path)
    paths = env.pop("PYTHONPATH").split(":")
    opened = " ".join(f"{3 + i}< {shlex.quote(p)}" for i, p in enumerate(paths))
    env["PYTHONPATH"] = ":".join(f"/proc/self/fd/{3 + i}" for i in range(len(paths)))
    inner = shlex.join(as_nobody(["/usr/bin/python3", "-m", "sshbench", "algos"]))
    script = (f"exec {opened}; mount -t tmpfs -o ro,size=1m none /tmp && mount -t tmpfs -o ro,size=1m none "
              f"/var/tmp && cd / && exec {inner}")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert_one_clean_line(done, ExitCode.OUTPUT, "no usable temp dir")
    assert "set TMPDIR" in done.stderr


def _piped_into_head(argv: list[str], cwd: Path, lines: int = 1) -> tuple[int, str, str]:
    """`sshbench ... | head -N` as a shell runs it: (sshbench's exit code, what head printed, its stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "sshbench", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env={**os.environ}, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    head = [proc.stdout.readline() for _ in range(lines)]
    proc.stdout.close()  # the reader goes away, as head does
    err = proc.stderr.read()
    return proc.wait(timeout=300), "".join(head), err


def test_a_closed_stdout_after_a_complete_run_is_its_own_exit_code(cwd: Path) -> None:
    code, head, err = _piped_into_head([*ONE_CASE, "--runs", "2", "--size", "2MiB", "--output", "r.json"], cwd)
    assert code == ExitCode.OK, err
    assert head.startswith("The answer")
    assert "Traceback" not in err and "internal error" not in err
    assert json.loads((cwd / "r.json").read_text())["status"] == "complete"


def test_a_closed_stdout_while_measuring_stops_the_run_quietly_and_keeps_it(cwd: Path) -> None:
    args = ["--ciphers", "aes128-ctr,aes256-ctr", *ALGOS, "--no-controls", "--runs", "30", "--size", "32MiB",
            "--directions", "upload", "--jsonl", "--output", "r.json"]
    started = time.monotonic()
    code, head, err = _piped_into_head(args, cwd, lines=2)
    assert code == ExitCode.OUTPUT_CLOSED, err
    assert time.monotonic() - started < 60, "it stopped instead of measuring for nobody"
    assert json.loads(head.splitlines()[0])["event"] == "started"
    assert err.strip() == "" or "Traceback" not in err
    data = json.loads((cwd / "r.json").read_text())
    assert data["status"] == "interrupted" and data["samples"]


@pytest.mark.parametrize("command", [["report", str(DATA / "results-small.json")],
                                     ["compare", str(DATA / "results-small.json"), str(DATA / "results-small.json")],
                                     ["clients", "list"]])
def test_a_closed_stdout_of_a_command_that_only_renders_is_quiet(command: list[str], cwd: Path) -> None:
    code, head, err = _piped_into_head(command, cwd)
    assert code == ExitCode.OK, err
    assert head and "Traceback" not in err and "internal error" not in err


def test_a_fleet_directory_holding_a_directory_named_json_reads_the_files(cwd: Path) -> None:
    fleet = cwd / "fleet"
    (fleet / "trap.json").mkdir(parents=True)
    shutil.copy(DATA / "results-small.json", fleet / "one.json")
    done = sshbench("report", str(fleet), cwd=cwd)
    assert done.returncode == 0, done.stderr
    done = sshbench("report", str(fleet / "trap.json"), cwd=cwd)
    assert_one_clean_line(done, ExitCode.USAGE, "no results files")


def test_placement_with_a_real_host_is_refused(cwd: Path) -> None:
    done = sshbench("web1.invalid", "--placement", "free", *ONE_CASE, cwd=cwd)
    assert_one_clean_line(done, ExitCode.USAGE, "--placement splits this machine's CPUs")


def _argv0(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:  # it ended meanwhile
        return b""


SERVER_PROCESS = {"openssh": b"sshd", "dropbear": b"dropbear", "tinysshd": b"tinysshd"}


@pytest.mark.parametrize(("server", "direction"), [("dropbear", "upload"), ("dropbear", "download"),
                                                   ("openssh", "upload"), ("tinysshd", "download")])
def test_a_server_killed_mid_sample_fails_that_sample_at_once_even_beside_a_cpu_hog(server: str, direction: str,
                                                                                    tmp_path: Path) -> None:
    """Whatever dies, no wait outlives the sample: a killed server fails its sample within seconds (the
    connection's watch sees its process gone), not at the timeout (240 s once, on a loaded machine)."""
    if server == "tinysshd" and not ROOT:
        pytest.skip("the embedded tinysshd needs root")
    args = ["--server", server, "--ciphers", "aes128-ctr" if server != "tinysshd" else "default", *ALGOS,
            "--no-controls", "--runs", "3", "--size", "96MiB", "--directions", direction]  # seconds a sample, hogged
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(os.cpu_count() or 1)]
    run = start(args, tmp_path)
    try:
        wait_for_samples(run, tmp_path / "r.json", 1)
        deadline = time.monotonic() + 30
        victim = None
        while victim is None and time.monotonic() < deadline:
            victim = next((p for p in descendants(run.pid) if SERVER_PROCESS[server] in _argv0(p)), None)
            time.sleep(0.02)
        assert victim is not None, f"no {server} serving a sample"
        os.kill(victim, signal.SIGKILL)
        killed = time.monotonic()
        _, err = run.communicate(timeout=300)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
        if run.poll() is None:
            run.kill()
            run.wait()
    data = json.loads((tmp_path / "r.json").read_text())
    failed = [s for s in data["samples"] if not s["ok"]]
    assert run.returncode == ExitCode.SAMPLES_FAILED, err
    assert data["status"] == "complete" and len(failed) == 1, [s["error"] for s in failed]
    assert failed[0]["total_seconds"] < 120, failed[0]
    assert time.monotonic() - killed < 240
    assert sum(s["ok"] and not s["warmup"] for s in data["samples"]) >= 2, "the samples after it were measured"


def test_a_verdict_already_reached_is_the_exit_code_when_the_reader_leaves(cwd: Path) -> None:
    """`compare ... --fail-above 5% | head -1` under pipefail: the regression is exit 7 whether or not head read
    on (it was 0); the same for algos' verdict and recommend's."""
    # two cases of six samples each (over all 28, Bonferroni leaves 6 vs 6 no significance to reach)
    keep = {"cipher:aes128-ctr:upload", "cipher:aes128-gcm@openssh.com:upload"}
    base = json.loads((DATA / "results-small.json").read_text())
    base["cases"] = [r for r in base["cases"] if r["case"]["id"] in keep]
    base["samples"] = [s for s in base["samples"] if s["case_id"] in keep]
    base["summaries"] = [s for s in base["summaries"] if s["case_id"] in keep]
    (cwd / "base.json").write_text(json.dumps(base))
    for sample in base["samples"]:
        for key in ("data_seconds", "total_seconds", "steady_seconds"):  # every timing basis twice as slow
            if sample.get(key):
                sample[key] *= 2
    (cwd / "slower.json").write_text(json.dumps(base))
    command = ["compare", str(cwd / "base.json"), str(cwd / "slower.json"), "--fail-above", "5%"]
    whole = sshbench(*command, cwd=cwd)
    assert whole.returncode == ExitCode.REGRESSION, whole.stderr
    code, head, err = _piped_into_head(command, cwd)
    assert code == ExitCode.REGRESSION and head, err
    code, head, err = _piped_into_head([*command, "--json"], cwd)
    assert code == ExitCode.REGRESSION and head.startswith("{"), err
