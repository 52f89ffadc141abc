"""What the local client and a server can negotiate.

Parsers are pure functions over the text the tools print (unit-tested on
recorded outputs in tests/data); the thin `probe_*` functions run the tools.
The client's lists come from `ssh -Q`, its defaults from `ssh -G`, and a
server's enabled lists from `sshd -T` with the exact config it runs with.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sshbench.implementations import IMPLEMENTATIONS, package_of
from sshbench.plumbing import procs
from sshbench.vocabulary.algorithms import AlgorithmLists, Kind, lookup
from sshbench.vocabulary.errors import MissingToolError, ServerError

_SBIN_DIRS = ("/usr/sbin", "/usr/local/sbin", "/sbin", os.path.join(sys.prefix, "opt", "usr", "sbin"))


@dataclass(frozen=True)
class ClientInfo:
    path: str
    version: str
    openssl: str | None
    supported: AlgorithmLists
    defaults: AlgorithmLists
    aead_ciphers: tuple[str, ...]
    key_types: tuple[str, ...]


@dataclass(frozen=True)
class ServerInfo:
    path: str
    version: str
    openssl: str | None
    enabled: AlgorithmLists
    host_key_types: tuple[str, ...] = field(default_factory=tuple)
    settings: tuple[tuple[str, str], ...] = ()  # its implementation's switches as sshd -T says them (HPN-SSH's)


def settings_in(dump: Mapping[str, list[str]]) -> tuple[tuple[str, str], ...]:
    """The switches some implementation declares worth recording (implementations/: HPN-SSH's HPNDisabled,
    TcpRcvBufPoll, NoneEnabled ...), as an `ssh -G` or `sshd -T` dump gives them."""
    keys = dict.fromkeys(key for impl in IMPLEMENTATIONS.values() for key in impl.settings)
    return tuple((key, dump[key][0]) for key in keys if dump.get(key))


def client_settings(ssh: str) -> tuple[tuple[str, str], ...]:
    """The client's declared switches with no config (ssh -G -F /dev/null)."""
    dump = run_tool([ssh, "-G", "-F", "/dev/null", "sshbench-defaults.invalid"])
    return settings_in(parse_dump(dump.stdout)) if dump.returncode == 0 else ()


# ---------------------------------------------------------------- parsers


_VERSION_RE = re.compile(r"(OpenSSH_[^\s,]+(?: [^\s,]+)?)(?:,\s*(.+))?")


def parse_version(text: str) -> tuple[str, str | None]:
    """('OpenSSH_9.2p1 Debian-2+deb12u10', 'OpenSSL 3.0.19 27 Jan 2026') from `ssh -V` output."""
    for line in text.splitlines():
        match = _VERSION_RE.search(line)
        if match:
            crypto = match.group(2).strip() if match.group(2) else None
            return match.group(1), crypto
    raise ValueError(f"no OpenSSH version in {text.strip()[:80]!r}")


# A real OpenSSH lists at most a few dozen names per `ssh -Q` query (10.2: 46 key-sig names); a program that
# lists many more is not one, and each name may cost an `sshd -T` later (servers/openssh.py's slow path).
MAX_QUERY_NAMES = 512


def parse_query_list(text: str) -> tuple[str, ...]:
    """Names from `ssh -Q <query>`: one per line. ValueError past MAX_QUERY_NAMES."""
    names = tuple(line.strip() for line in text.splitlines() if line.strip())
    if len(names) > MAX_QUERY_NAMES:
        raise ValueError(f"{len(names):,} names (a real OpenSSH lists at most a few dozen)")
    return names


