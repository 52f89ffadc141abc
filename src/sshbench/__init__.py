"""sshbench: measure SSH ciphers, MACs, key exchanges and transfer methods."""

__version__ = "0.4.0"
