"""SSH builds side by side (--build): OpenSSH 10.2p1 and HPN-SSH 18.8.0, built from their release tarballs,
as embedded client and server, beside the system's OpenSSH.

The builds come from scripts/ssh_builds.py, run once (it caches what it
built in .venv/opt/builds) from the tarballs in ../shared/sources (or
$SSHBENCH_SOURCES): CI has them; a clone without them skips these tests,
saying so. Every sample proves its negotiation, so a case that reached the
wrong build, or a none cipher that was not switched to, fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sshbench.results.codec import results_from_dict
from sshbench.targets.servers.privsep import PrivsepDir
from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench
from tests.integration.conftest import ROOT, SOURCES

pytestmark = pytest.mark.integration

HPN, OPENSSH = "hpn-ssh-18.8.0", "openssh-10.2p1"
GCM, MT = "aes128-gcm@openssh.com", "chacha20-poly1305-mt@hpnssh.org"
SMALL = ["--macs", "none", "--kex", "none", "--hostkeys", "none", "--no-controls", "--runs", "2", "--size", "32MiB"]


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = tmp_path / "r.json"
    done = sshbench(*args, "--output", str(out), tmpdir=tmp_path, timeout=600)
    return done, json.loads(out.read_text()) if out.exists() else {}


def test_the_script_built_both_and_checks_them(builds: Path) -> None:
    for name, client in ((HPN, "hpnssh"), (OPENSSH, "ssh")):
        version = subprocess.run([builds / name / "bin" / client, "-V"], capture_output=True, text=True, check=True)
        assert version.stderr.startswith("OpenSSH_10.2p1"), version.stderr
        assert (builds / name / ".sshbench-build").is_file(), "cached: a second run builds nothing"


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare: the build "
                    "runs in a mount namespace of its own with an empty /run")
def test_a_build_installs_nothing_outside_its_prefix(tmp_path: Path) -> None:
    """OpenSSH's `make install` also makes its privilege-separation dir, /run/sshd (0755, like the system's own).
    The script builds one tarball afresh (its own, uncached prefix) in a mount namespace with an empty tmpfs on
    /run: /run stays empty and the prefix has the server. Before the install was staged, /run held `sshd`."""
    tarball = SOURCES / f"{OPENSSH}.tar.gz"
    if not tarball.is_file():
        pytest.skip(f"no {tarball.name} in {SOURCES} (set SSHBENCH_SOURCES)")
    listing = tmp_path / "run-entries"
    script = 'mount -t tmpfs sshbench-test-run /run || exit 97; "$@"; rc=$?; ls -A /run > "$LISTING"; exit $rc'
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                           sys.executable, str(ROOT / "scripts" / "ssh_builds.py"), str(tarball)],
                          capture_output=True, text=True, timeout=1200, check=False,
                          env={**os.environ, "LISTING": str(listing), "SSHBENCH_BUILDS": str(tmp_path / "builds")})
    assert done.returncode == 0, done.stderr
    assert "built into" in done.stdout, done.stdout  # afresh, not cached
    assert listing.read_text().split() == [], f"the build made {listing.read_text().split()} in /run"
    assert (tmp_path / "builds" / OPENSSH / "sbin" / "sshd").is_file()


@pytest.mark.parametrize("name", [HPN, OPENSSH])
def test_each_build_is_the_embedded_client_and_server(builds: Path, name: str, tmp_path: Path) -> None:
    done, data = _run(tmp_path, "--build", name, "--ciphers", GCM, "--directions", "both", *SMALL)
    assert done.returncode == ExitCode.OK, done.stderr
    (build,) = data["environment"]["builds"]
    assert build["name"] == name and build["client"]["path"].startswith(str(builds / name))
    version = "OpenSSH_10.2p1_hpn18.8.0" if name == HPN else "OpenSSH_10.2p1"
    assert build["client"]["version"].startswith(version) and build["server"]["version"].startswith(version)
    banner = "OpenSSH_10.2p1_hpn18.8.0" if name == HPN else "OpenSSH_10.2"  # its banner leaves out the p1
    ok = [s for s in data["samples"] if s["ok"] and not s["warmup"]]
    assert len(ok) == 4 and all(s["negotiated"]["server_version"] == banner for s in ok)
    if name == HPN:  # its switches are recorded as each side's config dump says them
        assert build["client_settings"]["tcprcvbufpoll"] == "yes" and build["server_settings"]["hpndisabled"] == "no"


def test_a_build_only_run_recommends_no_name_this_machines_ssh_would_refuse(builds: Path, tmp_path: Path) -> None:
    """Every OpenSSH build reads ~/.ssh/config: HPN-SSH's own cipher in it makes the system's ssh refuse the
    whole file ("Bad SSH2 cipher spec"), so every login breaks. Found: a --build hpn-ssh run printed exactly
    that config, validated with hpnssh only."""
    done, data = _run(tmp_path, "--build", HPN, "--ciphers", f"{GCM},{MT}", "--directions", "upload", *SMALL)
    assert done.returncode == ExitCode.OK, done.stderr
    assert {s["case_id"] for s in data["samples"] if s["ok"]} >= {f"cipher:{MT}:upload#{HPN}"}, "it is measured"
    block = data["recommendation"]["client_block"]
    directives = [line for line in block.splitlines() if not line.startswith("#")]
    assert not any(MT in line for line in directives), "never a name this machine's ssh would refuse"
    assert "unknown to this machine's ssh" in block and MT in block, "the comment says why it is left out"
    config = tmp_path / "config"
    config.write_text(block)
    system = subprocess.run(["ssh", "-G", "-F", str(config), "example.invalid"], capture_output=True, text=True)
    assert system.returncode == 0, system.stderr
    assert "unknown to this machine's ssh" in done.stdout


def test_builds_side_by_side_with_a_mixed_pair_and_the_none_cipher(builds: Path, tmp_path: Path) -> None:
    done, data = _run(tmp_path, "--build", "stock", "--build", HPN, "--build", f"client={HPN},server=stock",
                      "--ciphers", f"{GCM},{MT}", "--none-cipher", "--directions", "upload", *SMALL)
    assert done.returncode == ExitCode.OK, done.stderr
    report = results_from_dict(data)[0]
    status = {r.case.id: r.status.value for r in report.cases}
    mixed = f"{HPN}>stock"
    assert [b.name for b in report.environment.builds] == ["stock", HPN, mixed]
    assert status[f"cipher:{MT}:upload#{HPN}"] == "measured"
    assert status[f"cipher:{MT}:upload#stock"] == "skipped", "the stock client does not know HPN's cipher"
    assert status[f"cipher:{MT}:upload#{mixed}"] == "skipped", "nor does the stock server offer it"
    assert status[f"cipher:none:upload#{HPN}"] == "measured"
    assert status["cipher:none:upload#stock"] == "skipped" and status[f"cipher:none:upload#{mixed}"] == "skipped"
    none = [s for s in report.samples if s.case_id == f"cipher:none:upload#{HPN}" and s.ok]
    assert none and all(s.negotiated and s.negotiated.cipher_c2s == s.negotiated.cipher_s2c == "none" for s in none)
    mixed_ok = [s for s in report.samples if s.case_id.endswith(f"#{mixed}") and s.ok]
    assert mixed_ok and all(s.negotiated and "hpn" not in (s.negotiated.server_version or "hpn") for s in mixed_ok)
    # the none cipher is broken wherever it is shown, and never recommended
    assert "!! broken" in done.stdout and "Ciphers, upload: the builds side by side" in done.stdout
    page = sshbench("report", str(tmp_path / "r.json"), "--markdown", "-", "--html", str(tmp_path / "r.html"),
                    tmpdir=tmp_path)
    assert page.returncode == 0, page.stderr
    assert "none" in page.stdout and "!! broken" in page.stdout
    assert "broken" in (tmp_path / "r.html").read_text()
    recommended = data["recommendation"]
    assert recommended is None or ("none" not in recommended["client_block"].split("Ciphers", 1)[-1].split("\n")[0]
                                   and MT not in recommended["client_block"])


@pytest.mark.skipif(os.geteuid() != 0, reason="--link needs root")
def test_over_a_link_hpns_window_follows_tcp_and_the_hosts_are_tuned(builds: Path, tmp_path: Path) -> None:
    done, data = _run(tmp_path, "--link", "rtt=20ms", "--build", "stock", "--build", HPN, "--ciphers", GCM,
                      "--directions", "upload", "--echo", "3", "--macs", "none", "--kex", "none", "--hostkeys",
                      "none", "--runs", "2")  # sized from the warm-up: HPN-SSH's window needs 20 RTTs of 64 MiB+
    troubles: list[tuple[Any, ...]] = [(s["case_id"], s["error"] or s["unusable"]) for s in data.get("samples", [])
                if not s["warmup"] and (not s["ok"] or s["unusable"])]
    troubles += [(c["case"]["id"], c["status"], c.get("reason")) for c in data.get("cases", [])
                 if c["status"] != "measured"]
    troubles += [(e["build"], e["error"]) for e in data.get("echoes", []) if not e["ok"]]
    assert done.returncode == ExitCode.OK, (done.stderr, troubles)
    report = results_from_dict(data)[0]
    (link,) = report.environment.links
    assert link.tcp_tuned is True and link.server_tcp["tcp_rmem"][2] >= 128 * 2**20
    from sshbench.analysis.physics.advice import receive_window
    assert receive_window(report, "upload", build="stock", link="rtt=20ms") == 2 * 2**20
    assert receive_window(report, "upload", build=HPN, link="rtt=20ms") == link.server_tcp["tcp_rmem"][2]
    assert "TCP buffer/RTT" in done.stdout and f"{HPN}: pipe" not in done.stdout
    # raw TCP is timed over its steady state as SSH is (its slow start would otherwise put it below HPN-SSH)
    tcp = [s for s in report.samples if s.case_id.startswith("control:") and s.ok and not s.warmup]
    assert tcp and all(s.steady_bytes and s.steady_seconds and s.steady_bytes <= s.size_bytes * 3 // 4
                       for s in tcp), [(s.size_bytes, s.steady_bytes, s.steady_seconds) for s in tcp]
    # each build's echo goes through its own client: the 10.2p1-based one obscures keystroke timing, 9.2 does not
    echoes = {e.build: e for e in report.echoes}
    assert set(echoes) == {"stock", HPN} and all(e.ok for e in echoes.values())
    assert echoes[HPN].obscured and not echoes["stock"].obscured, "the system's client is OpenSSH 9.2"
    assert "keystrokes sent" in done.stdout and "20 ms tick" in done.stdout


def test_an_hpn_ssh_server_gets_the_drop_in_its_own_sshd_accepts_with_its_lockout_check(builds: Path,
                                                                                      tmp_path: Path) -> None:
    """The server's implementation is what its launcher declares (an OpenSSH launcher running a build's hpnsshd is
    HPN-SSH, which reads sshd_config), not a name compared with "openssh": an HPN-SSH server once got no drop-in,
    no lock-out check and no advice at all."""
    hpnsshd = builds / HPN / "sbin" / "hpnsshd"
    done, data = _run(tmp_path, "--sshd", str(hpnsshd), "--ciphers", f"{GCM},chacha20-poly1305@openssh.com",
                      "--directions", "upload", *SMALL)
    assert done.returncode == ExitCode.OK, done.stderr
    embedded = data["environment"]["server"]["embedded"]
    assert embedded["server"] == "openssh" and embedded["implementation"] == "hpnssh"
    assert "/etc/hpnssh/sshd_config.d/50-sshbench.conf" in done.stdout, done.stdout
    assert "Include /etc/hpnssh/sshd_config.d/*.conf" in done.stdout, "what else the drop-in needs is said"
    assert f"algos --sshd {hpnsshd}" in done.stdout, "the next step starts the same server"
    advice = sshbench("recommend", str(tmp_path / "r.json"), "--json", "--write", str(tmp_path / "cfg"),
                      tmpdir=tmp_path)
    assert advice.returncode == ExitCode.OK, advice.stderr
    (run,) = json.loads(advice.stdout)["runs"]
    assert run["server_dropin"] and run["server_advice"] is None and run["problems"] == [], run
    assert "checked against" in run["server_dropin"], "the lock-out check ran and says against how many clients"
    # the build's own sshd -t, outside sshbench: a config that Includes the written drop-in first, as the note says
    key = tmp_path / "hostkey"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    config = tmp_path / "sshd_config"
    config.write_text(f"Include {tmp_path / 'cfg' / '50-sshbench.conf'}\nHostKey {key}\n")  # this build has no PAM
    with PrivsepDir() as privsep:  # as root sshd -t wants /run/sshd: wrap runs it where sshbench gives it one
        checked = subprocess.run(privsep.wrap([str(hpnsshd), "-t", "-f", str(config)]), capture_output=True,
                                 text=True, timeout=30)
        dumped = subprocess.run(privsep.wrap([str(hpnsshd), "-T", "-f", str(config)]), capture_output=True,
                                text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    assert f"ciphers {GCM}" in dumped.stdout.lower(), "the drop-in's Ciphers line is the one in force"
