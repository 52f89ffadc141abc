"""The emulated links of a run: namespaces, devices, the wire, a listener for the server, the RTT as applied.

Layout, for links 0..n-1 (all inside sshbench's two namespaces, netns.py):

    client namespace                         server namespace
    l<i> 198.18.<i>.1  ==== link i ====  l<i> 198.18.<i>.2   listener 0.0.0.0:PORT -> embedded server

198.18.0.0/15 is the range RFC 2544 sets aside for benchmarking; it exists
only inside the namespaces. A plain link (rtt=0, nothing else) is a veth
pair, a cable; any other is a pair of TUN devices joined by the wire process
(wire.py), which delays, paces and drops packets as the link asks. The
embedded server keeps running in the machine's namespace; only its extra
listening socket lives in the server namespace (Inetd.add_listener), and
ssh reaches it through fdpass made inside the client namespace.

What was applied is measured, not assumed: TCP connect times through each
link (the SYN/SYN-ACK round trip) after one warm-up connection.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shlex
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

from sshbench.plumbing.procfs import tree_cpu_seconds
from sshbench.plumbing.procs import kill_group, live_children, reap, spawn
from sshbench.plumbing.tcpinfo import available_congestion, default_congestion
from sshbench.results.environment import LinkFacts
from sshbench.targets.base import EmbeddedServer
from sshbench.targets.link import netns
from sshbench.targets.link.meter import LineMeter
from sshbench.targets.servers.clientconf import FDPASS
from sshbench.vocabulary.errors import LinkError
from sshbench.vocabulary.linkspec import LinkSpec

WIRE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wire.py")
QUEUE_PACKETS = 1000  # each direction's queue, as netem's default limit: beyond it packets are dropped
RTT_PROBES = 15  # connect times per link (after one warm-up connect)
CONNECT_TIMEOUT = 15.0
WIRE_STOP_SECONDS = 2.0
WATCH_SECONDS = 0.2  # how often the watchdog looks at the wires


@dataclass
class LinkPath:
    """One emulated link as built: where each end is, and how a connection is made to cross it."""

    spec: LinkSpec
    index: int
    client_ns: str
    server_ns: str
    emulator: str
    connect_seconds: list[float] = field(default_factory=list)
    wire: subprocess.Popen[bytes] | None = None
    wire_control: int | None = None  # write end of the pipe whose EOF stops the wire
    wire_cpu_seconds: float | None = None
    meter: LineMeter | None = None  # the wire's account of its lines (meter.py)
    tun_fds: tuple[int, ...] = ()
    failure: str | None = None  # set by the watchdog when the wire ended on its own: the link is gone
    tcp: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # "client"/"server" -> their TCP limits
    tcp_tuned: bool | None = None
    congestion: str | None = None  # the congestion control its sockets use: cc= or the namespaces' default

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def mtu(self) -> int:
        return self.spec.mtu  # vocabulary/linkspec.py says which size a link gets, and why

    @property
    def client_address(self) -> str:
        return f"198.18.{self.index}.1"

    @property
    def server_address(self) -> str:
        return f"198.18.{self.index}.2"

    def proxy_command(self, port: int, expect_dir: str) -> str:
        """ssh's ProxyCommand for this link: fdpass, made in the client namespace, to the server side."""
        congestion = f" {shlex.quote(self.spec.congestion)}" if self.spec.congestion else ""
        return (f"{shlex.quote(sys.executable)} -S {shlex.quote(FDPASS)} {self.server_address} {port} "
                f"{shlex.quote(expect_dir)} {shlex.quote(self.client_ns)}{congestion}")

    def sender(self) -> socket.socket:
        """A TCP socket on the client side of this link (bound to its address, port chosen by the kernel), with
        the link's congestion control."""
        sock = netns.tcp_socket_in(self.client_ns)
        if self.spec.congestion:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, self.spec.congestion.encode("ascii"))
        sock.bind((self.client_address, 0))
        return sock

    def listener(self) -> socket.socket:
        """A listening TCP socket on the server side of this link."""
        sock = netns.tcp_socket_in(self.server_ns)
        sock.bind((self.server_address, 0))
        sock.listen(16)
        return sock

    def line_idle(self, upstream: bool, at: float) -> float | None:
        """Seconds this link's line toward the server (or back) has sat idle up to `at` (time.perf_counter), by
        the wire's own account; None for a link without a rate (no line to fill) or without a running wire."""
        if not self.spec.rate_bits or self.meter is None or self.wire is None or self.wire.returncode is not None:
            return None
        return self.meter.idle_seconds(upstream, at)

    def facts(self) -> LinkFacts:
        """As built and measured; the wire's CPU so far (from /proc while it runs, wait4 once it stopped)."""
        cpu = self.wire_cpu_seconds
        if cpu is None and self.wire is not None and self.wire.returncode is None:
            cpu = tree_cpu_seconds(self.wire.pid)
        return LinkFacts(label=self.label, emulator=self.emulator, mtu=self.mtu,
                         client_address=self.client_address, server_address=self.server_address,
                         connect_seconds=list(self.connect_seconds), emulator_cpu_seconds=cpu,
                         client_tcp=self.tcp.get("client", {}), server_tcp=self.tcp.get("server", {}),
                         tcp_tuned=self.tcp_tuned, congestion=self.congestion)


