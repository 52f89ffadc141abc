"""Re-record the client offers sshbench ships (src/sshbench/clients/offers/*.json), from real clients.

Each client available here is started against `sshbench clients record`,
which reads its banner and first KEXINIT and hangs up (no login). Which
clients, and where each comes from:

- Debian 12's OpenSSH, Dropbear (dbclient), PuTTY (plink) and curl's
  libssh2 (`sh scripts/install-deps --test` installs them);
- paramiko and AsyncSSH from the venv (pinned in constraints.txt);
- Go's golang.org/x/crypto/ssh: tests/clients/goclient, built here;
- OpenSSH 10.2p1 and HPN-SSH from `--builds DIR` (scripts/build-ssh's cache);
- Debian 11's OpenSSH 8.4p1, Dropbear 2020.81 and PuTTY 0.74 with
  `--debian11`: their packages are fetched from deb.debian.org and unpacked
  into a temp dir (never installed).

`mac_with_aead` (does the client insist on a common MAC when an AEAD cipher
is chosen?) is not visible in a KEXINIT; MAC_WITH_AEAD says what was
observed against a real sshd offering AES-GCM/chacha20 with a MAC the client
lacks (docs/configs.md). Clients not observed are recorded as needing one.

    .venv/bin/python scripts/record_clients.py [--builds .venv/ssh-builds] [--debian11]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OFFERS = os.path.join(ROOT, "src", "sshbench", "clients", "offers")
SSHBENCH = os.path.join(os.path.dirname(sys.executable), "sshbench")
PY = sys.executable
PARAMIKO = ("import paramiko; t = paramiko.Transport(('127.0.0.1', {port})); t.banner_timeout = 10; "
            "t.start_client(timeout=10)")
ASYNCSSH = ("import asyncio, asyncssh\nasync def main():\n    await asyncssh.connect('127.0.0.1', port={port}, "
            "username='x', known_hosts=None, password='x')\nasyncio.run(main())")
DEBIAN11 = {  # pool paths on deb.debian.org (debian-security for the updates)
    "openssh-client": "debian-security/pool/updates/main/o/openssh/openssh-client_8.4p1-5+deb11u7_amd64.deb",
    "libssl1.1": "debian/pool/main/o/openssl/libssl1.1_1.1.1w-0+deb11u1_amd64.deb",
    "putty-tools": "debian/pool/main/p/putty/putty-tools_0.74-1+deb11u2_amd64.deb",
    "dropbear-bin": "debian-security/pool/updates/main/d/dropbear/dropbear-bin_2020.81-3+deb11u3_amd64.deb",
}
# Observed against OpenSSH 9.2p1's sshd offering only AEAD ciphers and a MAC the client lacks (2026-11-23):
# connected (False) or "no acceptable macs" (paramiko 5.1.0: True). PuTTY 0.74 got past key exchange.
MAC_WITH_AEAD = {"openssh": False, "hpn-ssh": False, "dropbear": False, "putty": False, "asyncssh": False,
                 "go-x-crypto": False, "paramiko": True}


@dataclass
class Client:
    name: str
    software: str
    used_by: str
    source: str
    argv: list[str]
    env: dict[str, str] | None = None

    @property
    def family(self) -> str:
        return next((f for f in MAC_WITH_AEAD if self.name.startswith(f)), "")


def ssh_argv(ssh: str) -> list[str]:
    return [ssh, "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "GlobalKnownHostsFile=/dev/null", "-p", "{port}", "127.0.0.1", "true"]


def version_of(argv: list[str], env: dict[str, str] | None = None) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, env=env)
    return (done.stdout + done.stderr).strip().splitlines()[0]


def python_version(module: str) -> str:
    return subprocess.run([PY, "-c", f"import {module}; print({module}.__version__)"], capture_output=True,
                          text=True, check=True).stdout.strip()


def go_client(work: str) -> str:
    source = os.path.join(ROOT, "tests", "clients", "goclient")
    out = os.path.join(work, "goclient")
    subprocess.run(["go", "build", "-o", out, "."], cwd=source, check=True)
    return out


@contextmanager
def debian11() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="sshbench-deb11-") as work:
        for package, pool in DEBIAN11.items():
            deb = os.path.join(work, f"{package}.deb")
            urllib.request.urlretrieve(f"http://deb.debian.org/{pool}", deb)
            subprocess.run(["dpkg-deb", "-x", deb, os.path.join(work, "root")], check=True)
        yield os.path.join(work, "root")


def clients(work: str, builds: str | None, deb11: str | None) -> list[Client]:
    found = []
    ssh = shutil.which("ssh")
    if ssh:
        found.append(Client("openssh-9.2p1", "OpenSSH 9.2p1 (Debian 12)", "Debian 12's ssh, scp, sftp, rsync, git",
                            f"Debian 12 openssh-client, {version_of([ssh, '-V'])}", ssh_argv(ssh)))
    for prefix, name, software, binary in (("openssh-10.2p1", "openssh-10.2p1", "OpenSSH 10.2p1", "ssh"),
                                           ("hpn-ssh-18.8.0", "hpn-ssh-18.8.0", "HPN-SSH 18.8.0", "hpnssh")):
        path = os.path.join(builds or "", prefix, "bin", binary)
        if builds and os.access(path, os.X_OK):
            found.append(Client(name, software, "built from source (scripts/build-ssh)",
                                f"built from ../shared/sources/{prefix}.tar.gz, {version_of([path, '-V'])}",
                                ssh_argv(path)))
    if shutil.which("dbclient"):
        found.append(Client("dropbear-2022.83", "Dropbear 2022.83 (dbclient)", "Debian 12 dropbear-bin; embedded "
                            "systems, OpenWrt", "Debian 12 dropbear-bin 2022.83",
                            ["dbclient", "-y", "-y", "-p", "{port}", "127.0.0.1", "true"]))
    if shutil.which("plink"):
        found.append(Client("putty-0.78", "PuTTY 0.78 (plink)", "PuTTY, WinSCP, FileZilla (PuTTY's SSH code)",
                            f"Debian 12 putty-tools, {version_of(['plink', '-V'])}",
                            ["plink", "-batch", "-P", "{port}", "127.0.0.1", "true"]))
    if shutil.which("curl"):
        version = version_of(["curl", "-V"])
        libssh2 = next((w for w in version.split() if w.startswith("libssh2/")), None)
        if libssh2:
            found.append(Client(f"libssh2-{libssh2.split('/')[1]}", f"libssh2 {libssh2.split('/')[1]} (curl)",
                                "curl sftp/scp, PHP ssh2, libgit2, KDE, many backup tools",
                                f"Debian 12 curl ({version.split(' (')[0]}, {libssh2})",
                                ["curl", "-s", "-k", "--connect-timeout", "10", "-u", "x:x",
                                 "sftp://127.0.0.1:{port}/"]))
    paramiko = python_version("paramiko")
    found.append(Client(f"paramiko-{paramiko}", f"paramiko {paramiko}", "Ansible's paramiko connection, Fabric, "
                        "many Python tools", f"paramiko {paramiko} from PyPI (constraints.txt)",
                        [PY, "-c", PARAMIKO]))
    asyncssh = python_version("asyncssh")
    found.append(Client(f"asyncssh-{asyncssh}", f"AsyncSSH {asyncssh}", "Python asyncio tools",
                        f"asyncssh {asyncssh} from PyPI (constraints.txt)", [PY, "-c", ASYNCSSH]))
    if shutil.which("go"):
        with open(os.path.join(ROOT, "tests", "clients", "goclient", "go.mod"), encoding="utf-8") as fh:
            crypto = next(line.split()[-1] for line in fh if "golang.org/x/crypto" in line)
        found.append(Client(f"go-x-crypto-{crypto.lstrip('v')}", f"Go x/crypto/ssh {crypto}",
                            "Terraform, Packer, Gitea, Teleport agents, many Go tools",
                            f"golang.org/x/crypto {crypto} defaults (tests/clients/goclient)",
                            [go_client(work), "127.0.0.1", "{port}", "x", "/nonexistent", "true"]))
    if deb11:
        env = {**os.environ, "LD_LIBRARY_PATH": os.path.join(deb11, "usr", "lib", "x86_64-linux-gnu")}
        ssh11 = os.path.join(deb11, "usr", "bin", "ssh")
        found.append(Client("openssh-8.4p1", "OpenSSH 8.4p1 (Debian 11)", "Debian 11, and any OpenSSH before 8.5 "
                            "(no sntrup761)", f"Debian 11 openssh-client 1:8.4p1-5+deb11u7, "
                            f"{version_of([ssh11, '-V'], env)}", ssh_argv(ssh11), env))
        found.append(Client("dropbear-2020.81", "Dropbear 2020.81 (dbclient)", "Debian 11 dropbear-bin, "
                            "older embedded systems", "Debian 11 dropbear-bin 2020.81-3+deb11u3",
                            [os.path.join(deb11, "usr", "bin", "dbclient"), "-y", "-y", "-p", "{port}",
                             "127.0.0.1", "true"], env))
        found.append(Client("putty-0.74", "PuTTY 0.74 (plink)", "Debian 11 putty-tools; PuTTY before 0.78 "
                            "(no sntrup761)", "Debian 11 putty-tools 0.74-1+deb11u2",
                            [os.path.join(deb11, "usr", "bin", "plink"), "-batch", "-P", "{port}", "127.0.0.1",
                             "true"], env))
    return found


def record(client: Client, out_dir: str) -> None:
    argv = [SSHBENCH, "clients", "record", client.name, "--output", os.path.join(out_dir, f"{client.name}.json"),
            "--timeout", "30", "--software", client.software, "--used-by", client.used_by, "--source",
            client.source]
    if MAC_WITH_AEAD.get(client.family) is False:
        argv.append("--aead-without-mac")
    subprocess.run([*argv, "--", *client.argv], check=True, env=client.env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", help="the prefix directory of scripts/build-ssh (OpenSSH 10.2p1, HPN-SSH)")
    parser.add_argument("--debian11", action="store_true", help="also record Debian 11's clients (fetched)")
    parser.add_argument("--out", default=OFFERS, help=f"where the recordings go (default {OFFERS})")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sshbench-record-") as work, \
            debian11() if args.debian11 else _nothing() as deb11:
        for client in clients(work, args.builds, deb11):
            record(client, args.out)
    return 0


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    sys.exit(main())
