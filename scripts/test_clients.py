"""Fetch and build the real SSH clients the client recordings and the lock-out tests use, into .venv/opt/clients.

Each comes from its own registry, at a pinned version, with the sources in
tests/clients/ (one small program per library: connect, or log in with a
key and run a command):

    java/jsch-0.1.55, java/jsch-2.28.8, java/mina-2.14.0, java/sshj-0.39.0    Maven Central (tests/clients/java)
    python/paramiko-2.4.3, python/paramiko-2.7.2, python/pylibssh-1.4.0       PyPI, a venv each
    python/paramiko-1.18.5                                                    PyPI, Python 2.7 with pycrypto
    node/ssh2-0.8.9, node/ssh2-1.17.0                                         the npm registry
    rust/russh-client, rust/libssh2-client                                    crates.io (tests/clients/rust)
    go/go-x-crypto-2020                                                       the Go module proxy

A client whose toolchain is missing (java, npm, cargo, go) is skipped with
one line saying so; one that fails to build is an error (exit 1), since the
tests that need it would then fail for the wrong reason. A finished client
leaves a `.done` stamp and is not built again.

    python scripts/test_clients.py [--only NAME ...] [--dest DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "tests" / "clients"
DEST = Path(os.environ.get("SSHBENCH_CLIENTS") or ROOT / ".venv" / "opt" / "clients")
JAVA = {"jsch-0.1.55": ("jsch", "JschClient"), "jsch-2.28.8": ("jsch-fork", "JschClient"),
        "mina-2.14.0": ("mina", "MinaClient"), "sshj-0.39.0": ("sshj", "SshjClient")}
# paramiko 2.4 calls EllipticCurvePublicNumbers.encode_point, which cryptography removed in 35: 3.4.8 has it, and
# an abi3 wheel that runs on Python 3.11
PYTHON = {"paramiko-2.4.3": ["paramiko==2.4.3", "cryptography==3.4.8", "six"],
          "paramiko-2.7.2": ["paramiko==2.7.2", "cryptography==3.4.8", "six"],
          "pylibssh-1.4.0": ["ansible-pylibssh==1.4.0"]}
NODE = {"ssh2-0.8.9": "ssh2@0.8.9", "ssh2-1.17.0": "ssh2@1.17.0"}
GO_2020 = "v0.0.0-20200622213623-75b288015ac9"  # golang.org/x/crypto of June 2020 (Go tools of 2019-2020)


class Missing(Exception):
    """The toolchain this client needs is not installed: skipped, said."""


def _run(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 900) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, **(env or {})})
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"{' '.join(argv[:3])} failed: {' / '.join(tail)}")


def _need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            raise Missing(f"{tool} is not installed")


def java(name: str, out: Path) -> None:
    _need("mvn", "javac", "java")
    profile, main = JAVA[name]
    _run(["mvn", "-q", "-f", str(SOURCES / "java" / "pom.xml"), "dependency:copy-dependencies",
          f"-DoutputDirectory={out}", f"-Dlib={profile}"])
    _run(["javac", "-cp", f"{out}/*", "-d", str(out / "classes"), str(SOURCES / "java" / f"{main}.java")])


def python(name: str, out: Path) -> None:
    venv.EnvBuilder(with_pip=True, clear=True).create(out)
    _run([str(out / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", *PYTHON[name]])


def python2() -> str:
    """A Python 2.7 interpreter that runs (pyenv's own, or python2.7 on PATH; a pyenv shim for a version not
    selected does not): paramiko 1.x ran on it, with pycrypto."""
    candidates = [str(p) for p in sorted(Path.home().glob(".pyenv/versions/2.7*/bin/python2.7"))]
    candidates += [found] if (found := shutil.which("python2.7")) else []
    for candidate in candidates:
        done = subprocess.run([candidate, "-c", "import sys; assert sys.version_info[:2] == (2, 7)"],
                              capture_output=True, timeout=60, check=False)
        if done.returncode == 0:
            return candidate
    raise Missing("no Python 2.7 (pyenv's, or python2.7 on PATH)")


def paramiko1(name: str, out: Path) -> None:
    """paramiko 1.18.5 with pycrypto 2.6.1 (compiled), into OUT/lib for PYTHONPATH, run by Python 2.7."""
    interpreter = python2()
    _need("gcc")
    out.mkdir(parents=True, exist_ok=True)
    _run([interpreter, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-warn-script-location",
          "--target", str(out / "lib"), "paramiko==1.18.5", "pycrypto==2.6.1"], timeout=1800)
    (out / "python").write_text(interpreter + "\n")


def node(name: str, out: Path) -> None:
    _need("npm", "node")
    out.mkdir(parents=True, exist_ok=True)
    _run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(out), NODE[name]])


def rust(name: str, out: Path) -> None:
    _need("cargo")
    _run(["cargo", "build", "--release", "--locked", "--quiet", "--target-dir", str(out / "target")],
         cwd=SOURCES / "rust", timeout=1800)


def go_2020(name: str, out: Path) -> None:
    _need("go")
    work = out / "src"
    shutil.copytree(SOURCES / "goclient", work, dirs_exist_ok=True)
    env = {"GOFLAGS": "-mod=mod"}
    _run(["go", "get", f"golang.org/x/crypto@{GO_2020}"], cwd=work, env=env)
    _run(["go", "build", "-o", str(out / "goclient"), "."], cwd=work, env=env)


BUILDERS: dict[str, tuple[str, Callable[[str, Path], None]]] = {
    **{name: ("java", java) for name in JAVA}, **{name: ("python", python) for name in PYTHON},
    **{name: ("node", node) for name in NODE}, "rust": ("rust", rust), "go-x-crypto-2020": ("go", go_2020),
    "paramiko-1.18.5": ("python", paramiko1)}


# the sources compiled into a build: a change to them rebuilds it (python and node clients run from tests/clients)
COMPILED = {"java": "java", "rust": "rust", "go": "goclient"}


def stamp(family: str) -> str:
    """What a build was made from: the hash of its compiled sources, so an edited client is rebuilt."""
    digest = hashlib.sha256()
    if family in COMPILED:
        for path in sorted((SOURCES / COMPILED[family]).rglob("*")):
            if path.is_file():
                digest.update(str(path.relative_to(SOURCES)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def prepared(name: str, dest: Path = DEST) -> Path | None:
    """Where a client was built from today's sources, or None if it was not (yet)."""
    family, _ = BUILDERS[name]
    out = dest / family / name
    done = out / ".done"
    return out if done.exists() and done.read_text(encoding="utf-8").strip() == stamp(family) else None


