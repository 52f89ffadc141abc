"""A declared axis for the tests, and a launcher that runs the real `sshbench` command with it declared.

The axis is the toy of docs/ARCHITECTURE.md's recipe: the most bytes one
splice of sshbench's source or sink moves (`--chunk-sizes 64KiB,1MiB`). It
is a real axis (its effect is the pipe's extension point, axes/base.py's
`Effect.chunk_bytes`), kept out of the product because no user needs it:
the tests use it to prove that one module and one registry line give an
axis its option, crossing, ids, cross pairs, effect, tables and file form.
Each effect asked for is also written to $SSHBENCH_TOY_AXIS_LOG (one value a
line), so a test can see the measuring code apply each value.

    python tests/toy_axis.py [sshbench arguments]
"""

from __future__ import annotations

import os
import runpy
import sys

from sshbench.axes import Effect
from sshbench.vocabulary.case_terms import PIPE, CaseKind
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.units import format_bytes, parse_size

LOG = "SSHBENCH_TOY_AXIS_LOG"


class ChunkAxis:
    name = "chunk"
    sigil = "%"
    plain = "1MiB"
    cross = 0
    option = "--chunk-sizes"
    help = "the most bytes one splice of sshbench's source or sink moves, e.g. 64KiB,1MiB (a toy axis)"
    column = "chunk"
    kinds = frozenset({CaseKind.CIPHER, CaseKind.MAC})

    def parse(self, text: str) -> tuple[str, ...]:
        values = []
        for part in text.split(","):
            size = parse_size(part.strip())
            if size % 1024 or not 4096 <= size <= 1 << 20:
                raise UsageError(f"bad {self.option} {part!r}: whole KiB from 4KiB to 1MiB, e.g. 64KiB")
            values.append(f"{size // 1024}KiB" if size < 1 << 20 else "1MiB")
        return tuple(dict.fromkeys(values))

    def skipped(self, value: str, method: str) -> str | None:
        return None if method == PIPE or value == self.plain else f"{self.option}: the pipe's own source and sink"

    def effect(self, value: str) -> Effect:
        if path := os.environ.get(LOG):
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(value + "\n")
        return Effect(chunk_bytes=parse_size(value))

    def title(self, value: str) -> str:
        return f"{format_bytes(parse_size(value))} chunks"


CHUNK = ChunkAxis()


def declare() -> None:
    """Declare the toy axis: before any other sshbench module is imported, as a registry line would."""
    import sshbench.axes

    sshbench.axes.DECLARED = (CHUNK,)


if __name__ == "__main__":
    declare()
    sys.argv = ["sshbench", *sys.argv[1:]]
    runpy.run_module("sshbench", run_name="__main__", alter_sys=True)
