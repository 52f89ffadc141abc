"""The embedded server: a private OpenSSH sshd on 127.0.0.1, run as the invoking user.

sshbench owns the listening socket (servers/inetd.py) and starts `sshd -i`
for each connection it expects, so the server side of every connection is
our own child: its CPU time (user and system, including the privsep child,
the session shell and the sink/source tools it waited for) comes exact from
os.wait4, with no sampling and no /proc arithmetic. Connections sshbench did
not open itself get no sshd at all. Everything lives in one private temp dir
(0700): host keys of every type, the client key, known_hosts, both configs
and the server log. `stop()` removes it and kills any server still running;
the context manager guarantees that on success, error and Ctrl-C.
"""

from __future__ import annotations

import os
import pwd
import re
import subprocess
import time
from collections.abc import Mapping

from sshbench.implementations import OPENSSH, UNKNOWN, Implementation, by_program
from sshbench.plumbing.negotiation import client_channel, parse_verbose
from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.plumbing.runs import private_dir
from sshbench.targets.base import ServerSaid
from sshbench.targets.discovery import (
    ClientInfo,
    ServerInfo,
    dump_server_config,
    find_tool,
    lists_from_dump,
    parse_dump,
    run_tool,
    settings_in,
    sshd_version,
)
from sshbench.targets.servers.clientconf import write_client_config, write_known_hosts
from sshbench.targets.servers.identities import make_identity
from sshbench.targets.servers.inetd import LOOPBACK, Inetd
from sshbench.targets.servers.lifecycle import InetdServer
from sshbench.targets.servers.privsep import PrivsepDir
from sshbench.targets.servers.stalls import SilentResolver
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, AlgorithmLists, Kind, needs_certificate
from sshbench.vocabulary.commands import SLOW_LOGINS, USER_KEYS
from sshbench.vocabulary.errors import ServerError

# Paths go unquoted into ssh_config and sshd_config, where spaces split words and % starts a token.
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./+-]+")
ACCEPTED_SECONDS = 60.0  # the slow path of _accepted, for one kind of algorithm

# Host key files to generate: (file suffix, ssh-keygen arguments, required?)
_HOST_KEYS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("ed25519", ("-t", "ed25519"), True),
    ("ecdsa256", ("-t", "ecdsa", "-b", "256"), False),
    ("ecdsa384", ("-t", "ecdsa", "-b", "384"), False),
    ("ecdsa521", ("-t", "ecdsa", "-b", "521"), False),
    ("rsa", ("-t", "rsa", "-b", "3072"), False),
    ("dsa", ("-t", "dsa"), False),  # gone in OpenSSH 10; measured only where it exists
)

# Which host key file serves which signature algorithm.
_KEY_FOR_SIG = {
    "ssh-ed25519": "ed25519",
    "ecdsa-sha2-nistp256": "ecdsa256",
    "ecdsa-sha2-nistp384": "ecdsa384",
    "ecdsa-sha2-nistp521": "ecdsa521",
    "rsa-sha2-512": "rsa",
    "rsa-sha2-256": "rsa",
    "ssh-rsa": "rsa",
    "ssh-dss": "dsa",
}

# Sessions start with SHLVL=1, so bash (which the session runs as `$SHELL -c command`) counts itself a
# nested shell and does not read ~/.bashrc. The user's rc files are not SSH's cost (pyenv's init took
# ~60 ms per connection here), and one killed while it holds a lock (pyenv rehash's) made every later
# connection wait 60 s for it. Real hosts are measured with the user's setup as it is.
_SESSION_ENV = "SetEnv SHLVL=1"
# A connection announced UNCOMPRESSED (servers/inetd.py): a client that always asks for zlib (Dropbear's dbclient)
# is served as by a server configured without compression, and agrees on none
_UNCOMPRESSED = ("-o", "Compression=no")

_KEYWORD = {Kind.CIPHER: "Ciphers", Kind.MAC: "MACs", Kind.KEX: "KexAlgorithms", Kind.HOSTKEY: "HostKeyAlgorithms"}


