"""Zstandard in a process of its own on each end; one worker thread, so "one core compressing" is what runs."""

from sshbench.compressors.base import Compressor

ZSTD = Compressor("zstd", "zstd", "zstd -3 (levels 1-19) in its own process on each end", program="zstd",
                  package="zstd", levels=(1, 19), default_level=3, quiet=("-q",), extra=("-T1",))
