"""SSH's own compression: zlib@openssh.com, inside ssh and sshd, on the cipher's core.

OpenSSH starts it at zlib level 6 after login (packet.c,
start_compression_out(ssh, 6)); the level cannot be chosen. It is asked for
per connection with `-o Compression=yes`, and sshbench checks in ssh -v
that zlib@openssh.com was negotiated in both directions.
"""

from sshbench.compressors.base import SSH, Compressor

SSH_COMPRESSOR = Compressor(SSH, "SSH zlib", "SSH's own zlib@openssh.com (ssh -C), level 6, inside ssh and sshd",
                            levels=(6, 6), default_level=6)
