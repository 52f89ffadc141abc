"""Build OpenSSH portable and HPN-SSH from release tarballs into the project's own prefix, for `--build`.

    make ssh-builds                          # every tarball in SSHBENCH_SOURCES (default: ../shared/sources)
    make ssh-builds SOURCES="URL-or-PATH ..." # a release tarball by path or URL (openssh-*.tar.gz, hpn-ssh-*)

Each tarball becomes one install prefix, .venv/opt/builds/NAME (NAME: the
tarball's, e.g. hpn-ssh-18.8.0), never a system path. It is configured the
way sshbench's embedded server can run it as root or not: without PAM,
with the privilege-separation user `sshd` (Debian's) and /run/sshd (the
same directory the embedded server prepares), then built and installed
without host keys (`make install-nokeys`). Each build is checked (its
client's -V and -Q cipher, its server's -V) and cached: a prefix holding a
stamp with the tarball's SHA-256 is not built again. A tarball beside a
SHA256SUMS file must match it. A missing tool or header names the Debian
package in one line (exit 3, like scripts/install-deps; as root, `sh
scripts/install-deps --builds` installs them).

Standard library only, so it runs before anything else is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCES = Path(os.environ.get("SSHBENCH_SOURCES") or ROOT.parent / "shared" / "sources")
BUILDS = Path(os.environ.get("SSHBENCH_BUILDS") or ROOT / ".venv" / "opt" / "builds")
CONFIGURE = ("--without-pam", "--with-privsep-user=sshd", "--with-privsep-path=/run/sshd")
STAMP = ".sshbench-build"
# What a build needs on Debian: a tool or a header, and the package that has it
NEEDS = (("autoreconf", "autoconf"), ("aclocal", "automake"), ("make", "make"), ("cc", "gcc"),
         ("/usr/include/openssl/evp.h", "libssl-dev"), ("/usr/include/zlib.h", "zlib1g-dev"))
CLIENTS, SERVERS = ("hpnssh", "ssh"), ("hpnsshd", "sshd")  # HPN-SSH installs its programs under their own names


class BuildFailed(Exception):
    pass


def missing_packages() -> list[str]:
    return sorted({package for need, package in NEEDS
                   if not (os.path.exists(need) if need.startswith("/") else shutil.which(need))})


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetched(source: str, into: Path) -> Path:
    """A local tarball: the path given, or the URL downloaded into `into`."""
    if "://" not in source:
        path = Path(source)
        if not path.is_file():
            raise BuildFailed(f"{source}: no such tarball")
        return path
    if not source.startswith(("https://", "http://")):
        raise BuildFailed(f"{source}: give an http(s) URL or a local path to a tarball")
    target = into / source.rstrip("/").rsplit("/", 1)[-1]
    try:
        with urllib.request.urlopen(source, timeout=60) as response, open(target, "wb") as out:
            shutil.copyfileobj(response, out)
    except OSError as exc:
        raise BuildFailed(f"{source}: download failed ({exc}); download it yourself and give its path") from None
    return target


def name_of(tarball: Path) -> str:
    name = tarball.name
    for suffix in (".tar.gz", ".tgz", ".tar.xz", ".tar"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    raise BuildFailed(f"{tarball}: not a .tar.gz, .tgz, .tar.xz or .tar release tarball")


def checked_sum(tarball: Path) -> str:
    """The tarball's SHA-256, checked against a SHA256SUMS beside it when there is one."""
    digest = sha256(tarball)
    sums = tarball.parent / "SHA256SUMS"
    if sums.is_file():
        listed = {line.split()[1].lstrip("*"): line.split()[0] for line in sums.read_text().splitlines()
                  if len(line.split()) == 2}
        if tarball.name in listed and listed[tarball.name] != digest:
            raise BuildFailed(f"{tarball}: SHA-256 {digest} does not match {sums}")
    return digest


def run(argv: list[str], cwd: Path, log: Path) -> None:
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(argv)}\n")
        out.flush()
        done = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-3:]
        raise BuildFailed(f"{argv[0]} {' '.join(argv[1:2])} failed ({' / '.join(tail)}); the whole log: {log}")


