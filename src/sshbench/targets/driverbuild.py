"""Building a compiled client driver into the venv's opt/: `sshbench clients install NAME` and `make clients`.

Why here and not at a run's start: a build fetches its pinned modules from the
language's registry (Go's module proxy, checked against go.sum) and compiles
for a minute on a small machine; a run must not do either, nor depend on a
network. So it is its own step, done once per sshbench install (cached: a
build whose stamp holds today's sources' digest is not made again,
clientparts/built.py), and a run only starts the program it made, offline.
A part's `unavailable()` names this command where there is no build.

The build is made in a temporary directory beside the others (a copy of the
sources: the package's own may be read-only), checked by asking the new
program what it is (`--probe`: its version must be the pinned one), stamped,
and only then moved into place, so an interrupted or failed build leaves the
last good one, or none, never half of one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable

from sshbench.clientparts import ClientPart
from sshbench.clientparts.built import BUILT_DIR, STAMP
from sshbench.plumbing import procs
from sshbench.vocabulary.errors import MissingToolError

BUILD_SECONDS = 900.0  # fetching the pinned modules once and compiling x/crypto/ssh: ~35 s niced on 2 cores
PROBE_SECONDS = 30.0


class NoToolchain(MissingToolError):
    """What builds the driver is not installed: under `clients install all`, that client is skipped, said."""


def install(part: ClientPart, say: Callable[[str], None]) -> str:
    """`part`'s driver built (or found built from today's sources): its path. MissingToolError, with the reason
    and what to do, where its build fails; NoToolchain where what builds it is missing."""
    built = part.built
    assert built is not None, f"{part.name} has no driver to build"
    if built.missing() is None:
        say(f"{part.name}: {built.path} is built from this sshbench's sources ({built.module} {built.release})")
        return built.path
    toolchain = shutil.which(built.toolchain)
    if toolchain is None:
        raise NoToolchain(f"{part.name}: its driver is built with {built.toolchain}, which is not on PATH: "
                               f"install {built.toolchain_install}")
    say(f"{part.name}: building {built.path} from {built.source_dir} ({built.module} {built.release}, as go.sum "
        "pins it; the modules are fetched once)")
    digest = built.digest()
    os.makedirs(BUILT_DIR, exist_ok=True)
    work = tempfile.mkdtemp(prefix=f".{built.sources}.", dir=BUILT_DIR)
    try:
        sources, made = os.path.join(work, "src"), os.path.join(work, built.sources)
        shutil.copytree(built.source_dir, sources)
        os.mkdir(made, 0o755)
        program = os.path.join(made, built.program)
        _ran(part, [toolchain, "build", "-C", sources, "-mod=readonly", "-trimpath", "-o", program, "."],
             BUILD_SECONDS)
        said = _probe(part, program)
        with open(os.path.join(made, STAMP), "w", encoding="utf-8") as fh:
            json.dump({"sources": digest, "module": built.module, "release": built.release,
                       "toolchain": str(said.get("go", ""))}, fh)
        if os.path.isdir(built.directory):
            os.rename(built.directory, os.path.join(work, "old"))
        os.rename(made, built.directory)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say(f"{part.name}: built {built.path}")
    return built.path


def _ran(part: ClientPart, argv: list[str], timeout: float) -> str:
    try:
        done = procs.run_text(argv, timeout)
    except subprocess.TimeoutExpired:
        raise MissingToolError(f"{part.name}: {' '.join(argv[:2])} did not finish within {timeout:.0f}s") from None
    except OSError as exc:
        raise MissingToolError(f"{part.name}: cannot run {argv[0]}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        tail = " / ".join((done.stderr or done.stdout).strip().splitlines()[-4:])
        raise MissingToolError(f"{part.name}: {' '.join(argv[:2])} failed (exit {done.returncode}): {tail[-600:]}")
    return done.stdout


def _probe(part: ClientPart, program: str) -> dict[str, object]:
    """The new program's own word on what it is: its version must be the one its build pinned."""
    built = part.built
    assert built is not None
    try:
        said = json.loads(_ran(part, [program, "--probe"], PROBE_SECONDS))
    except ValueError:
        said = None
    if not isinstance(said, dict) or said.get("client") != part.name or said.get("version") != built.release:
        raise MissingToolError(f"{part.name}: the program built says it is {str(said)[:200]}, not {part.name} with "
                               f"{built.module} {built.release}")
    return said
