"""The real SSH clients the lock-out tests log in with, each driven as its users drive it.

Every client connects to 127.0.0.1 with the test server's throwaway ed25519
key (converted to Dropbear's and PuTTY's formats where needed) and runs
`echo login-ok`. `offer_argv` is the same client aimed at a capturing socket
(`{port}`), so a test can record its offer live with
measure.kexinit.capture_client and predict from that.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sshbench.clients import ClientOffer, known_clients

ROOT = Path(__file__).resolve().parents[2]
GO_SOURCE = ROOT / "tests" / "clients" / "goclient"
LOGIN = "echo login-ok"
PY = sys.executable
PARAMIKO = """import sys, paramiko
c = paramiko.SSHClient()
c.set_missing_host_key_policy(paramiko.AutoAddPolicy())
c.connect('127.0.0.1', port=int(sys.argv[1]), username=sys.argv[2], key_filename=sys.argv[3], allow_agent=False,
          look_for_keys=False, timeout=20, banner_timeout=20)
print(c.exec_command(sys.argv[4])[1].read().decode().strip())
"""
ASYNCSSH = """import sys, asyncio, asyncssh
async def main():
    async with asyncssh.connect('127.0.0.1', port=int(sys.argv[1]), username=sys.argv[2],
                                client_keys=[sys.argv[3]] if sys.argv[3] else (), known_hosts=None,
                                agent_path=None) as conn:
        print((await conn.run(sys.argv[4], check=True)).stdout.strip())
asyncio.run(main())
"""
# What each client prints when a kind has nothing in common (its own words), to check the predicted reason.
_NO_COMMON = {
    "openssh": {"kex": r"no matching key exchange", "cipher": r"no matching cipher", "mac": r"no matching MAC"},
    "dropbear": {"kex": r"No matching algo kex", "cipher": r"No matching algo enc", "mac": r"No matching algo mac"},
    "putty": {"kex": r"key exchange algorithm", "cipher": r"cipher", "mac": r"MAC"},
    "paramiko": {"kex": r"no acceptable kex", "cipher": r"no acceptable ciphers", "mac": r"no acceptable macs"},
    "asyncssh": {"kex": r"(?i)no matching key exchange", "cipher": r"(?i)no matching encryption",
                 "mac": r"(?i)no matching mac"},
    "go": {"kex": r"no common algorithm for key exchange", "cipher": r"no common algorithm for .*cipher",
           "mac": r"no common algorithm for .*MAC"},
    "libssh2": {"kex": r"Unable to exchange encryption keys", "cipher": r"Unable to exchange encryption keys",
                "mac": r"Unable to exchange encryption keys"},  # curl says only this, whatever the kind
    "jsch": {"kex": r"Algorithm negotiation fail", "cipher": r"Algorithm negotiation fail",
             "mac": r"Algorithm negotiation fail"},  # JSch names no kind
    "russh": {"kex": r"No common Kex algorithm", "cipher": r"No common Cipher algorithm",
              "mac": r"No common Mac algorithm"},
    "mina": {"kex": r"Unable to negotiate key exchange for kex", "cipher": r"Unable to negotiate key exchange for "
             r"encryption", "mac": r"Unable to negotiate key exchange for mac"},
    "sshj": {"kex": r"settlement of KeyExchangeAlgorithms", "cipher": r"settlement of Client2ServerCipher",
             "mac": r"settlement of Client2ServerMAC"},
    "libssh": {"kex": r"kex error : no match for method kex algos", "cipher": r"no match for method encryption",
               "mac": r"no match for method mac"},
    "node": {"kex": r"no matching key exchange algorithm", "cipher": r"no matching (C->S|client->server) cipher",
             "mac": r"no matching (C->S|client->server) H?MAC"},
}
CLIENTS = Path(os.environ.get("SSHBENCH_CLIENTS") or ROOT / ".venv" / "opt" / "clients")  # scripts/test_clients.py
SOURCES = ROOT / "tests" / "clients"


@dataclass
class Keys:
    """The client key in each format the clients read, and the server's host key fingerprints."""

    openssh: str
    dropbear: str
    putty: str
    user: str
    host_fingerprints: list[str]  # SHA256:… of every host key (plink takes them as -hostkey)
    ecdsa_pem: str = ""  # a second client key, ECDSA in PEM: what JSch 0.1.55 and node ssh2 0.8 read

    def hostkey_args(self) -> list[str]:
        return [arg for fp in self.host_fingerprints for arg in ("-hostkey", fp)]


