"""A loopback listener that runs one server process per connection, inetd style, for expected peers only.

Why inetd style: each connection's server (`sshd -i`, later `dropbear -i` or
tinysshd) is our own child, so os.wait4 gives its exact CPU time, and the
peer's port names the connection it served.

Why "expected peers only": every client connection sshbench makes is opened
by sshbench itself (the fdpass helper, or `connect()` here), so the source
port is known before the connection exists. The opener binds its socket,
drops an empty file named after the port into a private 0700 directory
(`expect_dir`), and only then connects. The accept loop starts a server only
for a peer whose file is there, on 127.0.0.1; anything else, another local
user's connect for instance, is closed at once without starting a server,
and counted. Without this, any local user could make a root sshbench spawn
root `sshd -i` processes without limit, and distort the measurement.

A client program that cannot be told its source port (PuTTY's plink has
no option to bind one) is announced by its process instead: a file named
`pid-PID` (PROCESS), written by that process itself before it becomes the
client (exec keeps the pid). A connection from an unannounced port is then
served if an announced process holds its other end (/proc, by the socket's
inode: plumbing/sockowner.py), and the announcement is used up as a port's
is; another user's socket is never in that process, so the rule above
stands. Loopback only: a socket in an emulated link's namespace is not in
this namespace's table, and stays a stranger's.

An announcement may carry words: `log` asks for that connection's server
to log its negotiation (a client driver's connection, clientparts/: the
server's word on what was agreed, where the client's own is a library's);
`uncompressed` asks it to refuse SSH's compression, for a client that always
asks for zlib and has no option against it (Dropbear's dbclient), as a
server configured without compression would. The words only select the extra
arguments the server's launcher declared (`serve(..., logged=, uncompressed=)`);
nothing of the file reaches an argv, and a word no launcher declared is ignored.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence

from sshbench.plumbing import placement
from sshbench.plumbing.procfs import tree_cpu_seconds
from sshbench.plumbing.procs import kill_group, reap, spawn
from sshbench.plumbing.sockowner import holds_socket, socket_inode
from sshbench.targets.base import SERVER_EXIT_SECONDS, ServerProcess

LOOPBACK = "127.0.0.1"
EXPECT_SECONDS = 60.0  # an announced port not used within this long is forgotten
MAX_STRANGERS_KEPT = 20  # peers remembered for the warning (the count is exact)
STOP_GRACE_SECONDS = 0.8  # after SIGTERM, then after SIGKILL: the whole stop stays within an interrupt's 2 s
LOGGED = "log"  # an announcement's word: serve this connection with the launcher's logging arguments
UNCOMPRESSED = "uncompressed"  # ... and with its arguments that refuse compression
WORDS = frozenset({LOGGED, UNCOMPRESSED})
PROCESS = "pid-"  # an announcement named for the process that connects (then its pid), not for its port


def announce(expect_dir: str, port: int | str, note: str = "") -> None:
    """Tell the listener that a connection from `port` is ours (call before connecting); `note`: words of WORDS,
    space-separated, or "". `port` may also be PROCESS and a pid: the connection that process makes."""
    fd = os.open(os.path.join(expect_dir, str(port)), os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        os.write(fd, note.encode("ascii"))
    finally:
        os.close(fd)


class Inetd:
    """Listen on 127.0.0.1, serve expected connections with `argv`, reap each server with wait4."""

    def __init__(self, expect_dir: str, env: Mapping[str, str], admit_all: bool = False, nodelay: bool = True) -> None:
        """`expect_dir` must be private (0700); `admit_all` serves every loopback peer, like an ordinary
        sshd: only for tests and benches that stand in for a real remote server. `nodelay`: each connection's
        socket gets TCP_NODELAY, as the server's deployed form has it (Implementation.nodelay)."""
        self.expect_dir = expect_dir
        self.nodelay = nodelay
        self.env = dict(env)
        self.admit_all = admit_all
        os.makedirs(expect_dir, mode=0o700, exist_ok=True)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((LOOPBACK, 0))  # loopback only, a free port
        self._listener.listen(16)
        self.port: int = self._listener.getsockname()[1]
        self.strangers = 0  # connections refused because nobody expected them
        self.stranger_peers: list[str] = []
        self._argv: list[str] = []
        self._logged: Callable[[int], list[str]] | None = None
        self._uncompressed: tuple[str, ...] = ()
        self._threads: list[threading.Thread] = []
        self._extra: list[socket.socket] = []  # listeners inside sshbench's link namespaces (add_listener)
        self._congestion: dict[str, str] = {}  # peer address -> the congestion control its connections use
        self._lock = threading.Condition()
        self._live: dict[int, int] = {}  # pid -> peer port
        self._done: dict[int, ServerProcess] = {}
        self._pid_of_port: dict[int, int] = {}
        self._stopping = False
        # The CPUs each server is forked onto (plumbing/placement.py); None: wherever sshbench may run.
        self.server_cpus: frozenset[int] | None = None
        self._all_cpus = placement.allowed()

    @property
    def address(self) -> str:
        """The address the listening socket is actually bound to."""
        return str(self._listener.getsockname()[0])

    def serve(self, argv: Sequence[str], logged: Callable[[int], list[str]] | None = None,
              uncompressed: Sequence[str] = ()) -> None:
        """Start accepting; each expected connection gets `argv` with the socket as stdin and stdout, and one
        announced LOGGED also `logged(peer_port)` after it (None: this server logs nothing more), one announced
        UNCOMPRESSED also `uncompressed` (empty: this server has no such arguments)."""
        self._argv = list(argv)
        self._logged = logged
        self._uncompressed = tuple(uncompressed)
        self._accept_from(self._listener, frozenset({LOOPBACK}))

    def add_listener(self, listener: socket.socket, peers: frozenset[str],
                     congestion: Mapping[str, str] | None = None) -> None:
        """Also serve a listening socket made elsewhere (in an emulated link's server namespace,
        targets/link), for announced connections from `peers` only; closed by stop(). A connection from a
        peer address in `congestion` uses that TCP congestion control (set before its server gets it)."""
        self._extra.append(listener)
        self._congestion.update(congestion or {})
        self._accept_from(listener, peers)

    def _accept_from(self, listener: socket.socket, peers: frozenset[str]) -> None:
        thread = threading.Thread(target=self._accept_loop, args=(listener, peers), daemon=True,
                                  name=f"sshbench-accept-{listener.getsockname()[0]}")
        thread.start()  # then kept: an interrupt between the two must not leave stop() an unstarted thread to join
        self._threads.append(thread)

    def connect(self, timeout: float = 10.0) -> socket.socket:
        """A connection of our own (e.g. to read the server's KEXINIT), announced like fdpass's."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((LOOPBACK, 0))
            announce(self.expect_dir, sock.getsockname()[1])
            sock.settimeout(timeout)
            sock.connect((LOOPBACK, self.port))
        except BaseException:
            sock.close()
            raise
        return sock

    def stop(self) -> None:
        """Idempotent: stop accepting, kill every server still running (with anything it started)."""
        self._stopping = True
        for listener in (self._listener, *self._extra):
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for thread in self._threads:
            if thread.ident is not None:  # started (a SIGHUP at 2.7 s found one that was not: "cannot join")
                thread.join(timeout=2)
        with self._lock:  # under the lock, a pid in _live has not been reaped yet: no reuse
            for sig in (signal.SIGTERM, signal.SIGKILL):  # a moment to close sessions cleanly, then no choice
                for pid in self._live:
                    kill_group(pid, sig)
                deadline = time.monotonic() + STOP_GRACE_SECONDS
                while self._live and time.monotonic() < deadline:
                    self._lock.wait(0.02)

    # ------------------------------------------------------------ accepting

    def _expected(self, host: str, port: int, peers: frozenset[str],
                  here: tuple[str, int] | None = None) -> frozenset[str] | None:
        """The announcement's words (of WORDS; empty for none) of an expected connection; None for a stranger.
        `here`: the accepted socket's own address, by which a process announcement finds the connecting one."""
        if self.admit_all and host in peers:
            return frozenset()
        found = self._used(os.path.join(self.expect_dir, str(port)))
        if found is None and host == LOOPBACK and here is not None:
            found = self._by_process((host, port), here)
        if found is None:
            return None
        announced, note = found
        if host not in peers or time.time() - announced >= EXPECT_SECONDS:
            return None
        return frozenset(note.decode("ascii", errors="replace").split()) & WORDS

    @staticmethod
    def _used(path: str) -> tuple[float, bytes] | None:
        """An announcement's time and words, removed as it is read (None: there is none)."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                announced, note = os.fstat(fd).st_mtime, os.read(fd, 64)
            finally:
                os.close(fd)
            os.unlink(path)
        except OSError:
            return None
        return announced, note

    def _by_process(self, peer: tuple[str, int], here: tuple[str, int]) -> tuple[float, bytes] | None:
        """The announcement of the process (PROCESS) that holds the connecting end of `peer`'s connection."""
        try:
            pids = [name for name in os.listdir(self.expect_dir) if name.startswith(PROCESS)]
        except OSError:
            return None
        inode = socket_inode(peer, here) if pids else None
        if inode is None:
            return None
        for name in pids:
            pid = name[len(PROCESS):]
            if pid.isdigit() and holds_socket(int(pid), inode):
                return self._used(os.path.join(self.expect_dir, name))
        return None

    def _accept_loop(self, listener: socket.socket, peers: frozenset[str]) -> None:
        while not self._stopping:
            try:
                conn, peer = listener.accept()
            except OSError:
                return  # listener closed by stop()
            try:
                host, port = peer[0], peer[1]
                if (note := self._expected(host, port, peers, conn.getsockname()[:2])) is not None:
                    if host in self._congestion:  # the sender of a download: the link's cc=
                        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, self._congestion[host].encode())
                    self._spawn(conn, port, note)
                else:
                    self.strangers += 1
                    if len(self.stranger_peers) < MAX_STRANGERS_KEPT:
                        self.stranger_peers.append(f"{host}:{port}")
            finally:
                conn.close()  # a server holds its own copy

    def _spawn(self, conn: socket.socket, peer_port: int, note: frozenset[str] = frozenset()) -> None:
        argv = [*self._argv, *(self._logged(peer_port) if LOGGED in note and self._logged is not None else ()),
                *(self._uncompressed if UNCOMPRESSED in note else ())]
        if self.nodelay:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            if self._stopping:
                return
            # This accept thread takes the server's CPUs first: a fork inherits them from its first instruction.
            placement.pin_this_thread(self.server_cpus or self._all_cpus)
            # Its own session: one killpg then ends the server with everything it forked (sshd's privsep
            # "[net]" child survived an interrupt for minutes when only the direct child was killed).
            proc = spawn(argv, stdin=conn.fileno(), stdout=conn.fileno(), stderr=subprocess.DEVNULL,
                         close_fds=True, env=self.env)
            self._live[proc.pid] = peer_port
            self._pid_of_port[peer_port] = proc.pid
        # The reaper holds the Popen until it has reaped it: a Popen dropped while its child runs is polled by
        # every later Popen (subprocess._cleanup), which took a finished server from under wait4 ("the server
        # process of this connection was not found", 2 samples of 200 in a fresh-clone CI run)
        threading.Thread(target=self._reap, args=(proc, peer_port, time.monotonic()),
                         name=f"sshbench-reap-{proc.pid}", daemon=True).start()

    def _reap(self, proc: subprocess.Popen[bytes], peer_port: int, started: float) -> None:
        pid = proc.pid
        status, usage = reap(proc)
        record = None if usage is None else ServerProcess(
            peer_port=peer_port, exit_status=os.waitstatus_to_exitcode(status), cpu_user_s=usage.ru_utime,
            cpu_sys_s=usage.ru_stime, wall_s=time.monotonic() - started)
        with self._lock:
            self._live.pop(pid, None)
            self._pid_of_port.pop(peer_port, None)
            if record is not None:
                self._done[peer_port] = record
            self._lock.notify_all()

    # ------------------------------------------------------------ what each connection cost

    def server_process(self, peer_port: int, timeout: float = SERVER_EXIT_SECONDS) -> ServerProcess | None:
        """The reaped server of the connection from `peer_port`; waits for it to exit (SERVER_EXIT_SECONDS)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while peer_port not in self._done:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._lock.wait(remaining)
            return self._done.pop(peer_port)

    def server_pid(self, peer_port: int) -> int | None:
        """The live server process of the connection from `peer_port` (None once it has ended)."""
        with self._lock:
            return self._pid_of_port.get(peer_port)

    def server_cpu_so_far(self, peer_port: int) -> float | None:
        """CPU used until now by the live server of this connection (None if it is gone or /proc can't say)."""
        with self._lock:
            pid = self._pid_of_port.get(peer_port)
        return None if pid is None else tree_cpu_seconds(pid)

    @property
    def running(self) -> int:
        with self._lock:
            return len(self._live)
