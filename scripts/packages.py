"""The Debian packages sshbench's parts need, from their own registries: `COMMAND PACKAGE` lines.

scripts/install-deps reads these instead of keeping its own list: each
embedded server (implementations/), each transfer method (methods/) and
each compressor (compressors/) declares the tools it runs and their packages. tinysshd is left out: its
package would enable a service on port 22, so install-deps unpacks it.
Standard library only; run with the system Python before any venv exists.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

from sshbench.compressors import COMPRESSORS
from sshbench.implementations import IMPLEMENTATIONS
from sshbench.methods import METHODS

SERVED = {"openssh": ("ssh", "ssh-keygen", "sshd"), "dropbear": ("dropbear",)}  # what `make run` needs of each


def main() -> None:
    lines: dict[str, str] = {}
    for name, tools in SERVED.items():
        for tool in tools:
            lines[tool] = IMPLEMENTATIONS[name].packages[tool]
    for method in METHODS.values():
        lines.update(method.packages)
    for compressor in COMPRESSORS.values():  # --compression zstd,lz4,gzip: small, so always installed
        if compressor.program and compressor.package:
            lines[compressor.program] = compressor.package
    for tool, package in lines.items():
        print(tool, package)


if __name__ == "__main__":
    main()