def putty_env(where: Path) -> dict[str, str]:
    """The environment PuTTY's tools run in here: their storage (PUTTYDIR: host keys, sessions, the random seed
    puttygen and plink both write) in `where`, never the user's ~/.putty (tests/integration/test_clients_plink.py
    holds it untouched, whichever test file runs beside it)."""
    (where / "putty").mkdir(mode=0o700, exist_ok=True)
    return {**os.environ, "PUTTYDIR": str(where / "putty")}


def convert_keys(server_dir: str, work: Path, user: str) -> Keys:
    key = os.path.join(server_dir, "client_ed25519")
    dropbear, putty = str(work / "key.dropbear"), str(work / "key.ppk")
    subprocess.run(["dropbearconvert", "openssh", "dropbear", key, dropbear], capture_output=True, check=True)
    subprocess.run(["puttygen", key, "-O", "private", "-o", putty], capture_output=True, check=True,
                   env=putty_env(work))
    prints = [subprocess.run(["ssh-keygen", "-lf", os.path.join(server_dir, name)], capture_output=True, text=True,
                             check=True).stdout.split()[1]
              for name in sorted(os.listdir(server_dir)) if name.startswith("host_") and name.endswith(".pub")]
    ecdsa = str(work / "key.ecdsa")
    if not os.path.exists(ecdsa):
        subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-b", "256", "-m", "PEM", "-N", "", "-f", ecdsa],
                       capture_output=True, check=True)
    with open(os.path.join(server_dir, "authorized_keys"), "a", encoding="utf-8") as fh, \
            open(ecdsa + ".pub", encoding="utf-8") as pub:
        fh.write(pub.read())  # the embedded server's AuthorizedKeysFile: this key logs in too
    return Keys(key, dropbear, putty, user, prints, ecdsa)


@dataclass
class RealClient:
    """One client: how to record its offer, how to log in, and which recording family it belongs to."""

    name: str  # the known recording it is checked against (or the live-recording name)
    family: str  # key of _NO_COMMON
    offer_argv: list[str]
    login: Callable[[int, Keys], list[str]]
    env: dict[str, str] | None = None

    def log_in(self, port: int, keys: Keys) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.login(port, keys), capture_output=True, text=True, timeout=60, check=False,
                              stdin=subprocess.DEVNULL, env=self.env)

    def says_no_common(self, kind: str, output: str) -> bool:
        return re.search(_NO_COMMON[self.family][kind], output) is not None


def _ssh_opts(ssh: str, extra: list[str]) -> list[str]:
    return [ssh, "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o",
            "UserKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes", "-o", "ConnectTimeout=20", *extra]


def openssh(name: str, ssh: str, extra: list[str] | None = None) -> RealClient:
    opts = extra or []
    return RealClient(name, "openssh", [*_ssh_opts(ssh, opts), "-p", "{port}", "127.0.0.1", "true"],
                      lambda port, k: [*_ssh_opts(ssh, opts), "-i", k.openssh, "-p", str(port),
                                       f"{k.user}@127.0.0.1", LOGIN])


def limited_openssh(offer: ClientOffer, ssh: str) -> RealClient:
    """This machine's ssh, limited to exactly an older release's recorded lists (e.g. OpenSSH 8.4p1's)."""
    extra = ["-o", f"KexAlgorithms={','.join(offer.kex_algorithms)}", "-o", f"Ciphers={','.join(offer.cipher_c2s)}",
             "-o", f"MACs={','.join(offer.mac_c2s)}", "-o", f"HostKeyAlgorithms={','.join(offer.hostkey)}"]
    return openssh(offer.name, ssh, extra)


