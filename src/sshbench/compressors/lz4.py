"""LZ4 in a process of its own on each end: the fastest of the three, the least compression.

In 64 KiB linked blocks (-B4 -BD) rather than its default 4 MiB ones: in a pipe a 4 MiB block holds the stream
back until it is full (4 parallel lz4 uploads measured 47-62 MB/s in a 16 MiB-per-stream sample, 1 stream
263 MB/s), and linked blocks keep the ratio close to the default's.
"""

from sshbench.compressors.base import Compressor

LZ4 = Compressor("lz4", "lz4", "lz4 -1 (levels 1-12) in its own process on each end", program="lz4",
                 package="lz4", levels=(1, 12), default_level=1, quiet=("-q",), extra=("-B4", "-BD"),
                 output_block=64 * 1024)  # -B4: 64 KiB blocks
