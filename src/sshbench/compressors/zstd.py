"""Zstandard in a process of its own on each end, --single-thread: one core compressing, and a stream.

Not -T1: that is the multithreaded engine with one worker, which takes its
input in jobs of several MiB and puts each out at once, so in a pipe the
stream moves in bursts (measured upload through a 20 Mbit link: 3.4 MB/s
by sshbench's marks against 7.6 MB/s by hand); --single-thread compresses
and writes block by block (128 KiB), as a stream should.
"""

from sshbench.compressors.base import Compressor

ZSTD = Compressor("zstd", "zstd", "zstd -3 (levels 1-19) in its own process on each end", program="zstd",
                  package="zstd", levels=(1, 19), default_level=3, quiet=("-q",), extra=("--single-thread",),
                  output_block=128 * 1024)  # zstd.h ZSTD_BLOCKSIZE_MAX
