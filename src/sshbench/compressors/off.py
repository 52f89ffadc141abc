"""No compression: the bytes cross the link as they are (the plain case every remedy is compared with)."""

from sshbench.compressors.base import OFF, Compressor

OFF_COMPRESSOR = Compressor(OFF, "none", "no compression (the default)")
