"""Hand pipelines from one shell, as a user runs them, to an embedded sshd of the bench's own across the same kind
of link sshbench measures: the hand side of bench/remedies_vs_hand.py and bench/commands_vs_hand.py.

Two ways to time a transfer, both a shell's own:
- Two sizes (`Hand.rate`): wall seconds of runs at S and S/4, the difference of bytes over the difference of
  their median times. Logins, process start and TCP's ramp cancel.
- Receiver-timed (`Hand.receiver_rate`): one run at S whose receiving side stamps the clock after each
  sixteenth of each stream's bytes and after its last:
      ssh HOST 'head -c S/16N >/dev/null; date +%s.%N; ... cat >/dev/null; date +%s.%N' < PART
  and reads sshbench's steady window (measure/steady.py) inside that one transfer, from its own stamps: from
  the latest quarter mark to the latest end, counting the bytes still to come where the streams shared one
  bottleneck and N times the least-advanced stream's remaining share where each kept its own pace, as the
  transfer's tail says (measure/parts.py's definition). Over a lossy link two separate transfers each carry
  the loss's own variance, and their difference doubles it: at rtt=40ms with 1% loss the two-size hand's
  rounds spread 160-237 MB/s for 8 streams (5 runs of each size). Until 2026-12-02 the hand counted N x 3S/4N
  whatever the parts did, which reads shared parts' stagger as bytes (CPU-bound Dropbear downloads of 4
  streams: 1.2-1.6x what arrived in the window), and the sweep read those rows as sshbench's error.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import statistics
import subprocess
import time
from pathlib import Path

from clirun import finished
from sshbench.compressors import choice
from sshbench.measure.datapath import make_payload
from sshbench.measure.parts import independence
from sshbench.plan.budget import steady_mark
from sshbench.plumbing import placement
from sshbench.targets.base import HOST_ALIAS, EmbeddedServer
from sshbench.targets.discovery import discover_client
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.link.emulated import EmulatedLinks
from sshbench.targets.servers import embedded_server
from sshbench.vocabulary.linkspec import parse_label
from sshbench.vocabulary.units import MiB

Variant = tuple[int, str]  # (streams, compression)
PROBES = 10  # doublings of the hand's shortest size: 64 MiB a stream to 64 GiB
STAMPS = "date +%s.%N"  # the receiver's clock: the server's shell, where the bytes arrive
STAMP_PARTS = 16  # a receiver-timed stream stamps its clock after each sixteenth of its bytes


def stamping_sink(piece: int) -> str:
    """A receiver that drops its bytes and stamps the clock after every `piece` of them (STAMP_PARTS - 1 times:
    `head -c` reads no further than it is told) and after the last."""
    pieces = "".join(f"head -c {piece} >/dev/null; {STAMPS}; " for _ in range(STAMP_PARTS - 1))
    return f"{pieces}cat >/dev/null; {STAMPS}"


Points = list[tuple[int, float]]  # (bytes in, when) of one stream, in order


def progress(stamps: str, share: int) -> Points:
    """One stream's stamps as (bytes received, time) points: after each sixteenth, then its last byte."""
    times = [float(word) for word in stamps.split()]
    if len(times) != STAMP_PARTS:
        raise SystemExit(f"a hand stream's receiver stamped {len(times)} times, not {STAMP_PARTS}: {stamps[:200]!r}")
    piece = share // STAMP_PARTS
    return [(piece * (k + 1), t) for k, t in enumerate(times[:-1])] + [(share, times[-1])]


def at(points: Points, when: float) -> float:
    """Bytes a stream had received at `when`, read between its stamps (its last byte after its last stamp)."""
    before = (0, points[0][1])
    for moved, t in points:
        if t >= when:
            if t <= before[1]:
                return float(moved)
            return before[0] + (moved - before[0]) * (when - before[1]) / (t - before[1])
        before = (moved, t)
    return float(points[-1][0])


def reached(points: Points, count: float) -> float:
    """When a stream had received `count` bytes, read between its stamps (the inverse of `at`)."""
    before = (0, points[0][1])
    for moved, t in points:
        if moved >= count:
            if moved <= before[0]:
                return t
            return before[1] + (t - before[1]) * (count - before[0]) / (moved - before[0])
        before = (moved, t)
    return points[-1][1]


