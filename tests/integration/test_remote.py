"""`sshbench run HOST` against a stand-in for a real server: a second, differently configured sshd on
loopback, reached only through a generated ssh config alias (no fdpass helper, no embedded config)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.errors import ExitCode
from tests.conftest import temp_entries
from tests.integration.cli_helpers import free_port, sshbench, standin_block, wait_listening

OFFERED_CIPHERS = ("aes128-ctr", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com")


@pytest.fixture(scope="module")
def standin(client: ClientInfo, tmp_path_factory: pytest.TempPathFactory,
            module_tmpdir: Path) -> Iterator[tuple[Path, EmbeddedOpenSSH]]:
    """An sshd offering only three ciphers, and an ssh config that names it 'standin'."""
    sup = client.supported
    enable = type(sup)(cipher=OFFERED_CIPHERS, mac=sup.mac, kex=sup.kex, hostkey=sup.hostkey)
    with EmbeddedOpenSSH(client, enable=enable, admit_all=True) as srv:  # a stand-in for a real sshd
        assert srv.dir is not None
        config = tmp_path_factory.mktemp("userssh") / "config"
        config.write_text(standin_block("standin", srv) + f"""
Host stranger
  HostName 127.0.0.1
  Port {srv.port}
  User {srv.user}
  IdentityFile {srv.dir}/client_ed25519
  UserKnownHostsFile /dev/null
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
""")
        yield config, srv


ONLY = ["--macs", "none", "--kex", "curve25519-sha256", "--hostkeys", "none", "--runs", "2", "--size", "8MiB"]


@pytest.fixture(scope="module")
def remote_run(standin: tuple[Path, EmbeddedOpenSSH], tmp_path_factory: pytest.TempPathFactory,
               ) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], int]:
    config, _ = standin
    out = tmp_path_factory.mktemp("res") / "remote.json"
    port = free_port()  # iperf3's own 5201 may be another test's, or anyone's, on a shared machine
    done = sshbench("run", "standin", "--ssh-config", str(config), "--ciphers", "all,3des-cbc", *ONLY,
                    "--iperf3-port", str(port), "--output", str(out))
    return done, json.loads(out.read_text()) if out.exists() else {}, port


def test_remote_run_produces_tables_results_and_recommendation(remote_run: Any) -> None:
    done, data, _ = remote_run
    assert done.returncode == 0, done.stderr
    for text in ("Ciphers, upload", "Ciphers, download", "Key exchange", "Terrapin", "Recommended client config"):
        assert text in done.stdout, text
    rec = data["recommendation"]
    assert rec is not None and "Host *" not in rec["client_block"], "the block is for that host, not Host *"
    assert "Host standin\n" in rec["client_block"] or "nothing to add for Host standin" in rec["client_block"]
    assert any(line.startswith("Ciphers: now ") for line in rec["prediction"]) or \
        "Ciphers: not set in this block" in rec["client_block"], "a change proven, or why none is written"


def test_server_offer_banner_and_terrapin_are_recorded(remote_run: Any) -> None:
    _, data, _ = remote_run
    assert data["environment"]["server"]["kind"] == "remote"
    server = data["environment"]["server"]["remote"]
    assert server["destination"] == "standin"
    assert server["banner"].startswith("SSH-2.0-OpenSSH_") and server["system"] == "Linux"
    assert server["round_trip_seconds"] is not None and server["round_trip_seconds"] < 0.1
    assert data["environment"]["terrapin"]["server"]["strict_kex"] is True
    assert set(data["environment"]["algorithms"]["server_enabled"]["cipher"]) == set(OFFERED_CIPHERS)


@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 not installed (scripts/install-deps --test)")
def test_raw_tcp_ceiling_from_iperf3_when_both_ends_have_it(remote_run: Any) -> None:
    done, data, port = remote_run
    iperf = data["environment"]["server"]["remote"]["iperf3"]
    assert iperf["skipped"] is None, iperf["skipped"]
    assert f"-p {port}" in iperf["command"]
    assert iperf["upload_bytes_per_second"] > 0 and iperf["download_bytes_per_second"] > 0
    assert iperf["bytes_moved"] > 0 and iperf["version"].startswith("iperf 3")
    assert "raw TCP to this host (iperf3" in done.stdout and "ssh carried" in done.stdout
    left = subprocess.run(["pgrep", "-f", f"iperf3 -s -1 -p {port}$"], capture_output=True, text=True,
                          check=False).stdout
    assert left == "", "the server's one-off iperf3 is gone"


@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 not installed (scripts/install-deps --test)")
def test_an_iperf3_port_held_by_another_server_is_named_and_its_figures_are_not_taken(standin: Any,
                                                                                      tmp_path: Path) -> None:
    """Another iperf3 on the port (another user's, another run's) answers our client as if it were ours: its
    figures are refused, the reason names the port and the option, and that server is left alone."""
    config, _ = standin
    port = free_port()
    other = subprocess.Popen(["iperf3", "-s", "-p", str(port)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, other)
        out = tmp_path / "held.json"
        done = sshbench("run", "standin", "--ssh-config", str(config), "--ciphers", "aes128-ctr", *ONLY,
                        "--directions", "upload", "--iperf3-port", str(port), "--output", str(out))
        assert done.returncode == 0, done.stderr
        iperf = json.loads(out.read_text())["environment"]["server"]["remote"]["iperf3"]
        assert f"port {port} is taken" in (iperf["skipped"] or "") and "--iperf3-port" in iperf["skipped"], iperf
        assert iperf["upload_bytes_per_second"] is None, "another server's figure is not this host's"
        assert other.poll() is None, "the other iperf3 is not ours to end"
    finally:
        other.kill()
        other.wait()


def test_only_what_both_sides_support_is_measured_and_the_rest_is_listed(remote_run: Any) -> None:
    _, data, _ = remote_run
    status = {c["case"]["id"]: (c["status"], c["reason"]) for c in data["cases"]}
    assert status["cipher:3des-cbc:upload"] == ("skipped", "not offered by the server")
    measured = {c["case"]["cipher"] for c in data["cases"]
                if c["status"] == "measured" and c["case"]["kind"] == "cipher"}
    assert measured == set(OFFERED_CIPHERS)
    assert not any(c["case"]["kind"] == "control" for c in data["cases"]), "no loopback TCP control for a real host"


def test_both_directions_carry_server_cpu_from_proc(remote_run: Any) -> None:
    _, data, _ = remote_run
    transfers = [s for s in data["samples"] if s["size_bytes"] and s["case_id"].startswith("cipher:")]
    directions = {s["case_id"].rsplit(":", 1)[1] for s in transfers}
    assert directions == {"upload", "download"}
    for s in transfers:
        assert s["ok"], s["error"]
        assert s["server_cpu_user_seconds"] is not None and s["server_cpu_data_seconds"] is not None
        assert s["negotiated"]["cipher_c2s"] in OFFERED_CIPHERS


def test_unknown_host_key_fails_fast_with_advice_instead_of_a_prompt(standin: Any, tmp_path: Path) -> None:
    config, _ = standin
    done = sshbench("run", "stranger", "--ssh-config", str(config), "--ciphers", "aes128-ctr", *ONLY,
                    "--output", str(tmp_path / "x.json"), timeout=60)
    assert done.returncode == ExitCode.SERVER, done.stderr
    assert "Host key verification failed" in done.stderr and "accept the host key" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A server that accepts TCP and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(timeout=2)
    for conn in held:
        conn.close()
    listener.close()


def test_a_server_that_never_answers_times_out(silent_port: int, tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(f"Host silent\n  HostName 127.0.0.1\n  Port {silent_port}\n")
    started = time.monotonic()
    done = sshbench("run", "silent", "--ssh-config", str(config), "--timeout", "4", *ONLY,
                    "--output", str(tmp_path / "x.json"), timeout=60)
    assert done.returncode == ExitCode.SERVER, done.stderr
    assert "silent" in done.stderr and "Traceback" not in done.stderr
    assert time.monotonic() - started < 30


def test_max_bytes_caps_what_is_sent(standin: Any, tmp_path: Path) -> None:
    config, _ = standin
    out = tmp_path / "cap.json"
    done = sshbench("run", "standin", "--ssh-config", str(config), "--ciphers", "aes128-ctr", *ONLY,
                    "--size", "4MiB", "--max-bytes", "20MiB", "--output", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert "byte cap" in (data["stop_reason"] or "")
    assert [s for s in data["samples"] if not s["warmup"] and s["ok"]], "the cap left room for measured samples"
    assert sum(s["size_bytes"] for s in data["samples"] if not s["case_id"].startswith("ceiling:")) <= 20 * 2**20
    assert "--max-bytes" in (data["environment"]["server"]["remote"]["iperf3"]["skipped"] or ""), \
        "iperf3 cannot be capped"


def test_keystroke_echo_on_a_real_host(standin: Any, tmp_path: Path) -> None:
    """--echo through the user's own ssh setup: a pty on the real server, cat echoing each byte."""
    config, _ = standin
    out = tmp_path / "echo.json"
    done = sshbench("run", "standin", "--ssh-config", str(config), "--ciphers", "aes256-gcm@openssh.com", *ONLY,
                    "--directions", "upload", "--size", "4MiB", "--runs", "2", "--echo", "12", "--no-controls",
                    "--output", str(out))
    assert done.returncode == 0, done.stderr
    echoes = {e["cipher"]: e for e in json.loads(out.read_text())["echoes"]}
    echo = echoes["aes256-gcm@openssh.com"]  # beside the client's default, the plain transfer's cipher
    assert echo["ok"] and echo["cipher"] == "aes256-gcm@openssh.com" and len(echo["echo_seconds"]) == 12, echo
    assert 0 < sorted(echo["echo_seconds"])[6] < 0.05, "a loopback echo takes well under 50 ms"
    assert "Keystroke echo round trip" in done.stdout


