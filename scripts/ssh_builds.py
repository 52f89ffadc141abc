"""Build OpenSSH portable and HPN-SSH from release tarballs into the project's own prefix, for `--build`.

    make ssh-builds                          # every tarball in SSHBENCH_SOURCES (default: ../shared/sources)
    make ssh-builds SOURCES="URL-or-PATH ..." # a release tarball by path or URL (openssh-*.tar.gz, hpn-ssh-*)

Each tarball becomes one install prefix, .venv/opt/builds/NAME (NAME: the
tarball's, e.g. hpn-ssh-18.8.0), never a system path. It is configured the
way sshbench's embedded server can run it as root or not: without PAM,
with the privilege-separation user `sshd` (Debian's) and /run/sshd (the
same directory the embedded server prepares), then built and installed
without host keys (`make install-nokeys`, staged with DESTDIR and moved into
the prefix: its install would otherwise make /run/sshd). Each build is checked (its
client's -V and -Q cipher, its server's -V) and cached: a prefix holding a
stamp with the tarball's SHA-256 is not built again. A tarball beside a
SHA256SUMS file must match it. A missing tool or header names the Debian
package in one line (exit 3, like scripts/install-deps; as root, `sh
scripts/install-deps --builds` installs them).

Every failure is one line on stderr, and the temp dir is removed. Exit
codes: 0 built or cached; 1 a build step failed (its log is kept beside
the builds); 2 a bad source (no such file, not a release tarball of gzip,
xz or tar, a member that would land outside the tree, a name other than
letters, digits and . _ + -, a download that fails, stalls for
STALL_SECONDS or takes over DOWNLOAD_SECONDS); 3 a missing package; 130
interrupted (Ctrl-C, SIGTERM, SIGHUP).

Standard library only, so it runs before anything else is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCES = Path(os.environ.get("SSHBENCH_SOURCES") or ROOT.parent / "shared" / "sources")
BUILDS = Path(os.environ.get("SSHBENCH_BUILDS") or ROOT / ".venv" / "opt" / "builds").absolute()
CONFIGURE = ("--without-pam", "--with-privsep-user=sshd", "--with-privsep-path=/run/sshd")
STAMP = ".sshbench-build"
# What a build needs on Debian: a tool or a header, and the package that has it
NEEDS = (("autoreconf", "autoconf"), ("aclocal", "automake"), ("make", "make"), ("cc", "gcc"),
         ("/usr/include/openssl/evp.h", "libssl-dev"), ("/usr/include/zlib.h", "zlib1g-dev"))
CLIENTS, SERVERS = ("hpnssh", "ssh"), ("hpnsshd", "sshd")  # HPN-SSH installs its programs under their own names
# A release tarball is a few MB: a download that sends nothing for this long, takes longer in all, or grows past
# the cap is given up (a server trickling a byte every 20 s once held `make ssh-builds` for minutes)
STALL_SECONDS = float(os.environ.get("SSHBENCH_DOWNLOAD_STALL") or 30)
DOWNLOAD_SECONDS = float(os.environ.get("SSHBENCH_DOWNLOAD_SECONDS") or 300)
MAX_DOWNLOAD_BYTES = 256 << 20
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")  # it becomes a directory and a --build NAME


class BuildFailed(Exception):
    """A build step failed: exit 1."""


class BadSource(BuildFailed):
    """The source is not a usable release tarball: exit 2."""


def shown(value: object) -> str:
    """A path or name for one line of output: control characters as escapes, never as themselves."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(value))


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
    """A local tarball: the path given, or the URL downloaded into `into` (bounded in time and size)."""
    if "://" not in source:
        path = Path(source)
        if not path.is_file():
            raise BadSource(f"{shown(source)}: no such tarball")
        return path
    if not source.startswith(("https://", "http://")):
        raise BadSource(f"{shown(source)}: give an http(s) URL or a local path to a tarball")
    target = into / source.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
    name_of(target)  # refused before anything is downloaded
    deadline = time.monotonic() + DOWNLOAD_SECONDS
    try:
        with urllib.request.urlopen(source, timeout=STALL_SECONDS) as response, open(target, "wb") as out:
            size = 0
            while chunk := response.read1(1 << 16):  # what has arrived: the deadline is checked per arrival
                size += len(chunk)
                if size > MAX_DOWNLOAD_BYTES:
                    raise BadSource(f"{shown(source)}: larger than {MAX_DOWNLOAD_BYTES >> 20} MiB: not a release "
                                    "tarball")
                if time.monotonic() > deadline:
                    raise BadSource(f"{shown(source)}: the download took over {DOWNLOAD_SECONDS:.0f} s "
                                    f"({size:,} bytes so far); download it yourself and give its path")
                out.write(chunk)
    except TimeoutError:
        raise BadSource(f"{shown(source)}: the download stalled (nothing for {STALL_SECONDS:.0f} s); download it "
                        "yourself and give its path") from None
    except OSError as exc:
        raise BadSource(f"{shown(source)}: download failed ({shown(exc)}); download it yourself and give its "
                        "path") from None
    return target