def parse_dump(text: str) -> dict[str, list[str]]:
    """`ssh -G` / `sshd -T` output: lowercase keyword -> every value line seen."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition(" ")
        if key:
            out.setdefault(key.lower(), []).append(value.strip())
    return out


def lists_from_dump(dump: Mapping[str, list[str]]) -> AlgorithmLists:
    """The algorithm preference lists in an `ssh -G` or `sshd -T` dump."""

    def names(key: str) -> tuple[str, ...]:
        values = dump.get(key, [""])
        return tuple(n for n in values[0].split(",") if n)

    return AlgorithmLists(
        cipher=names("ciphers"),
        mac=names("macs"),
        kex=tuple(n for n in names("kexalgorithms") if not lookup(n, Kind.KEX).marker),
        hostkey=names("hostkeyalgorithms"),
    )


# ---------------------------------------------------------------- runners


def find_tool(name: str, override: str | None = None) -> str:
    """Absolute path of an OpenSSH tool, or an error naming the package to install."""
    package, hint = package_of(name)
    if override:
        if os.path.isfile(override) and os.access(override, os.X_OK):
            return os.path.abspath(override)
        raise MissingToolError(f"{name} not found at {override}: pass the path of an executable {name}")
    found = shutil.which(name)
    if found is None:
        for directory in _SBIN_DIRS:
            candidate = os.path.join(directory, name)
            if os.access(candidate, os.X_OK):
                found = candidate
                break
    if found is None:
        raise MissingToolError(
            f"{name} not found in PATH or {', '.join(_SBIN_DIRS)}: install the Debian package {package} "
            f"({hint or f'apt-get install {package}'})"
        )
    return os.path.abspath(found)


def run_tool(argv: list[str], timeout: float = 10.0) -> subprocess.CompletedProcess[str]:
    """Run a short discovery command with a bounded time, text output; a hung one is killed with its children."""
    try:
        return procs.run_text(argv, timeout)
    except subprocess.TimeoutExpired:
        raise ServerError(f"{' '.join(argv[:3])} did not finish within {timeout:.0f}s: is {argv[0]} the right "
                          "program?") from None
    except OSError as exc:
        raise MissingToolError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None


def _query(ssh: str, what: str) -> tuple[str, ...]:
    done = run_tool([ssh, "-Q", what])
    try:
        return parse_query_list(done.stdout) if done.returncode == 0 else ()
    except ValueError as exc:
        raise MissingToolError(f"{ssh} -Q {what} listed {exc}: is it OpenSSH's ssh? Pass the path of a real "
                               "OpenSSH client") from None


def discover_client(ssh_override: str | None = None) -> ClientInfo:
    """Versions, supported lists and defaults of the local `ssh`."""
    ssh = find_tool("ssh", ssh_override)
    version_out = run_tool([ssh, "-V"])
    try:
        version, openssl = parse_version(version_out.stderr + version_out.stdout)
    except ValueError:
        said = (version_out.stderr + version_out.stdout).strip().splitlines()[:1] or ["nothing"]
        raise MissingToolError(f"{ssh} is not OpenSSH's ssh (its -V printed {said[0][:60]!r}); sshbench needs "
                               "OpenSSH's client (its -V version, -Q lists, -G and the -v negotiation lines): pass "
                               "its path with --ssh, or install openssh-client") from None
    # key-sig lists signature algorithms (rsa-sha2-256, ...), which is what
    # HostKeyAlgorithms takes; older clients only know `-Q key`.
    key_types = _query(ssh, "key")
    hostkeys = _query(ssh, "key-sig") or key_types
    supported = AlgorithmLists(
        cipher=_query(ssh, "cipher"),
        mac=_query(ssh, "mac"),
        kex=tuple(n for n in _query(ssh, "kex") if not lookup(n, Kind.KEX).marker),
        hostkey=hostkeys,
    )
    # -F /dev/null: the compiled-in defaults, not whatever the user's config says.
    dump = run_tool([ssh, "-G", "-F", "/dev/null", "sshbench-defaults.invalid"])
    defaults = lists_from_dump(parse_dump(dump.stdout)) if dump.returncode == 0 else AlgorithmLists()
    return ClientInfo(
        path=ssh,
        version=version,
        openssl=openssl,
        supported=supported,
        defaults=defaults,
        aead_ciphers=_query(ssh, "cipher-auth"),
        key_types=key_types,
    )


def sshd_version(sshd: str) -> tuple[str, str | None]:
    """sshd has no portable -V (9.2 prints only 'OpenSSH_9.2'); its usage banner has the full string.

    A program whose usage names no OpenSSH version is not OpenSSH's sshd: MissingToolError, before it is
    handed a config it would misread.
    """
    out = run_tool([sshd, "-?"])
    try:
        return parse_version(out.stderr + out.stdout)
    except ValueError:
        said = (out.stderr + out.stdout).strip().splitlines()[:1] or ["nothing"]
        raise MissingToolError(f"{sshd} is not OpenSSH's sshd (it printed {said[0][:60]!r} for -?); pass the path "
                               "of OpenSSH's sshd with --sshd, or install openssh-server") from None


def dump_server_config(sshd: str | list[str], config_path: str,
                       extra: Iterable[str] = ()) -> subprocess.CompletedProcess[str]:
    """`sshd -T` of a config: the effective settings, or a non-zero exit naming the bad line. `sshd`: its path, or
    the argv that runs it (as root, inside sshbench's mount namespace: servers/privsep.py)."""
    return run_tool([*([sshd] if isinstance(sshd, str) else sshd), "-T", "-f", config_path, *extra])
