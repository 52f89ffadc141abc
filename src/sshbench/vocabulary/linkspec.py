"""`--link`: what an emulated link should be, parsed and validated, and written back the same way.

Grammar: `KEY=VALUE[,VALUE...]` pairs separated by commas, keys rtt, rate,
loss, jitter, cc (the TCP congestion control both ends use on the link,
e.g. cc=cubic; the host's own default where not given) and mtu (the
packet size, 1280-9000 bytes; the default is `LinkSpec.mtu`'s); a bare value after
a key adds to that key's list, so
`rtt=0,20ms,80ms` is three links and `rtt=50ms,rate=100mbit,1gbit` is two.
Several keys with lists give every combination (at most MAX_LINKS). Each
link's canonical text (`LinkSpec.label`) is written in case ids and the
results file, and parses back to the same link: a results file can say
which link a case used, and that text is checked like any other input.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal

from sshbench.vocabulary.errors import UsageError

MAX_LINKS = 12  # each link is a full set of cases: more is a typo, or a run of many hours
MAX_RTT_SECONDS = 10.0
MIN_RATE_BITS = 64_000  # below this one 9000-byte packet takes over a second
MAX_RATE_BITS = 400_000_000_000
MAX_LOSS = 0.5
KEYS = ("rtt", "rate", "loss", "jitter", "cc", "mtu")
MIN_MTU, MAX_MTU = 1280, 9000  # IPv6's minimum, and jumbo frames
PATH_MTU = 1500  # what internet paths and most LANs carry
JUMBO_MTU = 9000  # fast LANs and clouds; few enough packets for the wire's loop at high rates
# The highest rate whose link defaults to PATH_MTU: at 1500 bytes the emulator (a Python loop) carries a rate this
# high with room to spare (docs/links.md, "Packet size"); above it, or with no rate, the packets are JUMBO_MTU so
# the loop is not what limits the link
PATH_MTU_MAX_RATE_BITS = 200_000_000
TCP_HEADER_BYTES = 52  # IPv4 (20) + TCP (20) + the timestamp option (12): what each packet spends beside payload
LOSS_BASED = frozenset({"cubic", "reno"})  # Linux's loss-based controls of the Mathis kind; bbr is model-based
_CONGESTION = re.compile(r"[a-z][a-z0-9_]{0,15}")  # a kernel congestion control's name (TCP_CA_NAME_MAX 16)
_TIME = re.compile(r"(\d+(?:\.\d+)?)(us|ms|s)?")
MAX_LOSS_DECIMALS = 4  # loss in percent: 0.0001% is one packet in a million
_RATE = re.compile(r"(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)")
_RATE_FACTOR = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
_TIME_FACTOR = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
_HELP = ("use e.g. rtt=20ms, rtt=0,20ms,80ms or rtt=50ms,rate=100mbit,loss=0.1%,jitter=2ms,cc=cubic,mtu=1500 "
         "(times in us/ms/s, rates in kbit/mbit/gbit, cc a TCP congestion control such as bbr or cubic, mtu in "
         "bytes)")


@dataclass(frozen=True, order=True)
class LinkSpec:
    """One emulated path: round-trip time and, optionally, rate, loss and jitter (each applied both ways)."""

    rtt_seconds: float = 0.0
    rate_bits: float | None = None  # per direction, bits per second
    loss: float = 0.0  # probability a packet is dropped, each direction
    jitter_seconds: float = 0.0  # round-trip variation: each direction's delay varies by half of it
    congestion: str | None = None  # the TCP congestion control of its sockets (None: the host's default)
    mtu_bytes: int | None = None  # the packet size given with mtu= (None: the default, `mtu`)

    @property
    def mtu(self) -> int:
        """The link's packet size: mtu= where given; else a real path's 1500 bytes where the emulator carries the
        rate at that size (per-packet loss then hits as many packets per byte as on the internet), and jumbo
        frames for a faster or unlimited link (the cable, a veth pair, is 1500 as the kernel makes it)."""
        if self.mtu_bytes is not None:
            return self.mtu_bytes
        if self.plain or (self.rate_bits is not None and self.rate_bits <= PATH_MTU_MAX_RATE_BITS):
            return PATH_MTU
        return JUMBO_MTU

    def payload_bytes_per_second(self, mtu: int | None = None) -> float | None:
        """The TCP payload this link's line rate carries per second (the rate less IP and TCP headers in full-size
        packets of `mtu`, its own where not given: the run's facts say what was built); None without a rate."""
        if not self.rate_bits:
            return None
        size = mtu or self.mtu
        return self.rate_bits / 8 * ((size - TCP_HEADER_BYTES) / size if size > TCP_HEADER_BYTES else 1.0)

    @classmethod
    def from_text(cls, text: str) -> LinkSpec:
        """The link its canonical text (`label`) names: how a results file stores it (UsageError otherwise)."""
        return parse_label(text)

    @property
    def text(self) -> str:
        """Canonical text, for results files: the label."""
        return self.label

    @property
    def plain(self) -> bool:
        """A cable: nothing to emulate (a veth pair carries it, no emulator process in the way)."""
        return not (self.rtt_seconds or self.rate_bits or self.loss or self.jitter_seconds or self.mtu_bytes)

    @property
    def label(self) -> str:
        """The canonical --link text of this one link; parse_links(label) gives it back."""
        parts = [f"rtt={_time_text(self.rtt_seconds)}"]
        if self.rate_bits:
            parts.append(f"rate={_rate_text(self.rate_bits)}")
        if self.loss:
            parts.append(f"loss={f'{self.loss * 100:.{MAX_LOSS_DECIMALS}f}'.rstrip('0').rstrip('.')}%")
        if self.jitter_seconds:
            parts.append(f"jitter={_time_text(self.jitter_seconds)}")
        if self.congestion:
            parts.append(f"cc={self.congestion}")
        if self.mtu_bytes is not None:
            parts.append(f"mtu={self.mtu_bytes}")
        return ",".join(parts)

    @property
    def one_way_delay(self) -> float:
        return self.rtt_seconds / 2


