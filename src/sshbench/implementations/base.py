"""What an SSH server implementation declares about itself (implementations/__init__.py says who reads it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Window:
    """How many bytes a receiver lets one SSH channel have in flight: a fixed window, or one that grows to its TCP
    receive buffer as the transfer runs (HPN-SSH), capped (for some peers lower)."""

    fixed: int | None  # bytes; None: not known
    follows_tcp: bool = False  # grows to the receive socket's buffer (SO_RCVBUF) while data flows
    cap: int | None = None  # never more than this
    peer_caps: tuple[tuple[str, int], ...] = ()  # (banner substring of the sender, a lower cap for such peers)

    def bytes_for(self, tcp_receive_buffer: int | None, peer_banner: str = "") -> int | None:
        """The window for a receiver whose TCP receive buffer can grow to `tcp_receive_buffer` (None: not known),
        talking to a peer whose banner's softwareversion is `peer_banner`."""
        if not self.follows_tcp:
            return self.fixed
        if tcp_receive_buffer is None:  # it grows with a buffer nobody recorded: not known
            return None
        caps = [cap for marker, cap in self.peer_caps if marker in peer_banner]
        grown = min([tcp_receive_buffer, *([self.cap] if self.cap else []), *caps])
        return max(self.fixed or 0, grown)


@dataclass(frozen=True)
class WindowSetting:
    """How its server's channel receive window is set on its command line (Dropbear's -W), and the sizes it
    takes there: what a `--server NAME:window=SIZE` variant passes it."""

    flag: str  # the option, followed by the size in bytes as its own argument: "-W"
    default: int  # bytes: the window without it (a variant of this size is the server itself)
    maximum: int  # bytes: the largest it takes as given
    minimum: int = 1

    def argv(self, size: int) -> list[str]:
        return [self.flag, str(size)]

    def takes(self, size: int) -> bool:
        return self.minimum <= size <= self.maximum

    @staticmethod
    def named(server: str, size: int) -> str:
        """A window variant's name, as case ids, tables and results carry it: "dropbear-w4194304"."""
        return f"{server}-w{size}"


@dataclass(frozen=True)
class Implementation:
    name: str  # as results store it: openssh, dropbear, tinysshd
    title: str  # as sentences name it
    banner_prefixes: tuple[str, ...]  # the softwareversion of its banner starts with one of these (lower case)
    process: str  # the process that serves a connection, as limits name it
    window: Window  # its SSH channel receive window, from its source
    config_advice: str | None  # how it chooses algorithms, for one that reads no sshd_config (None: OpenSSH)
    strict_kex_release: str | None  # the release that added strict key exchange (the Terrapin fix)
    packages: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # tool -> Debian package
    install_hint: str | None = None  # how to get its server where `apt-get install PACKAGE` is wrong
    banner_marker: str = ""  # a build of another implementation, told apart by this in its banner ("_hpn")
    client: str = "ssh"  # its client and server programs' names (a build's prefix holds bin/CLIENT, sbin/SERVER)
    server: str = "sshd"
    # ssh -G / sshd -T keys worth recording for this build (HPN-SSH's switches), lower case as they print
    settings: tuple[str, ...] = ()
    # Whether its server's TCP socket has TCP_NODELAY as it is deployed: the embedded launcher serves it the same
    # way, so a measurement is of the server as people run it
    nodelay: bool = True
    # The server config lines that allow the none cipher (HPN-SSH's NoneEnabled), and with it the none MAC; empty:
    # it has no none cipher. A run's --none-cipher cases exist only where a build's client and server both have it
    none_cipher_lines: tuple[str, ...] = ()
    none_mac_lines: tuple[str, ...] = ()
    # How the links table's legend states its window, with its source (empty: not stated there)
    window_note: str = ""
    # How its server's window is changed, as advice names it (empty: no option; OpenSSH's is compiled in)
    window_option: str = ""
    # ... and how the embedded launcher sets it, for a window variant (None: it has no such option)
    window_setting: WindowSetting | None = None
    # ... and the client's: the ssh -o options that switch to it after login (it is never named in Ciphers)
    none_cipher_client: tuple[str, ...] = ()
    none_mac_client: tuple[str, ...] = ()
    # Whether its client agrees on an AEAD cipher with no MAC in common (the MAC is implicit): recordings of its
    # client get that right by default (clients record), where paramiko, for one, insists on a common MAC
    aead_without_mac: bool = False
    # Where a drop-in for its server goes (one that reads sshd_config), and what else that needs, said beside it
    dropin_path: str = "/etc/ssh/sshd_config.d/50-sshbench.conf"  # Debian's sshd_config Includes sshd_config.d
    dropin_note: str = ""

    @property
    def has_none_cipher(self) -> bool:
        return bool(self.none_cipher_lines)

    def is_program(self, path: str) -> bool:
        """Whether `path` is this implementation's client or server, by its file name (a build's bin/ and sbin/)."""
        return path.rsplit("/", 1)[-1] in (self.client, self.server)

    @property
    def receive_window(self) -> int | None:
        """The fixed window (None: it grows with TCP, or is not known): Window.bytes_for says more."""
        return None if self.window.follows_tcp else self.window.fixed

    @property
    def reads_sshd_config(self) -> bool:
        """Only OpenSSH and its forks read sshd_config (and drop-ins): the others get advice instead."""
        return self.config_advice is None