def go_client(build_dir: Path) -> str | None:
    """tests/clients/goclient built once into `build_dir`; None without a Go toolchain."""
    if shutil.which("go") is None:
        return None
    out = build_dir / "goclient"
    if not out.exists():
        subprocess.run(["go", "build", "-o", str(out), "."], cwd=GO_SOURCE, check=True, capture_output=True,
                       timeout=600, env={**os.environ, "GOFLAGS": "-mod=mod"})
    return str(out)


def go_version() -> str:
    text = (GO_SOURCE / "go.mod").read_text()
    return next(line.split()[-1] for line in text.splitlines() if "golang.org/x/crypto" in line).lstrip("v")


def available(build_dir: Path) -> list[RealClient]:
    """Every real client this machine has (the tests say which are missing and why)."""
    known = {c.name: c for c in known_clients()}
    found: list[RealClient] = []
    ssh = shutil.which("ssh")
    if ssh:
        found.append(openssh("openssh-9.2p1", ssh))
        found.append(limited_openssh(known["openssh-8.4p1"], ssh))
    if shutil.which("dbclient"):
        found.append(RealClient("dropbear-2022.83", "dropbear", ["dbclient", "-y", "-y", "-p", "{port}", "127.0.0.1",
                                                                 "true"],
                                lambda port, k: ["dbclient", "-y", "-y", "-i", k.dropbear, "-p", str(port),
                                                 f"{k.user}@127.0.0.1", LOGIN]))
    if shutil.which("plink"):
        found.append(RealClient("putty-0.78", "putty", ["plink", "-batch", "-P", "{port}", "127.0.0.1", "true"],
                                lambda port, k: ["plink", "-batch", "-ssh", *k.hostkey_args(), "-i", k.putty,
                                                 "-P", str(port), "-l", k.user, "127.0.0.1", LOGIN],
                                putty_env(build_dir)))
    found.append(RealClient("paramiko-5.1.0", "paramiko", [PY, "-c", PARAMIKO, "{port}", "x", "/nonexistent", "true"],
                            lambda port, k: [PY, "-c", PARAMIKO, str(port), k.user, k.openssh, LOGIN]))
    found.append(RealClient("asyncssh-2.24.1", "asyncssh", [PY, "-c", ASYNCSSH, "{port}", "x", "", "true"],
                            lambda port, k: [PY, "-c", ASYNCSSH, str(port), k.user, k.openssh, LOGIN]))
    go = go_client(build_dir)
    if go:
        found.append(RealClient(f"go-x-crypto-{go_version()}", "go",
                                [go, "127.0.0.1", "{port}", "x", "/nonexistent", "true"],
                                lambda port, k: [go, "127.0.0.1", str(port), k.user, k.openssh, LOGIN]))
    found += libraries()
    if shutil.which("curl"):
        found.append(RealClient("libssh2-1.10.0", "libssh2", ["curl", "-s", "-k", "-u", "x:x", "sftp://127.0.0.1:{port}/"],
                                lambda port, k: ["curl", "-sS", "-k", "--key", k.openssh, "--pubkey",
                                                 k.openssh + ".pub", "-u", f"{k.user}:",
                                                 f"sftp://127.0.0.1:{port}/dev/null", "-o", "/dev/null", "-w",
                                                 "login-ok\n"]))
    return found


def built(family: str, name: str) -> Path | None:
    """A client scripts/test_clients.py built (None: not built here)."""
    out = CLIENTS / family / name
    return out if (out / ".done").exists() else None