def _time_text(seconds: float) -> str:
    """Exact, in whole microseconds (the resolution parsing keeps): 20ms, 1234.567ms, 1.5s, 250us."""
    us = round(seconds * 1e6)
    if us == 0:
        return "0"
    if us % 1_000_000 == 0:
        return f"{us // 1_000_000}s"
    if us < 1000:
        return f"{us}us"
    return f"{us // 1000}ms" if us % 1000 == 0 else f"{us // 1000}.{us % 1000:03d}".rstrip("0") + "ms"


def _rate_text(bits: float) -> str:
    """Exact, in whole bits per second: 100mbit, 1.5gbit, 64500bit."""
    whole = round(bits)
    for unit in ("gbit", "mbit", "kbit"):
        factor = int(_RATE_FACTOR[unit])
        if whole >= factor and whole % (factor // 1000 or 1) == 0:
            integer, fraction = divmod(whole, factor)
            return (f"{integer}.{fraction * 1000 // factor:03d}".rstrip("0").rstrip(".") if fraction
                    else str(integer)) + unit
    return f"{whole}bit"


def _seconds(text: str, key: str) -> float:
    if text.startswith("-"):
        raise UsageError(f"bad --link {key}={text}: a time cannot be negative; {_HELP}")
    match = _TIME.fullmatch(text)
    if match is None or (match.group(2) is None and float(match.group(1)) != 0):
        raise UsageError(f"bad --link {key}={text!r}: give a number and a unit (us, ms or s), e.g. {key}=20ms; "
                         f"{_HELP}")
    value = float(match.group(1)) * _TIME_FACTOR[match.group(2) or "s"]
    if value > MAX_RTT_SECONDS:
        raise UsageError(f"bad --link {key}={text}: at most {MAX_RTT_SECONDS:g}s")
    if abs(value * 1e6 - round(value * 1e6)) > 1e-6:
        raise UsageError(f"bad --link {key}={text}: the emulator works in whole microseconds; give e.g. "
                         f"{key}={_time_text(value)}")
    return round(value * 1e6) / 1e6


def _value(key: str, text: str) -> float | str:
    if key == "mtu":
        if not text.isdigit() or not MIN_MTU <= int(text) <= MAX_MTU:
            raise UsageError(f"bad --link mtu={text!r}: give the packet size in bytes, {MIN_MTU} to {MAX_MTU}, "
                             "e.g. mtu=1500")
        return float(int(text))
    if key == "cc":
        if _CONGESTION.fullmatch(text) is None:
            raise UsageError(f"bad --link cc={text!r}: name a TCP congestion control, e.g. cc=cubic or cc=bbr")
        return text
    if key in ("rtt", "jitter"):
        return _seconds(text, key)
    if key == "rate":
        match = _RATE.fullmatch(text)
        if match is None:
            raise UsageError(f"bad --link rate={text!r}: use kbit, mbit or gbit, e.g. rate=100mbit; {_HELP}")
        exact = Decimal(match.group(1)) * int(_RATE_FACTOR[match.group(2)])  # in decimal: 17179869.177kbit
        bits = float(exact)  # is whole, though the float product is not
        if not MIN_RATE_BITS <= bits <= MAX_RATE_BITS:
            raise UsageError(f"bad --link rate={text}: use 64kbit to 400gbit")
        if exact != exact.to_integral_value():
            raise UsageError(f"bad --link rate={text}: give whole bits per second, e.g. rate={_rate_text(bits)}")
        return float(int(exact))
    match = re.fullmatch(r"(\d+)(?:\.(\d+))?%", text)
    if match is None or float(text[:-1]) / 100 > MAX_LOSS:
        raise UsageError(f"bad --link loss={text!r}: a percentage up to 50%, e.g. loss=0.1%")
    if len((match.group(2) or "").rstrip("0")) > MAX_LOSS_DECIMALS:
        raise UsageError(f"bad --link loss={text}: at most {MAX_LOSS_DECIMALS} decimals (0.0001% is one packet in "
                         "a million)")
    return round(float(text[:-1]) * 10.0**MAX_LOSS_DECIMALS) / 10.0**(MAX_LOSS_DECIMALS + 2)


def parse_links(text: str) -> list[LinkSpec]:
    """Every link `--link TEXT` names, in the order given (duplicates once)."""
    lists: dict[str, list[float | str]] = {}
    key = None
    for word in (w.strip().lower() for w in text.split(",")):
        if not word:
            raise UsageError(f"bad --link {text!r}: an empty item; {_HELP}")
        if "=" in word:
            key, _, word = word.partition("=")
            if key not in KEYS:
                raise UsageError(f"bad --link key {key!r}: use {', '.join(KEYS)}; {_HELP}")
            if key in lists:
                raise UsageError(f"bad --link {text!r}: {key} is given twice; list its values after one {key}=")
            lists[key] = []
        if key is None:
            raise UsageError(f"bad --link {text!r}: start with a key, e.g. rtt={word}; {_HELP}")
        lists[key].append(_value(key, word))
    if "rtt" not in lists:
        raise UsageError(f"bad --link {text!r}: say the round-trip time, e.g. rtt=20ms (rtt=0 for none)")
    combos = list(itertools.product(*(lists.get(k, [default]) for k, default in
                                      (("rtt", 0.0), ("rate", None), ("loss", 0.0), ("jitter", 0.0), ("cc", None),
                                       ("mtu", None)))))
    if len(combos) > MAX_LINKS:
        raise UsageError(f"--link {text!r} names {len(combos)} links; at most {MAX_LINKS} per run")
    links = [LinkSpec(rtt, rate or None, loss, jitter, cc, int(mtu) if mtu else None)  # type: ignore[arg-type]
             for rtt, rate, loss, jitter, cc, mtu in combos]
    for link in links:
        if link.jitter_seconds > link.rtt_seconds:
            raise UsageError(f"bad --link {link.label}: jitter larger than the round-trip time would mean "
                             "negative delays; keep jitter at most rtt")
    unique = list(dict.fromkeys(links))
    labels = [link.label for link in unique]
    if len(set(labels)) != len(labels):  # the label names the link in case ids: two must never share one
        twice = next(label for label in labels if labels.count(label) > 1)
        raise UsageError(f"--link {text!r}: two links would both be {twice}; give values that differ")
    return unique


def parse_label(text: str) -> LinkSpec:
    """The one link a case's stored label names (a results file is untrusted: a list is refused)."""
    links = parse_links(text)
    if len(links) != 1:
        raise UsageError(f"link {text!r} names {len(links)} links, not one")
    return links[0]