def test_nothing_is_left_on_the_server_side(standin: Any, remote_run: Any) -> None:
    _, srv = standin
    assert srv.dir is not None
    home = Path(os.path.expanduser("~"))
    recent = [p for p in home.iterdir() if p.stat().st_mtime > time.time() - 600 and p.name.startswith("sshbench")]
    assert recent == []


def _netns_possible() -> bool:
    """Whether this machine lets us make a network namespace. The name is this process's own: with one name for
    all, two xdist workers collecting this module at once raced (one's add failed on the other's namespace) and
    the test was skipped in a CI run that could run it."""
    if os.geteuid() != 0 or not os.path.exists("/usr/sbin/sshd"):
        return False
    name = f"sshbench-probe-{os.getpid()}"
    probe = subprocess.run(["ip", "netns", "add", name], capture_output=True, check=False)
    subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.skipif(not _netns_possible(), reason="needs root and network namespaces")
def test_stock_sshd_in_a_network_namespace(tmp_path: Path) -> None:
    """A daemon-mode sshd with stock algorithms, on its own network stack, as far from our embedded one
    as this machine allows; bench/netns_standin.py builds and removes it."""
    out = tmp_path / "ns.json"
    bench = Path(__file__).parents[2] / "bench" / "netns_standin.py"
    done = subprocess.run([sys.executable, str(bench), "--", "--ciphers", "aes128-ctr", "--macs", "none", "--kex",
                           "none", "--hostkeys", "none", "--runs", "1", "--size", "16MiB", "--no-controls",
                           "--output", str(out)], capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["environment"]["server"]["remote"]["hostname"] == "10.213.77.2"
    samples = [s for s in data["samples"] if not s["warmup"]]
    default = data["environment"]["algorithms"]["client_defaults"]["cipher"][0]  # the plain transfer's cipher
    assert {s["case_id"] for s in samples} == {f"cipher:{c}:{d}" for c in ("aes128-ctr", default)
                                               for d in ("upload", "download")}
    assert all(s["ok"] and s["server_cpu_data_seconds"] is not None for s in samples)
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout
    assert "sshbench-standin" not in namespaces


def test_file_methods_on_a_real_host_verify_and_leave_nothing(standin: Any, tmp_path: Path) -> None:
    config, _ = standin
    out = tmp_path / "files.json"
    work, server_side = tmp_path / "work", tmp_path / "server-side"
    work.mkdir()
    server_side.mkdir()
    done = sshbench("run", "standin", "--ssh-config", str(config), "--method", "scp,scp-legacy,sftp,rsync",
                    "--ciphers", "aes128-ctr", "--macs", "none", "--kex", "none", "--hostkeys", "none",
                    "--runs", "1", "--size", "64MiB", "--verify", "--no-controls", "--workdir", str(work),
                    "--remote-workdir", str(server_side), "--output", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    samples = [s for s in data["samples"] if s["case_id"].count(":") == 3]
    assert len({s["case_id"] for s in samples}) == 8
    assert all(s["ok"] and s["verified"] == "size+sha256" for s in samples), [s["error"] for s in samples]
    assert all(s["server_cpu_user_seconds"] is None for s in samples), "no /proc reading for tools: unknown"
    server_dir = data["environment"]["files"]["commands"]["scp"].rsplit(":", 1)[1].rsplit("/", 1)[0]
    assert server_dir.startswith(f"{server_side}/sshbench-"), "--remote-workdir chose where the server's files go"
    assert not os.path.exists(server_dir) and list(server_side.iterdir()) == [], "the server's temp dir is removed"
    assert not temp_entries()
    assert list(work.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_server_without_room_for_the_files_is_refused_before_anything_is_sent(standin: Any,
                                                                                 tmp_path: Path) -> None:
    config, server = standin
    small = tmp_path / "small"
    small.mkdir()
    # where the stand-in's sshd lives: its privilege-separation namespace (servers/privsep.py) is the host's as it
    # was when the server started, so the small disk is mounted there, as it would be on a real host
    mount = server._privsep.wrap(["mount", "-t", "tmpfs", "-o", "size=32m", "sshbench-test", str(small)])
    subprocess.run(mount, check=True)
    try:
        done = sshbench("run", "standin", "--ssh-config", str(config), "--method", "scp", "--ciphers", "aes128-ctr",
                        "--macs", "none", "--kex", "none", "--hostkeys", "none", "--runs", "1", "--size", "64MiB",
                        "--no-controls", "--remote-workdir", str(small), "--output", str(tmp_path / "r.json"))
        assert done.returncode == ExitCode.USAGE, done.stderr
        assert "not enough free space on standin" in done.stderr and "--remote-workdir" in done.stderr
        left = subprocess.run(server._privsep.wrap(["ls", "-A", str(small)]), capture_output=True, text=True)
        assert left.returncode == 0 and left.stdout == "", "the server's temp dir is removed again"
    finally:
        subprocess.run(server._privsep.wrap(["umount", str(small)]), check=False)


def test_behind_a_proxy_the_clients_list_is_tried_and_refusals_are_skipped(standin: Any, tmp_path: Path) -> None:
    """ProxyCommand: no TCP connection of our own, so no KEXINIT offer; the server's refusal decides."""
    _, srv = standin
    fdpass = Path(__file__).parents[2] / "src" / "sshbench" / "targets" / "fdpass.py"
    proxied = tmp_path / "config"
    proxied.write_text(standin_block("proxied", srv)
                       + f"  ProxyCommand {sys.executable} -S {fdpass} %h %p\n  ProxyUseFdpass yes\n")
    out = tmp_path / "proxied.json"
    done = sshbench("run", "proxied", "--ssh-config", str(proxied), "--ciphers", "aes128-ctr,aes256-ctr",
                    "--macs", "none", "--kex", "none", "--hostkeys", "none", "--runs", "1", "--size", "8MiB",
                    "--output", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    status = {c["case"]["id"]: (c["status"], c["reason"]) for c in data["cases"]}
    assert status["cipher:aes128-ctr:upload"][0] == "measured"
    assert status["cipher:aes256-ctr:upload"][0] == "skipped"
    assert "no matching cipher" in status["cipher:aes256-ctr:upload"][1]
    server = data["environment"]["server"]["remote"]
    assert server["via_proxy"] and server["banner"] is None and "proxy" in data["environment"]["terrapin"]["note"]
    assert "proxy" in server["iperf3"]["skipped"]