def libraries() -> list[RealClient]:
    """The library clients scripts/test_clients.py built: JSch 0.1.55 and its fork, Apache MINA SSHD, sshj,
    paramiko 2.4 and 2.7, libssh (ansible-pylibssh), Go x/crypto of 2020, node ssh2 0.8 and 1.x, russh (no NIST
    curves). Each logs in with a key and runs the command."""
    found: list[RealClient] = []
    for build, name, family, main, key in (("jsch-0.1.55", "jsch-0.1.55", "jsch", "JschClient", "ecdsa"),
                                           ("jsch-2.28.8", "jsch-2.28.8", "jsch", "JschClient", "ecdsa"),
                                           ("mina-2.14.0", "apache-mina-sshd-2.14.0", "mina", "MinaClient", "ecdsa"),
                                           ("sshj-0.39.0", "sshj-0.39.0", "sshj", "SshjClient", "openssh")):
        if (where := built("java", build)) is not None:
            cp = f"{where}/*:{where}/classes"
            java = ["java", "-cp", cp, main, "127.0.0.1"]
            found.append(RealClient(name, family, [*java, "{port}"], _login(java, key)))
    for version in ("2.4.3", "2.7.2"):
        if (where := built("python", f"paramiko-{version}")) is not None:
            program = [str(where / "bin" / "python"), str(SOURCES / "python" / "paramiko_client.py")]
            found.append(RealClient(f"paramiko-{version}", "paramiko", [*program, "127.0.0.1", "{port}"],
                                    _login([*program, "127.0.0.1"], "openssh")))
    if (where := built("python", "paramiko-1.18.5")) is not None:  # Python 2.7, pycrypto: Fabric 1.x's
        program = ["env", f"PYTHONPATH={where / 'lib'}", (where / "python").read_text().strip(),
                   str(SOURCES / "python" / "paramiko_client.py")]
        found.append(RealClient("paramiko-1.18.5", "paramiko", [*program, "127.0.0.1", "{port}"],  # no Ed25519 keys
                                _login([*program, "127.0.0.1"], "ecdsa")))  # before 2.2; ssh-rsa is SHA-1 only
    if (where := built("python", "pylibssh-1.4.0")) is not None:
        program = [str(where / "bin" / "python"), str(SOURCES / "python" / "pylibssh_client.py"), "127.0.0.1"]
        found.append(RealClient("libssh-0.12.0", "libssh", [*program, "{port}"], _login(program, "openssh")))
    if (where := built("go", "go-x-crypto-2020")) is not None:
        go = [str(where / "goclient"), "127.0.0.1"]
        found.append(RealClient("go-x-crypto-0.0.0-20200622", "go", [*go, "{port}", "x", "/nonexistent", "true"],
                                _login(go, "openssh")))
    node = ["node", str(SOURCES / "node" / "client.js")]
    for version, pem in (("0.8.9", True), ("1.17.0", False)):
        if (where := built("node", f"ssh2-{version}")) is not None:
            env = {**os.environ, "NODE_PATH": str(where / "node_modules")}
            found.append(RealClient(f"node-ssh2-{version}", "node", [*node, "127.0.0.1", "{port}"],
                                    _login([*node, "127.0.0.1"], "ecdsa" if pem else "openssh"), env))
    if (where := built("rust", "rust")) is not None:
        russh = str(where / "target" / "release" / "russh-client")
        lock = (SOURCES / "rust" / "Cargo.lock").read_text()
        version = lock.split('name = "russh"\nversion = "', 1)[1].split('"', 1)[0]
        found.append(RealClient(f"russh-{version}", "russh", [russh, "127.0.0.1", "{port}"],
                                lambda port, k: [russh, "127.0.0.1", str(port), k.user, k.openssh, LOGIN]))
    return found


def _login(program: list[str], key: str) -> Callable[[int, Keys], list[str]]:
    """PROGRAM... PORT USER KEY COMMAND, with the ed25519 key in OpenSSH's format or the ECDSA one in PEM (what JSch
    0.1.55 and node ssh2 0.8 read)."""
    return lambda port, k: [*program, str(port), k.user, k.ecdsa_pem if key == "ecdsa" else k.openssh, LOGIN]