def name_of(tarball: Path) -> str:
    name = tarball.name
    for suffix in (".tar.gz", ".tgz", ".tar.xz", ".tar"):
        if name.endswith(suffix) and NAME.fullmatch(name[: -len(suffix)]):
            return name[: -len(suffix)]
        if name.endswith(suffix):
            raise BadSource(f"{shown(tarball)}: its name becomes the build's directory and --build NAME: use "
                            "letters, digits and . _ + - (e.g. openssh-10.2p1.tar.gz)")
    raise BadSource(f"{shown(tarball)}: not a .tar.gz, .tgz, .tar.xz or .tar release tarball")


def extracted(tarball: Path, into: Path) -> Path:
    """The source tree in the tarball, unpacked into `into`; BadSource for anything that is not one."""
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(into, filter="data")  # refuses ../ members, absolute paths, links out, devices
    except tarfile.FilterError as exc:
        raise BadSource(f"{shown(tarball)}: refused to unpack ({shown(exc)}): not a release tarball") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        what = "not a gzip, xz or tar archive" if isinstance(exc, tarfile.ReadError) else shown(exc)
        raise BadSource(f"{shown(tarball)}: cannot unpack it ({what}): give a release tarball") from None
    tree = next((p for p in into.iterdir() if p.is_dir() and (p / "configure.ac").is_file()), None)
    if tree is None:
        raise BadSource(f"{shown(tarball)}: no source tree with a configure.ac in it")
    return tree


def checked_sum(tarball: Path) -> str:
    """The tarball's SHA-256, checked against a SHA256SUMS beside it when there is one."""
    digest = sha256(tarball)
    sums = tarball.parent / "SHA256SUMS"
    if sums.is_file():
        listed = {line.split()[1].lstrip("*"): line.split()[0] for line in sums.read_text().splitlines()
                  if len(line.split()) == 2}
        if tarball.name in listed and listed[tarball.name] != digest:
            raise BadSource(f"{shown(tarball)}: SHA-256 {digest} does not match {shown(sums)}")
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
    unpacked = work / "src"
    unpacked.mkdir()
    tree = extracted(tarball, unpacked)
    log = work / f"{name}.log"
    if not (tree / "configure").is_file():
        run(["autoreconf", "-f", "-i"], tree, log)
    if prefix.exists():
        shutil.rmtree(prefix)
    run(["./configure", f"--prefix={prefix}", *CONFIGURE], tree, log)
    run(["make", f"-j{jobs}"], tree, log)
    # staged, then moved into the prefix: `make install` also makes the privilege-separation dir (/run/sshd, mode
    # 0755, looking like the system's own), a path outside the prefix that a build must not touch
    stage = work / "stage"
    run(["make", "install-nokeys", f"DESTDIR={stage}"], tree, log)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(stage / prefix.relative_to(prefix.anchor), prefix)
    summary = check(prefix)
    (prefix / STAMP).write_text(digest + "\n")
    return f"{name}: built into {prefix} ({summary})"


def _interrupted(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt  # the temp dir is removed on the way out, as for Ctrl-C


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sources", nargs="*", help="release tarballs (paths or URLs); default: every *.tar.gz in "
                        f"{DEFAULT_SOURCES}")
    args = parser.parse_args()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupted)
    sources = args.sources or sorted(str(p) for p in DEFAULT_SOURCES.glob("*.tar.gz"))
    if not sources:
        print(f"ssh-builds: no tarballs given and none in {shown(DEFAULT_SOURCES)}: give their paths or URLs "
              "(make ssh-builds SOURCES=\"...\")", file=sys.stderr)
        return 2
    if missing := missing_packages():
        print(f"ssh-builds needs these Debian packages: {' '.join(missing)}. Install them as root: sudo sh "
              f"scripts/install-deps --builds (or apt-get install -y {' '.join(missing)})", file=sys.stderr)
        return 3
    try:
        BUILDS.mkdir(parents=True, exist_ok=True)
        for source in sources:
            if (code := _one(source)) != 0:
                return code
    except KeyboardInterrupt:
        print("ssh-builds: interrupted; nothing half-built is kept", file=sys.stderr)
        return 130
    except OSError as exc:
        print(f"ssh-builds: {shown(exc)}", file=sys.stderr)
        return 1
    return 0


def _one(source: str) -> int:
    with tempfile.TemporaryDirectory(prefix="sshbench-build-") as tmp:
        try:
            print(build(source, Path(tmp), os.cpu_count() or 2), flush=True)
        except BadSource as exc:
            print(f"ssh-builds: {exc}", file=sys.stderr)
            return 2
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