NO_LOGIN = frozenset({"nologin", "false"})  # login shells that refuse every command (/usr/sbin/nologin, /bin/false)


class EmbeddedOpenSSH(InetdServer):
    """Start with `with EmbeddedOpenSSH(client) as server:`; everything is gone after the block.

    An EmbeddedServer (targets/base.py) for OpenSSH's sshd.
    """

    name = OPENSSH.name
    per_connection = "sshd -i on a TCP_NODELAY socket, CPU by wait4"
    takes_sshd = True
    logs_negotiation = True
    slow_logins = frozenset(SLOW_LOGINS)
    user_keys = frozenset(USER_KEYS)

    def __init__(self, client: ClientInfo, sshd_path: str | None = None, keygen_path: str | None = None,
                 enable: AlgorithmLists | None = None, env: Mapping[str, str] | None = None,
                 admit_all: bool = False, dropin: str | None = None, slow_login: str | None = None) -> None:
        """`enable` restricts what the server offers (tests use it to make the server refuse a name);
        `env` is added to each sshd's environment (the OpenSSL capability mask of --no-aesni);
        `admit_all` serves any loopback connection, like an ordinary sshd: only for tests and benches in
        which this server stands in for a real remote host; `dropin` is Included at the top of the config,
        as Debian's sshd_config includes sshd_config.d/*.conf, so its lines win (tests apply a recommended
        drop-in this way); `slow_login` reproduces a classic stall (targets/servers/stalls.py: "dns")."""
        self.env = {**os.environ, **(env or {})}
        self.slow_login = slow_login
        self._resolver: SilentResolver | None = None
        self.client = client
        self.sshd = find_tool("sshd", sshd_path)
        self.keygen = find_tool("ssh-keygen", keygen_path)
        self._enable = enable
        self._admit_all = admit_all
        self._dropin = dropin
        self.user = pwd.getpwuid(os.geteuid()).pw_name  # who sshd will see, whatever $USER says
        self.dir: str | None = None
        self.port = 0
        self._info: ServerInfo | None = None
        self.inetd: Inetd | None = None
        self._privsep = PrivsepDir()
        self._keys: dict[str, str] = {}
        self._version: tuple[str, str | None] = ("unknown", None)
        self._session_env = ""
        self.defaults = AlgorithmLists()  # this sshd's compiled-in preference lists

    @property
    def implementation(self) -> Implementation:
        """OpenSSH, or the fork its sshd is a build of by the program's name (a build's sbin/hpnsshd is HPN-SSH);
        a banner marked as a fork says the same again in the results (environment.ServerFacts.software)."""
        found = by_program(self.sshd)
        return OPENSSH if found is UNKNOWN else found

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        self._version = sshd_version(self.sshd)  # not OpenSSH's sshd: refused before anything is made
        shell = pwd.getpwuid(os.geteuid()).pw_shell
        if os.path.basename(shell) in NO_LOGIN or not os.access(shell, os.X_OK):
            raise ServerError(f"the embedded OpenSSH server runs each command through the login shell of "
                              f"{self.user}, {shell or 'none'}, which runs none (an account for services, like "
                              "Debian's nobody); run sshbench as a user with a login shell, or use --server dropbear")
        self.dir = private_dir("sshbench-")  # mkdtemp makes it 0700; marked as this run's
        if not _PLAIN_PATH.fullmatch(self.dir):
            raise ServerError(f"the temp dir {self.dir!r} has characters that ssh and sshd config files would "
                              "split or expand (spaces, %, quotes); set TMPDIR to a plain path, e.g. /tmp")
        self._privsep.acquire()
        keys = self._generate_keys()
        self.inetd = Inetd(self._path("expect"), self.env, admit_all=self._admit_all)
        self.port = self.inetd.port
        self._keys = keys
        self._session_env = f"{_SESSION_ENV}\n" if self._accepts(keys, "-o", _SESSION_ENV.replace(" ", "=", 1)) else ""
        self._info = self._write_server_config(keys)
        self.defaults = self._compiled_defaults(keys)
        self._write_client_files(keys)
        argv = [self.sshd, "-i", "-f", self._path("sshd_config"), "-E", self.log_path]
        if self.slow_login is not None:
            self._resolver = SilentResolver(self.dir)
        if self.slow_login == "dns":  # the server's lookups go unanswered
            assert self._resolver is not None
            argv = self._resolver.wrap(argv)  # its own namespace, made inside sshbench's (privsep.py) by the wrap below
        self.inetd.serve(self._privsep.wrap(argv), logged=self._logged, uncompressed=_UNCOMPRESSED)

    def stop(self) -> None:
        """Idempotent: stop accepting, end every sshd child, remove the temp dir, release /run/sshd."""
        super().stop()
        self._privsep.release()
        if self._resolver is not None:
            self._resolver.close()
            self._resolver = None

    @property
    def _sshd(self) -> list[str]:
        """The argv that runs this sshd where it finds its privilege-separation directory (servers/privsep.py)."""
        return self._privsep.wrap([self.sshd])

    def client_argv(self, argv: list[str]) -> list[str]:
        """A client's ssh argv for this server: as it is, or (--slow-login gssapi) trying GSSAPI first with its
        Kerberos lookups sent to the silent resolver (targets/servers/stalls.py)."""
        if self.slow_login != "gssapi" or self._resolver is None:
            return argv
        return self._resolver.wrap([argv[0], "-o", "GSSAPIAuthentication=yes", *argv[1:]])

    def identity(self, kind: str) -> str | None:
        """The client key of type `kind`, made and authorized on first use (targets/servers/identities.py)."""
        assert self.dir is not None, "start() first"
        return make_identity(self.keygen, self.dir, kind, self._path("authorized_keys"))

    def listening_argv(self, port: int) -> list[str]:
        """This server as an ordinary listening sshd on 127.0.0.1:`port` (its own config, keys and user; its
        MaxStartups the default): for the logins-per-second load (measure/logins.py), which runs it in a network
        namespace of sshbench's own, so only sshbench's connections reach it."""
        return [*self._sshd, "-D", "-e", "-f", self._path("sshd_config"), "-o", f"ListenAddress={LOOPBACK}",
                "-o", f"Port={port}"]

    @property
    def info(self) -> ServerInfo:
        """Path, version and what this sshd has enabled (once started)."""
        assert self._info is not None, "start() first"
        return self._info

    # ------------------------------------------------------------ set-up

    def _generate_keys(self) -> dict[str, str]:
        """All host keys plus the client key, made in parallel: RSA-3072 alone takes ~0.5 s."""
        jobs: dict[str, tuple[subprocess.Popen[bytes], bool]] = {}
        for suffix, args, required in (*_HOST_KEYS, ("client", ("-t", "ed25519"), True)):
            prefix = "client_" if suffix == "client" else "host_"
            path = self._path(prefix + ("ed25519" if suffix == "client" else suffix))
            argv = [self.keygen, "-q", *args, "-N", "", "-C", f"sshbench-{suffix}", "-f", path]
            proc = spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            jobs[suffix] = (proc, required)
        keys: dict[str, str] = {}
        try:
            for suffix, (proc, required) in jobs.items():
                _, err = proc.communicate(timeout=60)
                path = self._path("client_ed25519" if suffix == "client" else "host_" + suffix)
                if proc.returncode == 0:
                    keys[suffix] = path
                elif required:
                    raise ServerError(f"ssh-keygen could not make the {suffix} key: "
                                      f"{err.decode(errors='replace').strip()}")
        except BaseException:  # an interrupt or a failure: no ssh-keygen may outlive the temp dir
            for proc, _ in jobs.values():
                if proc.returncode is None:
                    kill_group(proc.pid)
                    reap(proc)
            raise
        return keys

    def _server_hostkey_algs(self, keys: dict[str, str]) -> list[str]:
        return [sig for sig in self.client.supported.hostkey
                if not needs_certificate(sig) and _KEY_FOR_SIG.get(sig) in keys]

    def _config_text(self, keys: dict[str, str], lists: AlgorithmLists, with_dropin: bool = False) -> str:
        host_keys = "\n".join(f"HostKey {path}" for name, path in keys.items() if name != "client")
        include = ""
        if with_dropin and self._dropin is not None:
            with open(self._path("50-dropin.conf"), "w", encoding="utf-8") as fh:
                fh.write(self._dropin)
            include = f"Include {self._path('50-dropin.conf')}\n"
        return include + f"""# sshbench embedded server: private, loopback-only, key auth only.
ListenAddress {LOOPBACK}
Port {self.port}
{host_keys}
PidFile none
AuthorizedKeysFile {self._path('authorized_keys')}
AllowUsers {self.user}
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
HostbasedAuthentication no
UsePAM no
StrictModes no
UseDNS {"yes" if self.slow_login == "dns" else "no"}
GSSAPIAuthentication {"yes" if self.slow_login == "gssapi" else "no"}
# Allowed, not forced: each client connection asks for it (sshbench --compression) or not.
Compression yes
# A pty for the keystroke echo measure (--echo), as an interactive login gets one; nothing else uses it.
PermitTTY yes
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
AllowStreamLocalForwarding no
PermitTunnel no
PrintMotd no
PrintLastLog no
LoginGraceTime 30
LogLevel INFO
Subsystem sftp internal-sftp
""" + self._session_env + "".join(f"{_KEYWORD[kind]} {','.join(lists.of(kind))}\n"
                                 for kind in ALGORITHM_KINDS if lists.of(kind))

    def _write_server_config(self, keys: dict[str, str]) -> ServerInfo:
        """Enable every name the client knows (legacy ones too), drop the ones this sshd rejects."""
        wanted = self._enable or self.client.supported
        lists = AlgorithmLists(
            cipher=wanted.cipher, mac=wanted.mac, kex=wanted.kex,
            hostkey=tuple(a for a in self._server_hostkey_algs(keys) if a in wanted.hostkey),
        )
        config = self._path("sshd_config")
        with open(config, "w", encoding="utf-8") as fh:
            fh.write(self._config_text(keys, lists, with_dropin=True))
        dump = dump_server_config(self._sshd, config)
        if dump.returncode != 0:
            # A different sshd build than the client: keep only the names it accepts.
            lists = AlgorithmLists(**{kind.value: self._accepted(keys, kind, lists.of(kind))
                                      for kind in ALGORITHM_KINDS})
            with open(config, "w", encoding="utf-8") as fh:
                fh.write(self._config_text(keys, lists, with_dropin=True))
            dump = dump_server_config(self._sshd, config)
            if dump.returncode != 0:
                raise ServerError(f"{self.sshd} rejects the generated config: {dump.stderr.strip()[-300:]}")
        version, openssl = self._version
        parsed = parse_dump(dump.stdout)
        return ServerInfo(
            path=self.sshd, version=version, openssl=openssl, enabled=lists_from_dump(parsed),
            host_key_types=tuple(k for k in keys if k != "client"), settings=settings_in(parsed),
        )

    def _compiled_defaults(self, keys: dict[str, str]) -> AlgorithmLists:
        """What this sshd offers with no algorithm lines at all: its compiled-in defaults."""
        probe = self._path("sshd_config.defaults")
        with open(probe, "w", encoding="utf-8") as fh:
            fh.write(self._config_text(keys, AlgorithmLists()))
        dump = dump_server_config(self._sshd, probe)
        return lists_from_dump(parse_dump(dump.stdout)) if dump.returncode == 0 else AlgorithmLists()

    def check_dropin(self, text: str) -> subprocess.CompletedProcess[str]:
        """`sshd -t` then `sshd -T` of a config that Includes `text` as a drop-in, as sshd_config.d would."""
        dropin, config = self._path("50-sshbench.conf"), self._path("sshd_config.dropin-check")
        with open(dropin, "w", encoding="utf-8") as fh:
            fh.write(text)
        with open(config, "w", encoding="utf-8") as fh:
            fh.write(f"Include {dropin}\n" + self._config_text(self._keys, AlgorithmLists()))
        test = run_tool([*self._sshd, "-t", "-f", config])
        return test if test.returncode != 0 else dump_server_config(self._sshd, config)

    def _accepts(self, keys: dict[str, str], *extra: str) -> bool:
        """Whether this sshd takes a config option (older ones lack SetEnv, for instance)."""
        probe = self._path("sshd_config.probe")
        with open(probe, "w", encoding="utf-8") as fh:
            fh.write(self._config_text(keys, AlgorithmLists()))
        return dump_server_config(self._sshd, probe, list(extra)).returncode == 0

    def _accepted(self, keys: dict[str, str], kind: Kind, names: tuple[str, ...]) -> tuple[str, ...]:
        """The names this sshd takes, for a build that differs from the client (slow path only).

        Halves are tried as wholes: a list it takes costs one `sshd -T`, so
        k names it rejects among n cost about 2k log n runs rather than n.
        Bounded in time: an sshd that takes seconds per run is named."""
        probe = self._path("sshd_config.probe")
        with open(probe, "w", encoding="utf-8") as fh:
            fh.write(self._config_text(keys, AlgorithmLists()))
        keyword, deadline = _KEYWORD[kind], time.monotonic() + ACCEPTED_SECONDS

        def takes(group: tuple[str, ...]) -> tuple[str, ...]:
            if time.monotonic() > deadline:
                raise ServerError(f"{self.sshd} took over {ACCEPTED_SECONDS:.0f} s to say which of "
                                  f"{len(names)} {keyword} it accepts: is it OpenSSH's sshd?")
            if dump_server_config(self._sshd, probe, ["-o", f"{keyword}={','.join(group)}"]).returncode == 0:
                return group
            if len(group) == 1:
                return ()
            return takes(group[:len(group) // 2]) + takes(group[len(group) // 2:])

        return takes(names) if names else ()

    def _write_client_files(self, keys: dict[str, str]) -> None:
        with open(self._path("client_ed25519.pub"), encoding="utf-8") as src, \
                open(self._path("authorized_keys"), "w", encoding="utf-8") as dst:
            dst.write(src.read())
        public = []
        for name, path in keys.items():
            if name != "client":
                with open(path + ".pub", encoding="utf-8") as pub:
                    public.append(pub.read())
        write_known_hosts(self._path("known_hosts"), public)
        write_client_config(self.client_config, self.port, self.user, self._path("client_ed25519"),
                            self._path("known_hosts"), self._path("expect"))

    @property
    def log_path(self) -> str:
        return self._path("sshd.log")

    # ------------------------------------------------------------ serving

    def _logged(self, peer_port: int) -> list[str]:
        """A connection announced LOGGED (a client driver's): this sshd logs at debug1 into a file of its own,
        which says what it negotiated and what window the client's channel advertised. debug1 writes ~80 lines
        while the connection is set up and none per packet (a 1 MiB and a 64 MiB upload wrote as many), so the
        data phase is the same as an unlogged connection's."""
        return ["-o", "LogLevel=DEBUG1", "-E", self._path(f"negotiation-{peer_port}.log")]

    def server_said(self, peer_port: int) -> ServerSaid | None:
        """What this sshd logged of a LOGGED connection (its `kex:` lines, as ssh -v's, and the client's channel
        window); the log is removed once read. None: not logged, or nothing negotiated in it."""
        path = self._path(f"negotiation-{peer_port}.log")
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
            os.unlink(path)
        except OSError:
            return None
        negotiated = parse_verbose((0.0, line) for line in lines).negotiated
        return ServerSaid(negotiated, *client_channel(lines)) if negotiated.complete else None

    def log_tail(self, lines: int = 5) -> list[str]:
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as fh:
                return fh.read().splitlines()[-lines:]
        except OSError:
            return []
