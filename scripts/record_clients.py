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
  into a temp dir (never installed);
- the library clients scripts/test_clients.py builds from Maven Central,
  PyPI, npm, crates.io and the Go module proxy (JSch 0.1.55 and its
  maintained fork, Apache MINA SSHD, sshj, paramiko 2.4 and 2.7, libssh
  through ansible-pylibssh, node ssh2 0.8 and 1.x, russh, libssh2 1.11
  through the Rust ssh2 crate, Go x/crypto of 2020), from its cache in
  .venv/opt/clients;
- Windows' and macOS's OpenSSH with `--documented`: not recorded (no such
  machine here) but written from the compiled-in defaults of the OpenSSH
  release each ships (../shared/data/openssh-defaults-by-release.json,
  read from myproposal.h), with the markers that release sends; their
  vendors' builds may differ, and `origin: documented` says so.

`mac_with_aead` (does the client insist on a common MAC when an AEAD cipher
is chosen?) is not visible in a KEXINIT; MAC_WITH_AEAD says what was
observed against a real sshd offering AES-GCM/chacha20 with a MAC the client
lacks (docs/configs.md). Clients not observed are recorded as needing one.

    .venv/bin/python scripts/record_clients.py [--builds .venv/ssh-builds] [--debian11] [--libraries]
        [--documented ../shared/data/openssh-defaults-by-release.json] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
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
# Observed against OpenSSH 9.2p1's sshd offering only AEAD ciphers and a MAC the client lacks (2026-11-23, and
# 2026-11-25 for the library clients): connected (False) or "no acceptable macs" (paramiko 5.1.0, JSch 2.28.8
# "mac.c2s", node ssh2 0.8.9 "no matching client->server HMAC", Apache MINA SSHD 2.14.0 "Unable to negotiate key
# exchange for mac algorithms", sshj 0.39.0 "settlement of Client2ServerMACAlgorithms": True; libssh 0.12.0
# logged in: False). PuTTY 0.74 got past key exchange. Windows' and macOS's are OpenSSH. Clients never observed are
# recorded as needing one.
MAC_WITH_AEAD = {"openssh": False, "hpn-ssh": False, "dropbear": False, "putty": False, "asyncssh": False,
                 "go-x-crypto": False, "paramiko": True, "windows-openssh": False, "macos-openssh": False,
                 "russh": False, "node-ssh2-1": False, "node-ssh2-0": True, "jsch": True,
                 "apache-mina-sshd": True, "sshj": True, "libssh-": False}
CLIENTS = os.path.join(ROOT, "tests", "clients")


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