def window_rate(streams: list[Points], share: int) -> float:
    """The N streams' rate over sshbench's steady window (measure/steady.py), from the hand's own stamps: from
    the moment the last stream was past sshbench's steady mark (plan/budget.steady_mark: a quarter of its bytes,
    never before STEADY_AFTER) to the latest end, counting what a quarter-sized split would still have had to
    move: the bytes still to come where the streams shared one bottleneck, N times the least-advanced one's
    remaining share where each kept its own pace, as the transfer's own tail says (measure/parts.py
    `independence`, the same definition read from this transfer). Counting N x 3/4 of a share whatever the parts
    did read shared parts' stagger as bytes: the hand of CPU-bound Dropbear downloads of 4 streams read 1.2-1.6x
    their bytes. Opening at the quarter where sshbench opens at STEADY_AFTER put TCP's ramp inside the hand's
    window alone: 8 Dropbear downloads of 16 MiB over rtt=154ms read 1.12-1.23 of this hand, sshbench's window
    opening at 8 MiB a stream and the hand's at 4."""
    mark = steady_mark(share)
    if mark is None:
        return float("nan")  # too small for sshbench's steady state: it would not count it either
    opened = max(reached(points, mark) for points in streams)
    ends = [points[-1][1] for points in streams]
    first, closed = min(ends), max(ends)
    if closed <= opened:
        return float("nan")
    at_open = [at(points, opened) for points in streams]
    still = sum(share - moved for moved in at_open)
    split = len(streams) * (share - min(at_open))
    apart = 1.0 if len(streams) == 1 or first <= opened else independence(
        [share] * len(streams), at_open, [at(points, first) for points in streams], (opened, first, closed))
    return (still + apart * (split - still)) / (closed - opened)


