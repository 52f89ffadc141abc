"""`make ssh-builds` with sources that are not release tarballs: one line, a documented exit code, no temp dir.

Each case runs the real script (scripts/ssh_builds.py) in the test's own
TMPDIR and builds nothing: every one is refused before configure runs. The
trickling download is a real HTTP server on loopback that sends a byte every
few seconds.
"""

from __future__ import annotations

import gzip
import http.server
import io
import os
import random
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ssh_builds.py"


def _script(*sources: str, tmp: Path, env: dict[str, str] | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *sources], capture_output=True, text=True, timeout=timeout,
                          check=False, env={**os.environ, "TMPDIR": str(tmp), "SSHBENCH_BUILDS": str(tmp / "builds"),
                                            **(env or {})})


def _tar(members: dict[str, bytes]) -> bytes:
    """A .tar.gz of `members`, the same bytes every time: the gzip header's time is 0, so two pytest workers that
    collect these parameters a second apart collect the same tests (xdist refuses to run otherwise)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return gzip.compress(buffer.getvalue(), mtime=0)


def _one_line(done: subprocess.CompletedProcess[str], code: int, words: str, tmp: Path) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code, done.stderr
    assert len(lines) == 1 and lines[0].startswith("ssh-builds: ") and words in lines[0], done.stderr
    assert "Traceback" not in done.stderr and "\x1b" not in done.stderr
    assert not [e for e in os.listdir(tmp) if e.startswith("sshbench-build-")], "the temp dir stayed"


@pytest.mark.parametrize(("name", "content", "words"), [
    ("notgzip-1.0.tar.gz", b"this is not a gzip stream at all", "not a gzip, xz or tar archive"),
    ("gzipnottar-1.0.tar.gz", gzip.compress(b"plain text, no tar header " * 40, mtime=0),
     "not a gzip, xz or tar archive"),
    ("truncated-1.0.tar.gz", _tar({"t-1.0/configure.ac": random.Random(1).randbytes(5000)})[:2000],
     "cannot unpack it"),
    ("escape-\x1b[31m-1.0.tar.gz", _tar({"e/configure.ac": b""}), "use letters, digits"),
    ("dotdot-1.0.tar.gz", _tar({"../outside/configure.ac": b"AC_INIT"}), "refused to unpack"),
    ("absolute-1.0.tar.gz", _tar({"/tmp/sshbench-abs/configure.ac": b"AC_INIT"}), "no source tree"),  # made relative
    ("empty-1.0.tar.gz", _tar({"README": b"hi"}), "no source tree with a configure.ac"),
])
def test_a_source_that_is_not_a_release_tarball_is_one_line_exit_2(name: str, content: bytes, words: str,
                                                                     tmp_path: Path) -> None:
    source = tmp_path / name
    source.write_bytes(content)
    done = _script(str(source), tmp=tmp_path)
    _one_line(done, 2, words, tmp_path)
    assert not (tmp_path / "outside").exists() and not Path("/tmp/sshbench-abs").exists()


def test_a_missing_source_and_a_bad_scheme(tmp_path: Path) -> None:
    _one_line(_script(str(tmp_path / "nope-1.0.tar.gz"), tmp=tmp_path), 2, "no such tarball", tmp_path)
    _one_line(_script("ftp://example.invalid/openssh-10.2p1.tar.gz", tmp=tmp_path), 2, "give an http(s) URL",
              tmp_path)


class _Trickle(http.server.BaseHTTPRequestHandler):
    """A byte every `period` seconds of a tarball that never ends (the stall never trips: the total must)."""

    period = 2.0

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(10 << 20))
        self.end_headers()
        try:
            for _ in range(100):
                self.wfile.write(b"\x1f")
                self.wfile.flush()
                time.sleep(self.period)
        except OSError:
            return

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def trickle() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/openssh-10.2p1.tar.gz"
    server.shutdown()
    server.server_close()


def test_a_trickling_download_ends_at_its_total_limit_and_a_silent_one_at_the_stall_limit(trickle: str,
                                                                                          tmp_path: Path) -> None:
    started = time.monotonic()
    done = _script(trickle, tmp=tmp_path, env={"SSHBENCH_DOWNLOAD_SECONDS": "5", "SSHBENCH_DOWNLOAD_STALL": "4"})
    assert time.monotonic() - started < 20
    _one_line(done, 2, "the download took over 5 s", tmp_path)
    started = time.monotonic()
    done = _script(trickle, tmp=tmp_path, env={"SSHBENCH_DOWNLOAD_SECONDS": "60", "SSHBENCH_DOWNLOAD_STALL": "1"})
    assert time.monotonic() - started < 20
    _one_line(done, 2, "the download stalled", tmp_path)


def test_sigterm_mid_download_removes_the_temp_dir(trickle: str, tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, str(SCRIPT), trickle], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "TMPDIR": str(tmp_path),
                                            "SSHBENCH_BUILDS": str(tmp_path / "builds")})
    deadline = time.monotonic() + 20
    while not [e for e in os.listdir(tmp_path) if e.startswith("sshbench-build-")] and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    proc.terminate()
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["ssh-builds: interrupted; nothing half-built is kept"]
    assert not [e for e in os.listdir(tmp_path) if e.startswith("sshbench-build-")]
