"""Settings of a run, validated once, then frozen.

Everything here is echoed into the results file, so a run can be repeated
exactly (the seed included).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from sshbench.errors import UsageError
from sshbench.model import Direction
from sshbench.units import MiB

DEFAULT_CIPHER_MAC = "hmac-sha2-256-etm@openssh.com"
DEFAULT_MAC_CIPHER = "aes128-ctr"
# OPENSSL_ia32cap: first word clears AES-NI (bit 57) and PCLMULQDQ (bit 33) of CPUID.1:ECX<<32|EDX;
# second word clears VAES (bit 41) and VPCLMULQDQ (bit 42) of CPUID.7:ECX<<32|EBX.
AESNI_MASK = "~0x200000200000000:~0x60000000000"


@dataclass(frozen=True)
class RunOptions:
    ciphers: str = "all"
    macs: str = "all"
    kex: str = "all"
    hostkeys: str = "all"
    size_bytes: int | None = None  # None: size each case from its warm-up probe
    sample_seconds: float = 1.0  # target data-phase length when sizing from the probe
    probe_bytes: int = 64 * MiB  # warm-up transfer size, also the sizing probe
    # Precision mode (the default): rounds continue until every case's 95% median interval is
    # within +-precision, bounded by min_runs, max_runs and the time budget. Fixed mode when runs is set.
    precision: float = 0.03
    min_runs: int = 6
    max_runs: int = 30
    time_budget_seconds: float | None = 480.0
    runs: int | None = None  # fixed mode: measured samples per throughput case
    setup_runs: int = 10  # fixed mode: measured samples per key exchange / host key case
    cipher_mac: str = DEFAULT_CIPHER_MAC
    mac_cipher: str = DEFAULT_MAC_CIPHER
    directions: tuple[Direction, ...] = (Direction.UPLOAD, Direction.DOWNLOAD)
    seed: int | None = None
    output: str | None = None
    timeout_seconds: float = 60.0  # per connection, on top of the expected transfer time
    sshd: str | None = None
    ssh: str | None = None
    data: str = "zero"
    compression: bool = False
    no_aesni: bool = False  # mask AES-NI/VAES/PCLMULQDQ in OpenSSL for client, server and ceilings
    controls: bool = True  # raw TCP control and crypto ceilings beside the cipher sweep

    def __post_init__(self) -> None:
        if (self.runs is not None and self.runs < 1) or self.setup_runs < 1:
            raise UsageError("--runs and --setup-runs must be at least 1")
        if not 0.001 <= self.precision <= 0.5:
            raise UsageError("--precision must be between 0.1% and 50%, e.g. 3% or 0.03")
        if self.min_runs < 1 or self.max_runs < self.min_runs:
            raise UsageError("--min-runs must be at least 1 and --max-runs at least --min-runs")
        if self.time_budget_seconds is not None and self.time_budget_seconds <= 0:
            raise UsageError("--time-budget must be positive, e.g. 90s, 8m or 1h")
        if not 0.05 <= self.sample_seconds <= 600:
            raise UsageError("--sample-seconds must be between 0.05 and 600")
        if self.timeout_seconds <= 0:
            raise UsageError("--timeout must be a positive number of seconds")
        if not self.directions:
            raise UsageError("--directions needs upload, download or both")
        if self.data not in ("zero", "random", "text"):
            raise UsageError(f"bad --data {self.data!r}: use zero, random or text")

    def crypto_env(self) -> dict[str, str]:
        """Environment for every process that does crypto: the OpenSSL capability mask when asked."""
        return {"OPENSSL_ia32cap": AESNI_MASK} if self.no_aesni else {}

    @property
    def fixed(self) -> bool:
        return self.runs is not None

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["directions"] = [d.value for d in self.directions]
        return out


def parse_directions(text: str) -> tuple[Direction, ...]:
    words = [w.strip().lower() for w in text.split(",") if w.strip()]
    if words == ["both"]:
        return (Direction.UPLOAD, Direction.DOWNLOAD)
    try:
        return tuple(dict.fromkeys(Direction(w) for w in words if w != "setup"))
    except ValueError:
        raise UsageError(f"bad --directions {text!r}: use upload, download or both") from None


_DURATION_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """'90s', '8m', '1.5h' or '480' (seconds) -> seconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", text.lower())
    if match is None or match.group(2) not in _DURATION_UNITS or float(match.group(1)) <= 0:
        raise UsageError(f"bad duration {text!r}: use e.g. 90s, 8m, 1h or a number of seconds")
    return float(match.group(1)) * _DURATION_UNITS[match.group(2)]


def parse_fraction(text: str) -> float:
    """'3%' or '0.03' -> 0.03."""
    try:
        return float(text[:-1]) / 100 if text.strip().endswith("%") else float(text)
    except ValueError:
        raise UsageError(f"bad precision {text!r}: use a percentage like 3% or a fraction like 0.03") from None
