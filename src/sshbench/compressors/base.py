"""What a compression choice is: SSH's own zlib, or a compressor in a process of its own on each end.

Seed study 002's advice for a slow link is to "do the compression
yourself, so that one core can be compressing while ssh is using the other
core": the external compressors run as separate processes in the pipeline
(client: source -> compressor -> ssh; server: ssh -> decompressor -> sink,
and the reverse for a download), so their CPU is their own, measured apart
from ssh's. SSH's own compression (zlib@openssh.com) runs inside ssh and
sshd, on the same core as the cipher.

A choice is spelled `NAME` or `NAME:LEVEL` (`zstd`, `zstd:1`, `gzip:6`);
its canonical text always carries the level (`zstd:3`), so a results file
says exactly what ran. Nothing here runs a process: the measuring side
builds the pipeline from these argv lists and shell words.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass

OFF = "off"
SSH = "ssh"


@dataclass(frozen=True)
class Compressor:
    """One compressor: its tool, the Debian package that has it, its levels and how to run each end."""

    name: str  # as --compression spells it
    label: str  # as tables show it, without the level
    help: str  # a few words for --help
    program: str | None = None  # the tool; None for "off" and for SSH's own zlib
    package: str | None = None  # the Debian package of the tool
    levels: tuple[int, int] | None = None  # the levels the tool takes
    default_level: int | None = None  # its own default: what `NAME` alone means
    extra: tuple[str, ...] = ()  # flags every run of the compressing end gets (e.g. zstd's one thread)
    quiet: tuple[str, ...] = ()  # flags that keep either end from printing progress on a terminal
    # The most its decompressing end writes at once (its block): a receiver counts a stream's bytes after it, so
    # a steady window's byte count is uncertain by up to one block per stream at each end (measure/physics.py)
    output_block: int = 0

    @property
    def external(self) -> bool:
        """A process of its own in the pipeline (not SSH's zlib, not off)."""
        return self.program is not None

    def unavailable(self) -> str | None:
        """Why this machine cannot run it (its tool is not installed), or None."""
        if self.program is None or shutil.which(self.program):
            return None
        return f"{self.program} is not installed (Debian package {self.package}: apt-get install {self.package})"

    def compress(self, level: int) -> tuple[str, ...]:
        """argv of the compressing end: stdin to stdout."""
        assert self.program is not None
        return (self.program, f"-{level}", *self.quiet, *self.extra, "-c")

    def decompress(self) -> tuple[str, ...]:
        """argv of the decompressing end: stdin to stdout."""
        assert self.program is not None
        return (self.program, "-d", *self.quiet, "-c")

    def shell(self, argv: tuple[str, ...]) -> str:
        """The same argv as POSIX sh words, for the server's side of the pipeline."""
        return shlex.join(argv)