def libraries() -> list[Client]:
    """The library clients scripts/test_clients.py built (those it has not are left out, with a line)."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    from test_clients import prepared

    def at(name: str) -> str | None:
        found = prepared(name)
        if found is None:
            print(f"record-clients: {name} not built (python scripts/test_clients.py --only {name})",
                  file=sys.stderr)
        return None if found is None else str(found)

    out = []
    java = [("jsch-0.1.55", "jsch-0.1.55", "JSch 0.1.55", "com.jcraft:jsch 0.1.55: Jenkins plugins, Eclipse, Ant "
             "and many Java tools still bundle it", "JschClient"),
            ("jsch-2.28.8", "jsch-2.28.8", "JSch 2.28.8 (mwiede fork)", "com.github.mwiede:jsch, the maintained JSch "
             "fork: Jenkins, IntelliJ, newer Java tools", "JschClient"),
            ("mina-2.14.0", "apache-mina-sshd-2.14.0", "Apache MINA SSHD 2.14.0", "Apache MINA SSHD's client: "
             "Eclipse JGit, Jenkins agents, Java SFTP tools", "MinaClient"),
            ("sshj-0.39.0", "sshj-0.39.0", "sshj 0.39.0", "sshj: Java SFTP and SCP tools, Apache NiFi", "SshjClient")]
    for build, name, software, used_by, main in java:
        if (where := at(build)) is not None:
            out.append(Client(name, software, used_by, f"{software} from Maven Central (tests/clients/java)",
                              ["java", "-cp", f"{where}/*:{where}/classes", main, "127.0.0.1", "{port}"]))
    for build, name, software, used_by, program in (
            ("paramiko-2.4.3", "paramiko-2.4.3", "paramiko 2.4.3", "RHEL 8-era Ansible controllers, older Fabric",
             "paramiko_client.py"),
            ("paramiko-2.7.2", "paramiko-2.7.2", "paramiko 2.7.2", "Ansible 2.9-2.12 era controllers, Debian 11's "
             "python3-paramiko", "paramiko_client.py"),
            ("pylibssh-1.4.0", "libssh-0.12.0", "libssh 0.12.0 (ansible-pylibssh 1.4.0)", "Ansible's libssh "
             "connection (ansible-pylibssh), KDE, Remmina", "pylibssh_client.py")):
        if (where := at(build)) is not None:
            out.append(Client(name, software, used_by, f"{software} from PyPI (tests/clients/python)",
                              [f"{where}/bin/python", os.path.join(CLIENTS, "python", program), "127.0.0.1",
                               "{port}"]))
    for build, name, used_by in (("ssh2-0.8.9", "node-ssh2-0.8.9", "node ssh2 0.8: Node deploy tools and VS Code "
                                  "extensions of 2019-2020"),
                                 ("ssh2-1.17.0", "node-ssh2-1.17.0", "node ssh2 1.x: node-ssh, ssh2-sftp-client, VS "
                                  "Code extensions")):
        if (where := at(build)) is not None:
            version = build.split("-", 1)[1]
            out.append(Client(name, f"node ssh2 {version}", used_by, f"ssh2@{version} from npm (tests/clients/node)",
                              ["node", os.path.join(CLIENTS, "node", "client.js"), "127.0.0.1", "{port}"],
                              {**os.environ, "NODE_PATH": f"{where}/node_modules"}))
    if (where := at("rust")) is not None:
        release = os.path.join(where, "target", "release")
        with open(os.path.join(CLIENTS, "rust", "Cargo.lock"), encoding="utf-8") as fh:
            lock = fh.read()
        russh = lock.split('name = "russh"\nversion = "', 1)[1].split('"', 1)[0]
        out.append(Client(f"russh-{russh}", f"russh {russh}", "Rust tools (warpgate, Zed's remote development)",
                          f"russh {russh} from crates.io (tests/clients/rust)",
                          [os.path.join(release, "russh-client"), "127.0.0.1", "{port}"]))
        out.append(Client(BUNDLED_LIBSSH2, "libssh2 (bundled)", "newer curl, PHP ssh2 and libgit2 builds",
                          "libssh2 bundled by the Rust ssh2 crate (tests/clients/rust)",
                          [os.path.join(release, "libssh2-client"), "127.0.0.1", "{port}"]))
    if (where := at("go-x-crypto-2020")) is not None:
        from test_clients import GO_2020
        out.append(Client(f"go-x-crypto-{GO_2020.lstrip('v')[:14]}", f"Go x/crypto/ssh {GO_2020}",
                          "Go tools built in 2019-2020 (older Terraform, Packer, Gitea)",
                          f"golang.org/x/crypto {GO_2020} defaults (tests/clients/goclient, rebuilt)",
                          [os.path.join(where, "goclient"), "127.0.0.1", "{port}", "x", "/nonexistent", "true"]))
    return out


# Windows and macOS ship OpenSSH releases sshbench cannot run here: (name, release tag, software, used by, source)
DOCUMENTED = (
    ("windows-openssh-7.7p1", "V_7_7_P1", "OpenSSH 7.7p1 for Windows", "Windows 10 1809-20H2 and Windows Server "
     "2019 (optional feature)", "Win32-OpenSSH issue 1646: Windows 10 20H1 ships OpenSSH_for_Windows_7.7p1"),
    ("windows-openssh-8.1p1", "V_8_1_P1", "OpenSSH 8.1p1 for Windows", "Windows 10 21H1 and later, Windows 11 "
     "before 24H2, Windows Server 2022 (C:\\Windows\\System32\\OpenSSH)", "Windows 10's ssh -V: 8.1.0.1"),
    ("windows-openssh-9.5p1", "V_9_5_P1", "OpenSSH 9.5p1 for Windows", "Windows 11 24H2, Windows Server 2025",
     "the windows-2022 GitHub runner's ssh.exe: OpenSSH-Windows 9.5.0 (curl PR 17046)"),
    ("macos-openssh-9.8p1", "V_9_8_P1", "OpenSSH 9.8p1 (macOS)", "macOS 15 Sequoia's /usr/bin/ssh",
     "Apple's OpenSSH-341 source drop for macOS 15 is 9.8 (tigerbrew PR 1193)"),
)
STRICT_SINCE = (9, 6)  # kex-strict-c-v00@openssh.com: OpenSSH 9.6 (the Terrapin fix)
EXT_INFO_SINCE = (7, 2)


def documented(data: str, out_dir: str) -> None:
    """Write each DOCUMENTED client's offer from its release's compiled-in defaults."""
    sys.path.insert(0, os.path.join(ROOT, "src"))
    from sshbench.clients import ClientOffer

    with open(data, encoding="utf-8") as fh:
        releases = json.load(fh)
    for name, tag, software, used_by, seen in DOCUMENTED:
        lists = releases[tag]
        version = tuple(int(p) for p in tag.split("_")[1:3])
        markers = (["ext-info-c"] if version >= EXT_INFO_SINCE else []) + \
            (["kex-strict-c-v00@openssh.com"] if version >= STRICT_SINCE else [])
        offer = ClientOffer(
            name=name, software=software, banner=f"SSH-2.0-OpenSSH_for_Windows_{tag[2:].replace('_', '.').lower()}"
            if name.startswith("windows") else f"SSH-2.0-OpenSSH_{tag[2:].replace('_P', 'p').replace('_', '.')}",
            source=f"documented, not recorded: OpenSSH {tag} compiled-in client defaults (myproposal.h, "
                   f"openssh-defaults-by-release.json); shipped as: {seen}",
            origin="documented", used_by=used_by, kex=(*lists["kex_client"], *markers), hostkey=tuple(lists["hostkey"]),
            cipher_c2s=tuple(lists["enc_client"]), cipher_s2c=tuple(lists["enc_client"]),
            mac_c2s=tuple(lists["mac_client"]), mac_s2c=tuple(lists["mac_client"]), mac_with_aead=False)
        with open(os.path.join(out_dir, f"{name}.json"), "w", encoding="utf-8") as fh:
            fh.write(offer.to_json())


BUNDLED_LIBSSH2 = "libssh2-bundled"  # renamed after its banner once recorded (SSH-2.0-libssh2_1.11.2_DEV)


def record(client: Client, out_dir: str) -> None:
    argv = [SSHBENCH, "clients", "record", client.name, "--output", os.path.join(out_dir, f"{client.name}.json"),
            "--timeout", "30", "--software", client.software, "--used-by", client.used_by, "--source",
            client.source]
    if MAC_WITH_AEAD.get(client.family) is False:
        argv.append("--aead-without-mac")
    subprocess.run([*argv, "--", *client.argv], check=True, env=client.env)
    if client.name == BUNDLED_LIBSSH2:  # its version is in its banner only
        path = os.path.join(out_dir, f"{client.name}.json")
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        version = data["banner"].rpartition("libssh2_")[2].lower().replace("_", "-")
        data.update(name=f"libssh2-{version}", software=f"libssh2 {version}",
                    source=data["source"].replace("libssh2 bundled", f"libssh2 {version} bundled"))
        with open(os.path.join(out_dir, f"libssh2-{version}.json"), "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, indent=1) + "\n")
        os.remove(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", help="the prefix directory of scripts/build-ssh (OpenSSH 10.2p1, HPN-SSH)")
    parser.add_argument("--debian11", action="store_true", help="also record Debian 11's clients (fetched)")
    parser.add_argument("--libraries", action="store_true", help="also record the library clients "
                        "(scripts/test_clients.py builds them)")
    parser.add_argument("--documented", metavar="JSON", help="also write Windows' and macOS's OpenSSH offers from "
                        "openssh-defaults-by-release.json")
    parser.add_argument("--only", nargs="*", help="record only these names")
    parser.add_argument("--out", default=OFFERS, help=f"where the recordings go (default {OFFERS})")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sshbench-record-") as work, \
            debian11() if args.debian11 else _nothing() as deb11:
        found = clients(work, args.builds, deb11) + (libraries() if args.libraries else [])
        for client in found:
            if not args.only or client.name in args.only:
                record(client, args.out)
    if args.documented:
        documented(args.documented, args.out)
    return 0


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    sys.exit(main())
