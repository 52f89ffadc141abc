"""`sshbench recommend` against real servers: OpenSSH (embedded run), Debian 12 Dropbear and tinysshd.

For every policy, the client block as printed on a 60-column terminal and
through a pipe must pass `ssh -G`, and a login that works keeps working with
the block appended, with a known_hosts that holds only one host key type
(an explicit HostKeyAlgorithms broke exactly that). Against tinysshd 20230101
(no strict key exchange, chacha20-poly1305 only) the output must say that the
connection stays open to Terrapin and exit 9.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.errors import ExitCode
from tests.integration.cli_helpers import sshbench
from tests.integration.other_servers import missing, other_server
from tests.integration.terminal import in_terminal

pytestmark = pytest.mark.integration

POLICIES = ("modern", "compatible")
KEYWORDS = {"Ciphers", "MACs", "KexAlgorithms", "HostKeyAlgorithms"}
RUN = ["--kex", "all", "--hostkeys", "all", "--runs", "2", "--setup-runs", "2", "--size", "4MiB", "--no-controls"]
# the partners are left at auto: Dropbear lacks hmac-sha2-256-etm, tinysshd every non-AEAD cipher
SELECT = {"dropbear": ["--ciphers", "all", "--macs", "all"], "tinysshd": ["--ciphers", "all", "--macs", "all"]}


@dataclass
class Target:
    software: str
    alias: str
    results: Path
    connect: dict[str, str]  # host key type -> an ssh config for `alias` whose known_hosts holds only that type
    exposed: bool


def _openssh(client: ClientInfo, small_run: Any, root: Path) -> Iterator[Target]:
    """The embedded run's recommendation (Host *), applied to a login to an ordinary sshd with several host keys."""
    with EmbeddedOpenSSH(client, admit_all=True) as srv:
        assert srv.dir is not None
        lines = Path(srv.dir, "known_hosts").read_text().splitlines()
        connect = {}
        for key_type in ("ssh-ed25519", "ssh-rsa"):
            known = root / f"known_hosts.{key_type}"
            known.write_text("".join(f"{ln}\n" for ln in lines if ln.split()[1] == key_type))
            connect[key_type] = f"""Host standin
  HostName 127.0.0.1
  Port {srv.port}
  User {srv.user}
  IdentityFile {srv.dir}/client_ed25519
  IdentitiesOnly yes
  IdentityAgent none
  HostKeyAlias {HOST_ALIAS}
  UserKnownHostsFile {known}
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
"""
        yield Target("openssh", "standin", small_run[2], connect, exposed=False)


def _other(software: str, root: Path) -> Iterator[Target]:
    reason = missing(software)
    if reason:
        pytest.skip(f"{software}: {reason}")
    with other_server(software, root) as srv:
        config = root / "config"
        config.write_text(srv.ssh_config(software, srv.known_hosts(root / "known_hosts.all", *srv.host_keys)))
        results = root / "results.json"
        done = sshbench("run", software, "--ssh-config", str(config), *SELECT[software], *RUN,
                        "--output", str(results))
        assert done.returncode == ExitCode.OK, done.stdout[-2000:] + done.stderr
        connect = {t: srv.ssh_config(software, srv.known_hosts(root / f"known_hosts.{t}", t)) + "  BatchMode yes\n"
                   for t in srv.host_keys}
        yield Target(software, software, results, connect, exposed=software == "tinysshd")


@pytest.fixture(scope="module", params=["openssh", "dropbear", "tinysshd"])
def target(request: pytest.FixtureRequest, client: ClientInfo, small_run: Any,
           tmp_path_factory: pytest.TempPathFactory, module_tmpdir: Path) -> Iterator[Target]:
    """(module_tmpdir: the run this fixture starts gets a TMPDIR of its own, as every test does.)"""
    root = tmp_path_factory.mktemp(request.param)
    if request.param == "openssh":
        yield from _openssh(client, small_run, root)
    else:
        yield from _other(request.param, root)


def client_block(output: str) -> str:
    """The client block exactly as printed: comment lines, the Host line and its indented directives."""
    lines = output.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Recommended client config")) + 1
    block = []
    for line in lines[start:]:
        if not (line.startswith(("#", "Host ", "    "))):
            break
        block.append(line)
    return "\n".join(block) + "\n"


def _printed(results: Path, policy: str, how: str) -> tuple[str, int]:
    args = ("recommend", str(results), "--policy", policy)
    if how == "terminal":
        return in_terminal(*args, columns=60)
    done = sshbench(*args)
    return done.stdout + done.stderr, done.returncode


@pytest.mark.parametrize("how", ["terminal", "piped"])
@pytest.mark.parametrize("policy", POLICIES)
def test_the_block_passes_ssh_G_and_keeps_a_login_working(target: Target, policy: str, how: str,
                                                          client: ClientInfo, tmp_path: Path) -> None:
    output, code = _printed(target.results, policy, how)
    assert code == (ExitCode.EXPOSED if target.exposed else ExitCode.OK), output[-3000:]
    block = client_block(output)
    directives = [ln.split() for ln in block.splitlines() if ln.startswith("    ")]
    assert all(len(d) == 2 and d[0] in KEYWORDS for d in directives), block  # one line each, never wrapped
    assert not any(d[0] == "HostKeyAlgorithms" for d in directives), "not unless asked"
    assert all(ln.startswith("#") for ln in block.splitlines()[:-len(directives) - 1]), block
    alone = tmp_path / "block"
    alone.write_text(block)
    checked = subprocess.run([client.path, "-G", "-F", str(alone), target.alias], capture_output=True, text=True,
                             timeout=30, check=False)
    assert checked.returncode == 0, checked.stderr
    for key_type, config in target.connect.items():
        path = tmp_path / f"config.{key_type}"
        path.write_text(config + "\n" + block)  # appended at the END, as the output says
        login = subprocess.run([client.path, "-F", str(path), target.alias, "echo", "login-ok"],
                               capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
        assert login.returncode == 0 and "login-ok" in login.stdout, (key_type, login.stderr[-1500:])
        assert "REMOTE HOST IDENTIFICATION" not in login.stderr


def test_each_server_gets_advice_of_its_own_kind_and_the_truth_about_terrapin(target: Target) -> None:
    output, code = _printed(target.results, "modern", "piped")
    exposure = [ln for ln in output.splitlines() if ln.startswith("Terrapin: NOT protected")]
    if target.software == "openssh":
        assert "Recommended server drop-in (/etc/ssh/sshd_config.d/50-sshbench.conf)" in output
    else:
        assert "sshd_config.d" not in output and "sshd -t" not in output
        assert f"Server ({target.software}):" in output
        data = json.loads(target.results.read_text())
        assert not any(data["environment"]["algorithms"]["server_defaults"].values()), "unknown for a real host"
    if target.software == "tinysshd":  # 20230101: no strict key exchange, chacha20-poly1305 only
        assert code == ExitCode.EXPOSED
        assert len(exposure) == 1 and "no client setting can fix it" in exposure[0]
        assert "tinysshd 20240101" in exposure[0]
        assert "left out (Terrapin: no strict key exchange on both ends): chacha20-poly1305@openssh.com" in output
    else:  # Debian 12's OpenSSH and Dropbear both offer strict key exchange
        assert code == ExitCode.OK and exposure == [] and "connection protected (both ends strict)" in output