def _one(name: str, dest: Path) -> bool:
    """Build one client unless today's build is there; False when it failed (a missing tool is a skip)."""
    family, build = BUILDERS[name]
    out = dest / family / name
    if prepared(name, dest) is not None:
        return True
    try:
        build(name, out)
    except Missing as why:
        print(f"test-clients: {name} skipped: {why}", file=sys.stderr)
        return True
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"test-clients: {name}: {exc}", file=sys.stderr)
        return False
    (out / ".done").write_text(stamp(family) + "\n", encoding="utf-8")
    print(f"test-clients: {name} ready in {out}", flush=True)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", choices=sorted(BUILDERS), help="build only these")
    parser.add_argument("--dest", type=Path, default=DEST)
    args = parser.parse_args()
    families: dict[str, list[str]] = {}
    for name in args.only or BUILDERS:
        families.setdefault(BUILDERS[name][0], []).append(name)
    # The families at once, each family's clients one after the other (one Maven, pip or npm cache at a time):
    # the Rust build is minutes of compiling while the others mostly fetch (in CI: 290 s in a row before this)
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = pool.map(lambda names: [_one(name, args.dest) for name in names],
                        sorted(families.values(), key=lambda names: BUILDERS[names[0]][0] != "rust"))
        failed = sum(not ok for results in done for ok in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