class EmulatedLinks:
    """`with EmulatedLinks(specs) as links:` builds every link; afterwards nothing of them is left."""

    def __init__(self, specs: Sequence[LinkSpec], seed: int = 0, tuned: bool = True) -> None:
        """`tuned`: the two ends get a tuned host's TCP buffers (netns.tcp_buffers); else the kernel's."""
        self.specs = list(specs)
        self.seed = seed
        self.tuned = tuned
        self.paths: dict[str, LinkPath] = {}
        self._stack = contextlib.ExitStack()
        self._listeners: list[socket.socket] = []
        self._closing = threading.Event()

    def __enter__(self) -> Self:
        netns.check_can_emulate()
        try:
            client, server = self._stack.enter_context(netns.namespace_pair())
            tcp = {"client": netns.tcp_buffers(client, self.tuned), "server": netns.tcp_buffers(server, self.tuned)}
            default = netns.in_netns(client, default_congestion)
            for index, spec in enumerate(self.specs):
                check_congestion(spec.congestion)
                self._build(index, spec, client, server)
                self.paths[spec.label].tcp, self.paths[spec.label].tcp_tuned = tcp, self.tuned
                self.paths[spec.label].congestion = spec.congestion or default
            for path in self.paths.values():
                path.connect_seconds = measure_rtt(path)
            # inside the try: Thread.start waits for the thread, and an interrupt landing in that wait left
            # __enter__ without close() and without a with to call __exit__: both namespaces stayed behind
            threading.Thread(target=self._watch, name="sshbench-wire-watch", daemon=True).start()
        except BaseException:
            self.close()
            raise
        return self

    def _watch(self) -> None:
        """A wire that ends on its own (killed, crashed) takes its link with it: every later sample over it would
        hang until its timeout. Say which link, and end what is in flight now, so the run stops at once with
        that one line (EmbeddedTarget.check_alive) instead of minutes of timeouts."""
        while not self._closing.wait(WATCH_SECONDS):
            for path in self.paths.values():
                if path.wire is None or path.wire.returncode is not None or self._closing.is_set():
                    continue
                try:  # WNOWAIT: look without reaping (close() reaps it, with its CPU time)
                    ended = os.waitid(os.P_PID, path.wire.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                except ChildProcessError:
                    continue
                if ended is None or self._closing.is_set():
                    continue
                code = ended.si_status if ended.si_code == os.CLD_EXITED else -ended.si_status
                how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
                path.failure = (f"the link emulator of {path.label} (sshbench's wire process, pid {path.wire.pid}) "
                                f"{how}, so nothing crosses that link any more; the run stops here")
                for pid in live_children():  # the samples in flight over the dead link end now, not at timeout
                    if pid != path.wire.pid and all(pid != p.wire.pid for p in self.paths.values() if p.wire):
                        kill_group(pid)
                return

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def serve(self, server: EmbeddedServer) -> int:
        """Give `server` a listener in the server namespace reachable over every link; its port."""
        listener = netns.tcp_socket_in(self.paths[self.specs[0].label].server_ns)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("0.0.0.0", 0))  # every link's server address, and nothing else: the namespace has no other
        listener.listen(16)
        server.listen_also(listener, frozenset(p.client_address for p in self.paths.values()),
                           {p.client_address: p.spec.congestion for p in self.paths.values() if p.spec.congestion})
        return int(listener.getsockname()[1])

    def close(self) -> None:
        """Idempotent: stop each wire (recording its CPU), close the devices, delete the namespaces."""
        self._closing.set()
        try:
            for path in self.paths.values():
                _stop_wire(path)
        finally:  # whatever a wire does, the namespaces go
            self._stack.close()

    def _build(self, index: int, spec: LinkSpec, client: str, server: str) -> None:
        device = f"l{index}"
        made_by = "veth pair (no emulation: a cable)" if spec.plain else f"sshbench wire over TUN, MTU {spec.mtu}"
        path = self.paths[spec.label] = LinkPath(spec, index, client, server, made_by)  # close() finds it half-built
        if spec.plain:
            netns.ip("-n", client, "link", "add", device, "type", "veth", "peer", "name", device, "netns", server)
        else:
            for ns in (client, server):
                path.tun_fds += (netns.open_tun(ns, device),)
        for ns, me, peer in ((client, path.client_address, path.server_address),
                             (server, path.server_address, path.client_address)):
            netns.ip("-n", ns, "addr", "add", f"{me}/32", "peer", f"{peer}/32", "dev", device)
            netns.ip("-n", ns, "link", "set", device, "mtu", str(path.mtu), "up")
        if not spec.plain:
            _start_wire(path, self.seed + index)