class Hand:
    """Hand pipelines from one shell to an embedded sshd of the bench's own, across the same kind of link."""

    def __init__(self, stack: contextlib.ExitStack, link: str, cipher: str | None, data: str, tmp: str,
                 server: str = "openssh") -> None:
        """`server`: the embedded server's registry name, a window variant's too ("dropbear-w4194304", as
        `--server dropbear:window=4MiB` names it)."""
        split = placement.split(placement.allowed())
        self.server = stack.enter_context(self.make_server(server))
        proxy = ""
        self.links: EmulatedLinks | None = None  # the link, and the server's port behind it (a direct client's)
        self.link_port = 0
        if link:  # made before the pinning, as sshbench makes its links: the wire may run on any CPU
            links = self.links = stack.enter_context(EmulatedLinks([parse_label(link)]))
            port = self.link_port = links.serve(self.server)
            proxy = "-o " + shlex.quote("ProxyCommand=" + links.paths[link].proxy_command(port,
                                                                                          self.server.expect_dir))
        if split is not None:
            stack.enter_context(placement.client_side(split))  # what we start from now runs on the client half
            self.server.place(split.server)
        self.ssh = f"{self.server.client.path} -F {self.server.client_config} {proxy}" + (f" -c {cipher}" if cipher
                                                                                         else "")
        # sshbench's own environment for ssh: its ProxyCommand (the link's helper) runs under /bin/sh, not the
        # user's bash, which reads ~/.bashrc there (its stdin is a socket) wherever SHLVL is below 2: a hand
        # started from nohup paid root's rc (~90 ms) on every connection, sshbench none (targets/embedded.py)
        self.env = {**os.environ, **EmbeddedTarget.tool_env}
        payload = make_payload(data, tmp, 1)
        self.data = payload.path
        self.tmp = tmp
        self._files: dict[int, str] = {}

    def make_server(self, name: str) -> EmbeddedServer:
        """The embedded server, not yet started; a subclass makes its own where its clients reach it otherwise
        (bench/clients_vs_hand.py: a library's own socket, which nothing announces)."""
        return embedded_server(name, discover_client())

    def _file(self, size: int) -> str:
        """A file of exactly `size` bytes of the payload, read by ssh (or the compressor) itself: no `cat | head`
        pipeline in front, whose copies cost the client's CPU what sshbench's splice does not (under a CPU hog
        that alone made the hand 1.7x slower)."""
        if size not in self._files:
            path = os.path.join(self.tmp, f"hand-{size}.bin")
            with open(path, "wb") as out:
                if self.data is None:
                    out.truncate(size)  # zeros, sparse: read at memory speed
                else:
                    pattern = Path(self.data).read_bytes()
                    written = 0
                    while written < size:
                        written += out.write(pattern[:size - written])
            self._files[size] = path
        return self._files[size]

    def _source(self, size: int) -> str:
        return f"< {shlex.quote(self._file(size))}"

    def pipeline(self, variant: Variant, share: int, mark: int = 0) -> str:
        """One stream's shell pipeline; with a `mark`, its server side stamps the clock after each `mark` bytes
        (STAMP_PARTS - 1 times) and after the last (each on a line of its own)."""
        streams, text = variant
        del streams
        sink = stamping_sink(mark) if mark else "cat >/dev/null"
        compression = choice(text)
        if compression.external and compression.level is not None:
            pack = shlex.join(compression.compressor.compress(compression.level))
            unpack = shlex.join(compression.compressor.decompress())
            return (f"{pack} {self._source(share)} | {self.ssh} {HOST_ALIAS} "
                    f"{shlex.quote(unpack + ' | { ' + sink + '; }')}")
        options = "-o Compression=yes " if compression.is_ssh else ""
        return f"{self.ssh} {options}{HOST_ALIAS} {shlex.quote(sink)} {self._source(share)}"

    def timed(self, variant: Variant, size: int) -> float:
        """Wall seconds of one shell that starts the variant's streams together and waits for the last."""
        start = time.perf_counter()
        self._run(variant, size)
        return time.perf_counter() - start

    def _run(self, variant: Variant, size: int, mark: int = 0) -> list[str]:
        """One shell starting the variant's streams together and waiting for the last; each stream's output."""
        streams = variant[0]
        outs = [os.path.join(self.tmp, f"stamps-{index}") for index in range(streams)]
        # the stamps file is the subshell's stdout, outside it: a pipeline's own `>/dev/null` stays its own (inside,
        # `ssh ... >/dev/null >stamps` is the last redirection's: every download's bytes went to a file, and the
        # hand of a 46 MB/s zlib download read 19.8)
        jobs = " ".join(f"( {self.pipeline(variant, size // streams, mark)} ) >{shlex.quote(out)} & pids=\"$pids $!\";"
                        for out in outs)
        script = f"pids=; {jobs} fail=0; for p in $pids; do wait $p || fail=1; done; exit $fail"
        done = finished(["sh", "-c", script], env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise SystemExit(f"a hand pipeline failed: {done.stderr.strip()[-300:]}")
        return [Path(out).read_text(errors="replace") for out in outs]  # stamps; any stray bytes are not text

    def receiver_rate(self, variant: Variant, size: int, repeats: int = 1) -> float:
        """Bytes/s of `repeats` runs at `size` (the median of their rates), each timed where its bytes arrive:
        from the moment every stream's first quarter was in to the last stream's last byte (the module's
        docstring says why and what it counts)."""
        streams = variant[0]
        share = size // streams
        rates = []
        for _ in range(repeats):
            outs = self._run(variant, size, share // STAMP_PARTS)
            points = [progress(out, share) for out in outs]
            rates.append(window_rate(points, share))
        return statistics.median(rates)

    def rate(self, variant: Variant, size: int, repeats: int = 1) -> float:
        """Bytes/s from runs of `size` and of size/4 (`repeats` of each, alternating, the median of each): each
        connection's fixed costs cancel, and one slow login or scheduling hiccup moves a median, not the rate."""
        smalls, bigs = self.pairs(variant, size, repeats)
        t_small, t_big = statistics.median(smalls), statistics.median(bigs)
        return (size - size // 4) / (t_big - t_small) if t_big > t_small else float("nan")

    def pairs(self, variant: Variant, size: int, repeats: int) -> tuple[list[float], list[float]]:
        """Wall seconds of `repeats` runs at size/4 and at `size`, alternating (small first): a drift of the
        machine's load then moves both sizes alike."""
        smalls, bigs = [], []
        for _ in range(repeats):
            smalls.append(self.timed(variant, size // 4))
            bigs.append(self.timed(variant, size))
        return smalls, bigs

    def size_for(self, variant: Variant, seconds: float) -> int:
        """The size whose transfer lasts `seconds`, logins included: 64 MiB per stream doubled (at most PROBES
        times) until one lasts that long, then read between the last two probes (a line through both: their
        logins cancel), in whole MiB per stream. One probe's rate would not do: a loopback probe of 64 MiB is
        mostly login (0.4 s), and the 4-s floor it set moved in 0.4 s. Nor the doubled size alone: over
        rtt=40ms with 1% loss it made the hand time 128 MiB where sshbench sized 106, and a lossy stream's pace
        falls with its size (plan/budget.py), so the two timed different spans."""
        size, before = 64 * MiB * variant[0], None
        for _ in range(PROBES):
            took = self.timed(variant, size)
            if took >= seconds:
                break
            before, size = (size, took), size * 2
        else:
            return size
        if before is None or took <= before[1]:
            return size
        low, t_low = before
        needed = low + (size - low) * (seconds - t_low) / (took - t_low)
        per_stream = MiB * variant[0]
        return max(low, min(size, -(-int(needed) // per_stream) * per_stream))