def program(prefix: Path, role: str, names: tuple[str, ...]) -> Path:
    found = next((prefix / role / n for n in names if (prefix / role / n).is_file()), None)
    if found is None:
        raise BuildFailed(f"{prefix}/{role}/ holds none of {', '.join(names)} after the install")
    return found


def check(prefix: Path) -> str:
    """The build answers as SSH should: client -V and -Q cipher, server -V; a one-line summary."""
    client, server = program(prefix, "bin", CLIENTS), program(prefix, "sbin", SERVERS)
    version = subprocess.run([client, "-V"], capture_output=True, text=True, timeout=20, check=False)
    ciphers = subprocess.run([client, "-Q", "cipher"], capture_output=True, text=True, timeout=20, check=False)
    serving = subprocess.run([server, "-V"], capture_output=True, text=True, timeout=20, check=False)
    said = (version.stderr or version.stdout).strip()
    if version.returncode != 0 or ciphers.returncode != 0 or not ciphers.stdout.split() or "OpenSSH" not in said:
        raise BuildFailed(f"{client} does not answer -V / -Q cipher as OpenSSH does: {said[:120]!r}")
    if "OpenSSH" not in serving.stdout + serving.stderr:
        raise BuildFailed(f"{server} -V does not name OpenSSH: {(serving.stderr or serving.stdout)[:120]!r}")
    return f"{said.split(',')[0]}; {len(ciphers.stdout.split())} ciphers ({client.name} -Q cipher)"


def build(source: str, work: Path, jobs: int) -> str:
    """One tarball built and installed into BUILDS/NAME (or found there already); a line saying which."""
    tarball = fetched(source, work)
    name, digest = name_of(tarball), checked_sum(tarball)
    prefix = BUILDS / name
    if (prefix / STAMP).is_file() and (prefix / STAMP).read_text().strip() == digest:
        return f"{name}: cached in {prefix} ({check(prefix)})"
    with tarfile.open(tarball) as archive:
        archive.extractall(work, filter="data")
    tree = next((p for p in work.iterdir() if p.is_dir() and (p / "configure.ac").is_file()), None)
    if tree is None:
        raise BuildFailed(f"{tarball}: no source tree with a configure.ac in it")
    log = work / f"{name}.log"
    if not (tree / "configure").is_file():
        run(["autoreconf", "-f", "-i"], tree, log)
    if prefix.exists():
        shutil.rmtree(prefix)
    run(["./configure", f"--prefix={prefix}", *CONFIGURE], tree, log)
    run(["make", f"-j{jobs}"], tree, log)
    run(["make", "install-nokeys"], tree, log)
    summary = check(prefix)
    (prefix / STAMP).write_text(digest + "\n")
    return f"{name}: built into {prefix} ({summary})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sources", nargs="*", help="release tarballs (paths or URLs); default: every *.tar.gz in "
                        f"{DEFAULT_SOURCES}")
    args = parser.parse_args()
    sources = args.sources or sorted(str(p) for p in DEFAULT_SOURCES.glob("*.tar.gz"))
    if not sources:
        print(f"ssh-builds: no tarballs given and none in {DEFAULT_SOURCES}: give their paths or URLs "
              "(make ssh-builds SOURCES=\"...\")", file=sys.stderr)
        return 2
    if missing := missing_packages():
        print(f"ssh-builds needs these Debian packages: {' '.join(missing)}. Install them as root: sudo sh "
              f"scripts/install-deps --builds (or apt-get install -y {' '.join(missing)})", file=sys.stderr)
        return 3
    BUILDS.mkdir(parents=True, exist_ok=True)
    for source in sources:
        with tempfile.TemporaryDirectory(prefix="sshbench-build-") as tmp:
            try:
                print(build(source, Path(tmp), os.cpu_count() or 2), flush=True)
            except BuildFailed as exc:
                log = next(Path(tmp).glob("*.log"), None)
                kept = None
                if log is not None:  # the temp dir goes; the log stays for whoever reads the error
                    kept = BUILDS / log.name
                    shutil.copy(log, kept)
                print(f"ssh-builds: {str(exc).replace(str(log), str(kept)) if kept else exc}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