def check_congestion(name: str | None) -> None:
    """A LinkError naming the ones this kernel has, where congestion control `name` cannot be set on a socket
    (the kernel loads tcp_NAME on first use, as root)."""
    if name is None:
        return
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, name.encode("ascii"))
    except OSError:
        raise LinkError(f"--link cc={name}: this kernel has no TCP congestion control {name!r}; it has "
                        f"{available_congestion() or 'none listed'} (load another with modprobe tcp_NAME)") from None
    finally:
        probe.close()


def _start_wire(path: LinkPath, seed: int) -> None:
    spec = path.spec
    read_end, write_end = os.pipe()
    path.meter = meter = LineMeter()
    rate = spec.rate_bits / 8 if spec.rate_bits else 0.0
    argv = [sys.executable, "-S", WIRE, str(read_end), str(path.tun_fds[0]), str(path.tun_fds[1]),
            repr(spec.one_way_delay), repr(spec.jitter_seconds / 2), repr(rate), repr(spec.loss),
            str(QUEUE_PACKETS), str(seed), str(meter.fd)]
    try:
        path.wire = spawn(argv, pass_fds=(read_end, meter.fd, *path.tun_fds), stdin=subprocess.DEVNULL)
    except OSError as exc:
        os.close(write_end)
        raise LinkError(f"could not start the link emulator: {exc.strerror or exc}") from None
    finally:
        os.close(read_end)
    path.wire_control = write_end


def _stop_wire(path: LinkPath) -> None:
    if path.wire_control is not None:
        os.close(path.wire_control)
        path.wire_control = None
    if path.wire is not None and path.wire.returncode is None:
        deadline = time.monotonic() + WIRE_STOP_SECONDS
        usage: resource.struct_rusage | None = None
        while time.monotonic() < deadline:
            pid, _status, usage = os.wait4(path.wire.pid, os.WNOHANG)
            if pid:
                path.wire.returncode = 0
                break
            time.sleep(0.01)
        else:
            kill_group(path.wire.pid, 9)
            _status, usage = reap(path.wire)
            path.wire.returncode = -9
        if usage is not None:
            path.wire_cpu_seconds = usage.ru_utime + usage.ru_stime
    if path.meter is not None:
        path.meter.close()
    for fd in path.tun_fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    path.tun_fds = ()


def measure_rtt(path: LinkPath, probes: int = RTT_PROBES) -> list[float]:
    """TCP connect times through the link: the round trip as applied (the first, warming up, is dropped)."""
    listener = path.listener()
    times: list[float] = []
    try:
        for n in range(probes + 1):
            sock = path.sender()
            try:
                sock.settimeout(CONNECT_TIMEOUT)
                start = time.perf_counter()
                sock.connect(listener.getsockname())
                took = time.perf_counter() - start
            except OSError as exc:
                raise LinkError(f"link {path.label}: a TCP connection across it failed ({exc.strerror or exc})") \
                    from None
            finally:
                sock.close()
            conn, _ = listener.accept()
            conn.close()
            if n:
                times.append(took)
    finally:
        listener.close()
    return times
