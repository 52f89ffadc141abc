"""What an SSH server implementation declares about itself (implementations/__init__.py says who reads it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Implementation:
    name: str  # as results store it: openssh, dropbear, tinysshd
    title: str  # as sentences name it
    banner_prefixes: tuple[str, ...]  # the softwareversion of its banner starts with one of these (lower case)
    process: str  # the process that serves a connection, as limits name it
    receive_window: int | None  # its SSH channel window, bytes (None: not known)
    config_advice: str | None  # how it chooses algorithms, for one that reads no sshd_config (None: OpenSSH)
    strict_kex_release: str | None  # the release that added strict key exchange (the Terrapin fix)
    packages: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # tool -> Debian package
    install_hint: str | None = None  # how to get its server where `apt-get install PACKAGE` is wrong

    @property
    def reads_sshd_config(self) -> bool:
        """Only OpenSSH reads sshd_config.d drop-ins: the others get advice instead of a drop-in."""
        return self.config_advice is None
