"""The SSH server implementations sshbench knows: what each one is, from its own documentation and source.

One module per implementation, one line in IMPLEMENTATIONS. Each declares
what the rest of sshbench needs to know about it, so no other layer keeps
its own table: how to recognise it by its banner (results), which process
serves a connection and how large its receive window is (analysis: limits
and link verdicts), how it chooses algorithms when it reads no sshd_config
(recommend), which release added strict key exchange (Terrapin advice), and
the Debian packages and install hints of its tools (discovery, the error
lines, scripts/install-deps). The embedded launchers (targets/servers/) run
these implementations; this package runs nothing.
"""

from __future__ import annotations

from sshbench.implementations.base import Implementation, Window, WindowSetting
from sshbench.implementations.dropbear import DROPBEAR
from sshbench.implementations.hpnssh import HPNSSH
from sshbench.implementations.openssh import OPENSSH
from sshbench.implementations.tinysshd import TINYSSHD

IMPLEMENTATIONS: dict[str, Implementation] = {impl.name: impl for impl in (OPENSSH, HPNSSH, DROPBEAR, TINYSSHD)}
UNKNOWN = Implementation("unknown", "an unknown server", (), "server process", Window(None),
                         "this server is not OpenSSH, so sshbench writes no server config for it; SSH uses the "
                         "client's first choice that the server offers (RFC 4253, 7.1), so the client block above "
                         "decides", None, {})
__all__ = ["DROPBEAR", "HPNSSH", "IMPLEMENTATIONS", "OPENSSH", "TINYSSHD", "UNKNOWN", "Implementation", "Window",
           "WindowSetting", "by_banner", "by_program", "implementation", "package_of"]


def by_program(path: str) -> Implementation:
    """The implementation whose client or server program `path` is, by file name (ssh, hpnsshd ...), or UNKNOWN.
    The plain names (ssh, sshd) are OpenSSH's: another implementation's build installs its own names."""
    return next((impl for impl in IMPLEMENTATIONS.values() if impl.is_program(path)), UNKNOWN)


def implementation(name: str) -> Implementation:
    """The implementation results call `name` (openssh, dropbear, tinysshd), or UNKNOWN."""
    return IMPLEMENTATIONS.get(name, UNKNOWN)


def by_banner(software_version: str) -> Implementation:
    """Which implementation a banner's softwareversion names ("OpenSSH_9.2p1", "dropbear_2022.83")."""
    lowered = software_version.lower()
    matching = [impl for impl in IMPLEMENTATIONS.values() if lowered.startswith(impl.banner_prefixes)]
    marked = [impl for impl in matching if impl.banner_marker and impl.banner_marker in lowered]
    return next(iter(marked or [impl for impl in matching if not impl.banner_marker]), UNKNOWN)


def package_of(tool: str) -> tuple[str, str | None]:
    """(Debian package, how to install it when plain apt-get is wrong) of a tool any implementation ships."""
    for impl in IMPLEMENTATIONS.values():
        if tool in impl.packages:
            package = impl.packages[tool]
            return package, impl.install_hint if package == impl.packages.get(impl.process) else None
    return tool, None
