"""gzip (zlib's deflate, as SSH's own compression) in a process of its own on each end."""

from sshbench.compressors.base import Compressor

GZIP = Compressor("gzip", "gzip", "gzip -6 (levels 1-9) in its own process on each end", program="gzip",
                  package="gzip", levels=(1, 9), default_level=6, extra=("-n",),
                  output_block=32 * 1024)  # deflate's 32 KiB window: what gzip -d flushes at most
