"""The scenarios bench/scenario_sweep.py measures, drawn at random from one seed.

Why at random: the benches beside this one each check a case someone chose (a link, a stream count, a
compressor) and the code was tuned until those agreed with the hand. A draw over the whole space a user may give
(any round trip up to 200 ms, a rate from 5 Mbit to 1 Gbit or none, some loss, either packet size, either data,
1-8 streams, every compressor, both servers and directions, and short commands) finds the combinations nobody
picked. Why from a seed: a row that fails must be measured again as it was, so the same seed gives the same
scenarios in the same order (the redraws after a refusal included: they come from the same stream of numbers).

Pure: nothing here runs a command, so tests/unit/test_scenario_draw.py checks the draw without a network.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass

from sshbench.compressors import choice
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.vocabulary.linkspec import parse_label

RTT_MAX_MS = 200
RATE_MBIT = (5, 1000)  # drawn evenly on a log scale: 5-50 Mbit is as likely as 100 Mbit-1 Gbit
LOSS_MAX_PERCENT = 2.0
MTUS = (1500, 9000)  # a real path's packets, and jumbo frames (the link's mtu= key)
DATA = ("text", "random")  # compressible 3:1, and not at all
STREAMS = (1, 2, 4, 8)
COMPRESSION = ("off", "ssh", "zstd", "lz4")
SERVERS = ("openssh", "dropbear", "tinysshd")
# The draw before tinysshd joined (seeds 2186873485, 1943309131 and 3988202138 in docs/methodology.md were drawn
# from these; `--servers openssh,dropbear` draws them again, number for number)
FIRST_SERVERS = ("openssh", "dropbear")
DIRECTIONS = ("upload", "download")
# How often a draw leaves a value at its plain setting: a sweep of only lossy, rate-limited links would never
# check the plain ones most users have
NO_RTT, NO_RATE, NO_LOSS, COMMANDS = 0.2, 0.3, 0.6, 0.25
# The one cipher of each scenario: aes128-gcm where the server offers it; Debian 12's Dropbear 2022.83 offers no
# GCM (docs/servers.md), so there its AEAD cipher, which needs no MAC either (both AEAD: --macs none holds);
# tinysshd has chacha20-poly1305 alone, and no SSH compression (a draw of `ssh` there is `off`, as its user has)
CIPHERS = {"openssh": "aes128-gcm@openssh.com", "dropbear": "chacha20-poly1305@openssh.com",
           "tinysshd": "chacha20-poly1305@openssh.com"}
# What every scenario's sshbench run shares: one cipher, no other sweep, no echo or controls, its budget fitted
FIXED = ("--macs", "none", "--kex", "none", "--hostkeys", "none", "--echo", "0", "--no-controls", "--fit",
         "--placement", "split")


@dataclass(frozen=True)
class Scenario:
    """One drawn scenario: a transfer (or a short command, `kind` "commands") through one emulated link."""

    kind: str  # "transfer" or "commands"
    link: str  # the link's canonical --link text (LinkSpec.label)
    server: str
    seed: int  # sshbench's own --seed, so its schedule repeats too
    data: str = "zero"
    streams: int = 1
    compression: str = "off"  # canonical (compressors/): off, ssh, zstd:3, lz4:1
    direction: str = "upload"

    @property
    def commands(self) -> bool:
        return self.kind == "commands"

    @property
    def cipher(self) -> str | None:
        """The cipher both sshbench and the hand use; None for short commands (the client's own, as sshbench's
        command cases use)."""
        return None if self.commands else CIPHERS[self.server]

    @property
    def case_id(self) -> str:
        """The id of the transfer case sshbench measures for it, as its results file names it."""
        assert self.cipher is not None
        return Case(CaseKind.CIPHER, Direction(self.direction), cipher=self.cipher, link=self.link,
                    streams=self.streams, compression=self.compression).id

    @property
    def ceiling(self) -> float | None:
        """The link's payload capacity in bytes/s where it has a rate: its rate less each packet's IP and TCP
        headers at its MTU (TCP's payload, which is what SSH's wire bytes are); None without a rate."""
        spec = parse_label(self.link)
        return spec.payload_bytes_per_second()

    @property
    def text(self) -> str:
        """The scenario in one line, as the sweep prints it."""
        where = f"{self.server} over {self.link}"
        if self.commands:
            return f"ssh HOST true (fresh logins), {where}"
        streams = f"{self.streams} stream{'s' if self.streams > 1 else ''}"
        return (f"{self.direction}, {self.data} data, {streams}, {choice(self.compression).label}, {self.cipher}, "
                f"{where}")

    def argv(self, budget: str) -> list[str]:
        """sshbench's arguments for this scenario, with `budget` as its --time-budget."""
        shared = ["--link", self.link, "--server", self.server, *FIXED, "--time-budget", budget, "--seed",
                  str(self.seed)]
        if self.commands:
            return [*shared, "--commands", "true", "--reuse", "fresh"]
        assert self.cipher is not None
        return [*shared, "--ciphers", self.cipher, "--directions", self.direction, "--data", self.data,
                "--streams", str(self.streams), "--compression", self.compression]


def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def draw_link(rng: random.Random) -> str:
    """A link's canonical text: rtt 0-200 ms (whole ms), rate 5 Mbit-1 Gbit (whole Mbit) or none, loss 0-2% (two
    decimals; most often none), mtu 1500 or 9000 (always given, so the packet size is the draw's, not the default's
    rule). Written back by sshbench's own parser: what the sweep passes is what a results file names."""
    rtt = 0 if rng.random() < NO_RTT else round(_log_uniform(rng, 1, RTT_MAX_MS))
    rate = None if rng.random() < NO_RATE else round(_log_uniform(rng, *RATE_MBIT))
    loss = 0.0 if rng.random() < NO_LOSS else max(0.01, round(rng.uniform(0, LOSS_MAX_PERCENT), 2))
    mtu = rng.choice(MTUS)
    parts = [f"rtt={rtt}ms" if rtt else "rtt=0"]
    parts += [f"rate={rate}mbit"] if rate else []
    parts += [f"loss={loss:g}%"] if loss else []
    return parse_label(",".join([*parts, f"mtu={mtu}"])).label


def draw(rng: random.Random, servers: tuple[str, ...] = SERVERS) -> Scenario:
    """One scenario. Every value is drawn whatever the kind, so a scenario's draws never depend on an earlier
    one's kind beyond its own: the stream of numbers stays aligned across kinds."""
    kind = "commands" if rng.random() < COMMANDS else "transfer"
    link, server, seed = draw_link(rng), rng.choice(servers), rng.randrange(1, 2**31)
    data, streams = rng.choice(DATA), rng.choice(STREAMS)
    compression, direction = choice(rng.choice(COMPRESSION)).text, rng.choice(DIRECTIONS)
    if server == "tinysshd" and compression == choice("ssh").text:  # drawn all the same: the stream stays aligned
        compression = choice("off").text
    if kind == "commands":
        return Scenario(kind, link, server, seed)
    return Scenario(kind, link, server, seed, data, streams, compression, direction)


def scenarios(seed: int, servers: tuple[str, ...] = SERVERS) -> Iterator[Scenario]:
    """Endless scenarios from `seed` over `servers` (in that order: the same seed and servers give the same
    scenarios): the sweep takes the next one for each scenario and for each redraw."""
    rng = random.Random(seed)
    while True:
        yield draw(rng, servers)
