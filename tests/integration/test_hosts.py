"""Several hosts in one run: two stand-in servers with different offers, measured one after another into one
results file, then re-rendered, compared and turned into one Host block per host."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import free_port, sshbench, standin_block

ALPHA = ("aes128-ctr", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com")
BETA = ("aes128-ctr", "chacha20-poly1305@openssh.com")
ONLY = ["--ciphers", ",".join(ALPHA), "--macs", "none", "--kex", "none", "--hostkeys", "none", "--runs", "2",
        "--size", "8MiB", "--no-controls"]


@pytest.fixture(scope="module")
def two_hosts(client: ClientInfo, tmp_path_factory: pytest.TempPathFactory, module_tmpdir: Path) -> Iterator[Path]:
    """Two independently configured sshds, 'alpha' (three ciphers) and 'beta' (two), and 'down' (nothing)."""
    sup = client.supported

    def offering(ciphers: tuple[str, ...]) -> Any:
        return type(sup)(cipher=ciphers, mac=sup.mac, kex=sup.kex, hostkey=sup.hostkey)

    with EmbeddedOpenSSH(client, enable=offering(ALPHA), admit_all=True) as alpha, \
            EmbeddedOpenSSH(client, enable=offering(BETA), admit_all=True) as beta:  # stand-ins for real sshds
        config = tmp_path_factory.mktemp("userssh") / "config"
        config.write_text("\n".join([standin_block("alpha", alpha), standin_block("beta", beta),
                                     standin_block("down", alpha, port=free_port())]))
        yield config


@pytest.fixture(scope="module")
def multi(two_hosts: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str],
                                                                               dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("res") / "hosts.json"
    done = sshbench("run", "alpha", "beta", "--ssh-config", str(two_hosts), *ONLY, "--max-bytes", "400MiB",
                    "--output", str(out))
    return done, json.loads(out.read_text()) if out.exists() else {}, out


def test_one_file_holds_each_host_with_its_own_offer(multi: Any) -> None:
    done, data, _ = multi
    assert done.returncode == 0, done.stderr
    assert data["schema"] == "sshbench/hosts" and data["hosts"] == ["alpha", "beta"]
    alpha, beta = data["runs"]
    assert alpha["environment"]["server"]["remote"]["destination"] == "alpha"
    assert set(beta["environment"]["algorithms"]["server_enabled"]["cipher"]) == set(BETA)
    status = {c["case"]["id"]: (c["status"], c["reason"]) for c in beta["cases"]}
    assert status["cipher:aes256-gcm@openssh.com:upload"] == ("skipped", "not offered by the server")
    for run, offered in ((alpha, ALPHA), (beta, BETA)):
        measured = {s["case_id"] for s in run["samples"] if s["ok"] and not s["warmup"]}
        assert measured == {f"cipher:{c}:{d}" for c in offered for d in ("upload", "download")}
        assert all(s["server_cpu_data_seconds"] is not None for s in run["samples"] if s["ok"])


def test_hosts_are_measured_one_after_another(multi: Any) -> None:
    _, data, _ = multi
    alpha, beta = data["runs"]
    assert max(s["started_at"] for s in alpha["samples"]) <= alpha["finished_at"] <= beta["started_at"]
    assert beta["started_at"] <= min(s["started_at"] for s in beta["samples"])


def test_byte_cap_holds_for_the_whole_run(multi: Any) -> None:
    _, data, _ = multi
    sent = sum(s["size_bytes"] for run in data["runs"] for s in run["samples"])  # --no-controls: no ceilings
    assert sent <= 400 * 2**20
    assert data["runs"][0]["options"]["max_bytes"] == 200 * 2**20, "the first host gets its share, not all of it"


def test_terminal_shows_each_host_and_the_hosts_side_by_side(multi: Any) -> None:
    done, _, _ = multi
    for text in ("host alpha", "host beta", "All hosts", "Cipher x host, upload", "Cipher x host, download",
                 "not offered", "sshbench compare", "--normalize"):
        assert text in done.stdout, text
    for host in ("alpha", "beta"):  # a block per host, or a line saying it has nothing proven to change
        assert f"Host {host}\n" in done.stdout or f"nothing to add for Host {host}" in done.stdout, host


def test_csv_has_a_host_column(multi: Any) -> None:
    _, data, out = multi
    with open(out.with_suffix(".csv"), encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["host"] for r in rows} == {"alpha", "beta"}
    assert len(rows) == sum(len(run["samples"]) for run in data["runs"])


def test_compare_normalizes_hosts_within_one_file(multi: Any) -> None:
    _, _, out = multi
    done = sshbench("compare", str(out), "--normalize", "aes128-ctr")
    assert done.returncode == 0, done.stderr
    assert f"{out} [beta] against {out} [alpha]" in " ".join(done.stdout.split())
    assert "cipher:chacha20-poly1305@openssh.com:upload" in done.stdout


def test_report_renders_every_format_for_several_hosts(multi: Any, tmp_path: Path) -> None:
    _, _, out = multi
    done = sshbench("report", str(out), "--markdown", "-", "--html", str(tmp_path / "r.html"),
                    "--charts", str(tmp_path / "charts"))
    assert done.returncode == 0, done.stderr
    assert "# sshbench: 2 hosts" in done.stdout and "## host alpha" in done.stdout and "## host beta" in done.stdout
    assert "### Cipher x host, upload" in done.stdout
    page = (tmp_path / "r.html").read_text()
    assert 'id="host-alpha"' in page and 'id="host-beta"' in page and 'id="chart-hosts-ciphers"' in page
    assert (tmp_path / "charts" / "hosts-ciphers.png").stat().st_size > 1000
    assert (tmp_path / "charts" / "beta" / "ciphers-throughput.svg").exists()


def test_recommend_writes_a_host_block_per_host_and_a_dropin_per_server(multi: Any, tmp_path: Path) -> None:
    _, _, out = multi
    done = sshbench("recommend", str(out), "--write", str(tmp_path))
    assert done.returncode == 0, done.stderr
    client = (tmp_path / "ssh_config.sshbench").read_text()
    assert all(f"Host {h}\n" in client or f"nothing to add for Host {h}" in client for h in ("alpha", "beta"))
    assert (tmp_path / "50-sshbench.alpha.conf").exists() and (tmp_path / "50-sshbench.beta.conf").exists()
    refused = sshbench("recommend", str(out), "--host", "x")
    assert refused.returncode == ExitCode.USAGE and "single-host" in refused.stderr


def test_an_unreachable_host_stops_the_run_before_anything_is_measured(two_hosts: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("run", "alpha", "down", "--ssh-config", str(two_hosts), *ONLY, "--output", str(out))
    assert done.returncode == ExitCode.SERVER, done.stderr
    assert "down" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists(), "nothing measured, nothing written"


def test_a_host_named_twice_is_refused(two_hosts: Path) -> None:
    done = sshbench("run", "alpha", "alpha", "--ssh-config", str(two_hosts), *ONLY)
    assert done.returncode == ExitCode.USAGE and "named twice" in done.stderr


def test_ctrl_c_on_the_second_host_keeps_the_first_complete(two_hosts: Path, tmp_path: Path) -> None:
    out = tmp_path / "int.json"
    proc = subprocess.Popen([sys.executable, "-m", "sshbench", "run", "alpha", "beta", "--ssh-config", str(two_hosts),
                             *ONLY[:8], "--size", "64MiB", "--runs", "200", "--time-budget", "1m",
                             "--no-controls", "--output", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # 30 s a host: the second host's warm-up fits that on a busy machine (at 10 s a host it did not beside two CPU
    # hogs, and the run ended before the interrupt); the wait is for the state, bounded, and fails naming it
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        data = json.loads(out.read_text()) if out.exists() else {}
        if len(data.get("runs", [])) == 2 and data["runs"][1]["samples"]:
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail(f"the second host's first sample never came while the run lived: {proc.communicate()[1][-500:]}")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED, err
    data = json.loads(out.read_text())
    assert data["hosts"] == ["alpha", "beta"]
    assert data["runs"][0]["status"] == "complete" and "time budget" in data["runs"][0]["stop_reason"]
    assert data["runs"][1]["status"] == "interrupted"
    assert data["runs"][1]["samples"] and "Traceback" not in err
