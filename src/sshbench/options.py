"""Settings of a run, validated once, then frozen.

Everything here is echoed into the results file, so a run can be repeated
exactly (the seed included).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from sshbench.errors import UsageError
from sshbench.model import Direction
from sshbench.units import MiB

DEFAULT_CIPHER_MAC = "hmac-sha2-256-etm@openssh.com"
DEFAULT_MAC_CIPHER = "aes128-ctr"


@dataclass(frozen=True)
class RunOptions:
    ciphers: str = "all"
    macs: str = "all"
    kex: str = "all"
    hostkeys: str = "all"
    size_bytes: int | None = None  # None: size each case from its warm-up probe
    sample_seconds: float = 1.0  # target data-phase length when sizing from the probe
    probe_bytes: int = 64 * MiB  # warm-up transfer size, also the sizing probe
    runs: int = 5  # measured samples per throughput case
    setup_runs: int = 10  # measured samples per key exchange / host key case
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

    def __post_init__(self) -> None:
        if self.runs < 1 or self.setup_runs < 1:
            raise UsageError("--runs and --setup-runs must be at least 1")
        if not 0.05 <= self.sample_seconds <= 600:
            raise UsageError("--sample-seconds must be between 0.05 and 600")
        if self.timeout_seconds <= 0:
            raise UsageError("--timeout must be a positive number of seconds")
        if not self.directions:
            raise UsageError("--directions needs upload, download or both")

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
