"""What a client driver says of its library before anything is measured: its version and what it can negotiate.

The run's ssh is discovered with `ssh -V` and `ssh -Q` (discovery.py); a
library client (clientparts/) is asked the same of its driver (`--probe`), in
the interpreter that will run it, once per run: the version the run records
is the one that measured, never another install's, and the names it can use
decide which of its cases are measured and which are skipped with why
(orchestrate/client_sides.py), before a sample would fail for them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from sshbench.clientparts import ClientPart
from sshbench.targets.discovery import run_tool
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.errors import MissingToolError
from sshbench.vocabulary.untrusted import UntrustedText, algorithm_name

PROBE_SECONDS = 30.0  # an interpreter start and the library's import, on a loaded 2-core machine: ~1 s


@dataclass(frozen=True)
class ClientProbe:
    part: ClientPart
    version: str
    supported: AlgorithmLists = field(default_factory=AlgorithmLists)
    window: int | None = None  # what the library's own constants say, in the install that runs
    max_packet: int | None = None
    program: tuple[str, ...] = ()  # the driver's argv prefix


def probe(part: ClientPart) -> ClientProbe:
    """Ask `part`'s driver (MissingToolError, with the install command, where it cannot say)."""
    argv = [*part.command(), "--probe"]
    done = run_tool(argv, timeout=PROBE_SECONDS)
    try:
        data = json.loads(done.stdout) if done.returncode == 0 else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        said = (done.stderr.strip().splitlines() or ["no answer"])[-1][:300]
        raise MissingToolError(f"--client {part.name}: its driver could not say what it is ({said}); install it: "
                               f"{part.install}")
    try:
        lists = AlgorithmLists(*(tuple(algorithm_name(n, f"{part.name} {key}") for n in data.get(key) or ())
                                 for key in ("ciphers", "macs", "kex", "keys")))
    except UntrustedText as exc:
        raise MissingToolError(f"--client {part.name}: its driver listed {exc}") from None
    return ClientProbe(part, str(data.get("version") or "unknown")[:40], lists, _count(data.get("window")),
                       _count(data.get("max_packet")), tuple(part.command()))


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
