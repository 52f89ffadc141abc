"""The package people install: sdist and wheel built from this checkout, the wheel installed into a fresh venv and
run from there (`--version`, its man page, a short real run), as a user who never saw the checkout would.

Building takes the build backend from the package registry (build isolation, setuptools >= 77 for the SPDX
license); installing the wheel takes rich and jinja2 from it. Both are what `pip install sshbench` does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from sshbench import __version__
from sshbench.vocabulary.errors import ExitCode

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The sdist and wheel in a fresh directory, and everything `python -m build` printed."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], capture_output=True,
                          cwd=out, text=True, timeout=600, check=False)
    if done.returncode != 0 and "Could not find a version" in done.stdout + done.stderr:
        pytest.skip("no package registry reachable for the build backend")
    assert done.returncode == 0, done.stderr[-2000:]
    return out, done.stdout + done.stderr


def test_the_build_is_clean_and_the_sdist_carries_tests_and_docs(dist: tuple[Path, str]) -> None:
    out, log = dist
    assert "deprecat" not in log.lower(), [line for line in log.splitlines() if "eprecat" in line]
    sdist = next(out.glob("sshbench-*.tar.gz"))
    assert sdist.name == f"sshbench-{__version__}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for needed in ("LICENSE", "CHANGELOG.md", "CONTRIBUTING.md", "Makefile", "docs/methodology.md",
                   "tests/conftest.py", "tests/unit/test_stats.py", "bench/time_to_decision.py", ".ci/run",
                   "share/man/man1/sshbench.1"):
        assert needed in names, needed


def test_the_wheel_installs_into_a_fresh_venv_and_runs(dist: tuple[Path, str], tmp_path: Path) -> None:
    out, _ = dist
    wheel = next(out.glob("sshbench-*-py3-none-any.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                              "-c", str(ROOT / "constraints.txt"), str(wheel)], capture_output=True, text=True,
                             timeout=600, check=False)
    assert install.returncode == 0, install.stderr[-2000:]
    tool = venv / "bin" / "sshbench"
    env = {**os.environ, "PATH": f"{venv / 'bin'}:/usr/bin:/bin:/usr/sbin:/sbin"}
    version = subprocess.run([str(tool), "--version"], capture_output=True, text=True, timeout=60, env=env,
                             check=False)
    assert version.stdout.strip() == f"sshbench {__version__}"
    page = venv / "share" / "man" / "man1" / "sshbench.1"
    assert page.is_file()
    if shutil.which("man"):
        shown = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True, timeout=60,
                               env={**env, "MANPAGER": "cat", "PAGER": "cat"}, check=False)
        assert "EXIT STATUS" in shown.stdout and "ENVIRONMENT" in shown.stdout and "EXAMPLES" in shown.stdout
    results = tmp_path / "r.json"
    run = subprocess.run([str(tool), "--ciphers", "aes128-gcm@openssh.com,chacha20-poly1305@openssh.com", "--macs",
                          "none", "--kex", "none", "--hostkeys", "none", "--directions", "upload", "--runs", "3",
                          "--size", "32MiB", "--output", str(results)], capture_output=True, text=True, timeout=400,
                         env=env, cwd=tmp_path, check=False)  # a fixed run: a 2-minute decision run spent 99 s
    assert run.returncode == ExitCode.OK, run.stderr[-2000:]
    doc = json.loads(results.read_text())
    assert doc["status"] == "complete" and doc["tool_version"] == __version__
    assert run.stdout.startswith("The answer")
