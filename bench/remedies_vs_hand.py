"""Streams and compression two ways, side by side in one run: sshbench's figure and the hand pipelines.

    streams:      N of `head -c SIZE/N /dev/zero | ssh HOST 'cat >/dev/null'` started together
    compression:  zstd -3 -T1 -c < DATA | ssh HOST 'zstd -d | wc -c'   (or lz4, gzip)
                  ssh -C HOST 'wc -c' < DATA                            (SSH's own zlib)
                  ssh HOST 'wc -c' < DATA                               (none)

Both cross the same emulated link to the same embedded server, interleaved
round by round in a shuffled order. The hand pipelines are timed as a shell
times them, whole; to take out what every connection pays once (start-up,
key exchange, login: several round trips), each is run with SIZE and with
SIZE/4 and the rate is the difference of bytes over the difference of
times. sshbench times its own steady state. The ratio sshbench / hand is
what this bench prints; within 10% is agreement.

Needs root (the link). Usage:
    python bench/remedies_vs_hand.py --link rtt=80ms --streams 4
    python bench/remedies_vs_hand.py --link rtt=2ms,rate=20mbit --compression ssh,zstd --data text
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shlex
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sshbench.compressors import choice, parse_compression
from sshbench.measure.datapath import make_payload
from sshbench.measure.pipe import SampleSettings, run_sample
from sshbench.plumbing.runs import run_claimed
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.targets.base import HOST_ALIAS
from sshbench.targets.discovery import discover_client
from sshbench.targets.embedded import EmbeddedTarget
from sshbench.targets.link import netns
from sshbench.targets.link.emulated import EmulatedLinks, LinkPath
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.linkspec import parse_label
from sshbench.vocabulary.units import parse_size

CIPHER = "aes128-gcm@openssh.com"


def _ssh(server: EmbeddedOpenSSH, path: LinkPath, port: int, extra: str = "") -> str:
    proxy = path.proxy_command(port, server.expect_dir)
    return (f"{server.client.path} -F {server.client_config} -o {shlex.quote('ProxyCommand=' + proxy)} {extra} "
            f"-c {CIPHER} {HOST_ALIAS}")


def _timed(commands: list[str]) -> float:
    """Wall seconds for shell pipelines started together, until the last ends."""
    start = time.perf_counter()
    procs = [subprocess.Popen(["sh", "-c", c], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for c in commands]
    for proc in procs:
        _, err = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"a hand pipeline failed ({err.strip()[-300:]}): {proc.args!r}")
    return time.perf_counter() - start


def hand_streams(ssh: str, size: int, streams: int) -> list[str]:
    return [f"head -c {size // streams} /dev/zero | {ssh} 'cat >/dev/null'" for _ in range(streams)]


def hand_compressed(ssh: str, ssh_c: str, data: str, size: int, text: str) -> list[str]:
    """One pipeline moving `size` bytes of the payload file (read round and round) with compression `text`."""
    source = f"while :; do cat {shlex.quote(data)} || exit; done | head -c {size}"
    compression = choice(text)
    if compression.is_ssh:
        return [f"{source} | {ssh_c} 'wc -c >/dev/null'"]
    if compression.is_off:
        return [f"{source} | {ssh} 'wc -c >/dev/null'"]
    assert compression.level is not None
    pack = shlex.join(compression.compressor.compress(compression.level))
    unpack = shlex.join(compression.compressor.decompress())
    return [f"{source} | {pack} | {ssh} {shlex.quote(unpack + ' | wc -c >/dev/null')}"]


def differential(run: Callable[[int], float], size: int) -> float:
    """Bytes/s from a run of `size` and one of size/4: the fixed cost of each connection cancels."""
    small = size // 4
    t_small, t_big = run(small), run(size)
    return (size - small) / (t_big - t_small) if t_big > t_small else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--link", default="rtt=80ms")
    parser.add_argument("--streams", type=int, default=0, help="compare N streams (and 1)")
    parser.add_argument("--compression", default="", help="compare these (and off), e.g. ssh,zstd")
    parser.add_argument("--data", default="text", choices=("zero", "random", "text", "mixed"))
    parser.add_argument("--size", default="256MiB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    netns.check_can_emulate()
    size, spec, rng = parse_size(args.size), parse_label(args.link), random.Random(args.seed)
    variants: list[tuple[int, str]] = []
    if args.streams:
        variants += [(1, "off"), (args.streams, "off")]
    if args.compression:
        variants += [(1, "off")] + [(1, c) for c in parse_compression(args.compression) if c != "off"]
    variants = list(dict.fromkeys(variants))
    if not variants:
        raise SystemExit("give --streams N or --compression LIST")
    ours: dict[tuple[int, str], list[float]] = {v: [] for v in variants}
    hand: dict[tuple[int, str], list[float]] = {v: [] for v in variants}
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-remedies-") as tmp:
        server = stack.enter_context(EmbeddedOpenSSH(discover_client()))
        links = stack.enter_context(EmulatedLinks([spec]))
        port = links.serve(server)
        path = links.paths[spec.label]
        target = EmbeddedTarget(server, links.paths, port)
        payload = make_payload(args.data if args.compression else "zero", tmp, args.seed)
        data = payload.path or str(Path(tmp) / "zero")
        if payload.path is None:
            Path(data).write_bytes(bytes(1 << 20))
        ssh, ssh_c = _ssh(server, path, port), _ssh(server, path, port, "-o Compression=yes")
        for rnd in range(args.rounds + 1):  # round 0 warms up and is not counted
            jobs = [(v, who) for v in variants for who in ("sshbench", "hand")]
            rng.shuffle(jobs)
            for (streams, text), who in jobs:
                case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=CIPHER, link=spec.label, streams=streams,
                            compression=text)
                if who == "sshbench":
                    sample = run_sample(target, case, size, rnd, 900, SampleSettings(payload))
                    if not sample.ok or sample.throughput_bytes_per_second is None:
                        raise SystemExit(f"sshbench sample failed: {sample.error}")
                    rate = sample.throughput_bytes_per_second
                else:
                    def run(n: int, streams: int = streams, text: str = text) -> float:
                        commands = hand_streams(ssh, n, streams) if text == "off" and args.streams else \
                            hand_compressed(ssh, ssh_c, data, n, text)
                        return _timed(commands)
                    rate = differential(run, size)
                if rnd:
                    (ours if who == "sshbench" else hand)[(streams, text)].append(rate)
        rtt = statistics.median(path.connect_seconds)
    print(f"link {spec.label} as measured: RTT {rtt * 1000:.2f} ms; {CIPHER}, upload of {size:,} bytes of "
          f"{args.data if args.compression else 'zero'} data, {args.rounds} rounds interleaved (seed {args.seed})")
    base = (1, "off")
    for variant in variants:
        mine, theirs = statistics.median(ours[variant]), statistics.median(hand[variant])
        label = f"{variant[0]} stream{'s' if variant[0] > 1 else ''}, {choice(variant[1]).label}"
        gain = "" if variant == base else (f"; x plain: sshbench {mine / statistics.median(ours[base]):.2f}, "
                                           f"hand {theirs / statistics.median(hand[base]):.2f}")
        print(f"  {label:32s} sshbench {mine / 1e6:8.2f} MB/s (range {min(ours[variant]) / 1e6:.2f}-"
              f"{max(ours[variant]) / 1e6:.2f})  hand {theirs / 1e6:8.2f} MB/s (range {min(hand[variant]) / 1e6:.2f}-"
              f"{max(hand[variant]) / 1e6:.2f})  sshbench / hand = {mine / theirs:.2f}{gain}")


if __name__ == "__main__":
    with run_claimed():  # what it starts is recorded: if it is killed, the next sshbench run ends it
        main()
