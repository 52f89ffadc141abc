"""What sshbench's own source costs the client's CPU: the paced source against the blocking one it replaced.

A blocking splice into a full pipe wakes each time ssh takes a little (about 45 KiB), so sshbench's own process
woke tens of thousands of times per GiB; where the client's CPU is the limit (several streams, a loaded machine),
what it spent doing so was taken from the transfer a user's `ssh HOST cmd < FILE` runs without. The paced source
(measure/datapath.py) moves what the pipe takes, then sleeps until about half of it has gone.

Alternates, in one run, uploads through the embedded sshd (split placement, text payload) with the paced source
and with the blocking loop it replaced (kept here only as the reference), for 1 and 4 streams, and prints per
variant the median steady rate, sshbench's own CPU seconds per GiB (its process, all threads, no children:
getrusage) and its splice calls per GiB, with paced / blocking ratios side by side.

Usage: python bench/source_pacing.py [--rounds 5] [--size 1GiB] [--cipher aes128-gcm@openssh.com] [--hog]
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import resource
import statistics
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

from remedies_vs_hand import hogs, machine_line
from sshbench.measure import datapath
from sshbench.measure.datapath import CHUNK, Payload, Tick, make_payload
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.measure.sysinfo import load_average
from sshbench.plumbing import placement
from sshbench.plumbing.runs import run_claimed
from sshbench.plumbing.signals import interrupts_end_the_command
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.discovery import discover_client
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.units import parse_size

_calls = [0]


@dataclass(frozen=True)
class BlockingPayload(Payload):
    """The source before pacing: one blocking splice after another, each waking when ssh has read a little."""

    def send(self, fd: int, nbytes: int, tick: Tick = datapath._ignore, chunk: int = CHUNK) -> None:
        assert self.path is not None
        size = os.path.getsize(self.path)
        with open(self.path, "rb", buffering=0) as pattern:
            offset, left = 0, nbytes
            while left:
                moved = os.splice(pattern.fileno(), fd, min(chunk, left, size - offset), offset_src=offset)
                _calls[0] += 1
                if moved <= 0:
                    raise BrokenPipeError(errno.EPIPE, "splice wrote nothing")
                left -= moved
                offset = (offset + moved) % size
                tick(moved)


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def _counted_splices() -> Iterator[None]:
    """Count the paced source's splice calls as the blocking reference counts its own."""
    original = os.splice

    def counting(*args: int, **kwargs: int) -> int:
        _calls[0] += 1
        return original(*args, **kwargs)

    os.splice = counting  # type: ignore[assignment]
    try:
        yield
    finally:
        os.splice = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", default="1GiB")
    parser.add_argument("--cipher", default="aes128-gcm@openssh.com")
    parser.add_argument("--hog", action="store_true", help="a busy process per CPU, each a session of its own")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    size = parse_size(args.size)
    results: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    load = [load_average()]
    with tempfile.TemporaryDirectory(prefix="bench-pacing-") as tmp, contextlib.ExitStack() as stack:
        paced = make_payload("text", tmp, 1)
        sources = {"paced": paced, "blocking": BlockingPayload(paced.kind, paced.path)}
        split = placement.split(placement.allowed())
        server = stack.enter_context(EmbeddedOpenSSH(discover_client()))
        if split is not None:
            stack.enter_context(placement.client_side(split))
            server.place(split.server)
        target = EmbeddedTarget(server)
        stack.enter_context(hogs(args.hog))
        for round_no in range(args.rounds + 1):  # round 0 warms up
            for streams in (1, 4):
                for name, payload in sources.items():
                    case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=args.cipher, streams=streams)
                    _calls[0] = 0
                    before = _own_cpu()
                    with _counted_splices() if name == "paced" else contextlib.nullcontext():
                        sample = run_sample(target, case, size, round_no + 1, 600, SampleSettings(payload=payload))
                    own = _own_cpu() - before
                    if not sample.ok or not sample.steady_seconds or not sample.steady_bytes:
                        raise SystemExit(f"{name} {streams} streams: {sample.error or 'no steady window'}")
                    if round_no:
                        gib = size / (1 << 30)
                        results.setdefault((name, streams), []).append(
                            (sample.steady_bytes / sample.steady_seconds, own / gib, _calls[0] / gib))
        load.append(load_average())
    _print(args, size, results, load)


def _print(args: argparse.Namespace, size: int, results: dict[tuple[str, int], list[tuple[float, float, float]]],
           load: list[list[float] | None]) -> None:
    print(machine_line(load, args.hog))
    print(f"{args.cipher} upload of text, {size:,} bytes per sample, {args.rounds} rounds, paced and blocking "
          f"alternating")
    for streams in (1, 4):
        row = {}
        for name in ("paced", "blocking"):
            values = results[(name, streams)]
            row[name] = [statistics.median(v[i] for v in values) for i in range(3)]
            rate, own, calls = row[name]
            print(f"  {streams} stream{'s' if streams > 1 else ' '} {name:8s}: {rate / 1e6:7.1f} MB/s steady, "
                  f"sshbench's own CPU {own:.3f} s/GiB, {calls:8.0f} splice calls/GiB")
        a, b = row["paced"], row["blocking"]
        print(f"  {streams} stream{'s' if streams > 1 else ' '} paced / blocking: rate {a[0] / b[0]:.2f}, "
              f"own CPU {a[1] / b[1]:.2f}, splice calls {a[2] / b[2]:.2f}")


if __name__ == "__main__":
    # SIGTERM and SIGHUP unwind like Ctrl-C (what it started is removed); what it starts is recorded, so if it is
    # killed outright the next sshbench run ends it
    with interrupts_end_the_command(), run_claimed():
        main()
