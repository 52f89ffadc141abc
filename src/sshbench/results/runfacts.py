"""Two facts of a run beside its samples: keystroke echoes (interactive latency) and where its wall time went.

Kept out of results/model.py (which re-exports them) so that module holds the records every stage reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sshbench.options import MAX_LOGIN_CLIENTS
from sshbench.vocabulary.untrusted import AlgorithmName, PartNameOrEmpty


@dataclass
class EchoResult:
    """Keystroke echo round trips through one SSH session (measure/echo.py): interactive latency."""

    cipher: AlgorithmName
    mac: AlgorithmName | None = None
    link: str = ""  # as Case.link
    build: PartNameOrEmpty = ""  # as Case.build: the echo goes through that build's client and server
    obscured: bool = False  # the client is OpenSSH 9.5+: ObscureKeystrokeTiming (on by default) delays keystrokes
    ok: bool = False
    echo_seconds: list[float] = field(default_factory=list)
    error: str | None = None


@dataclass
class TimeUse:
    """Where a run's wall time went: how much of it moved measured data."""

    wall_seconds: float  # the measuring part of the run: first sample started -> last finished
    sample_seconds: float  # inside samples (ssh or the tool started -> exited, references included)
    data_seconds: float  # inside data phases, every kind of case
    throughput_sample_seconds: float  # inside throughput samples (cipher, MAC, method cases)
    throughput_data_seconds: float  # their data phases

    @property
    def data_share(self) -> float | None:
        """Share of the wall time spent in data phases."""
        return self.data_seconds / self.wall_seconds if self.wall_seconds else None

    @property
    def throughput_data_share(self) -> float | None:
        """Share of the throughput samples' time spent in their data phase (the rest: start-up, handshake)."""
        return self.throughput_data_seconds / self.throughput_sample_seconds if self.throughput_sample_seconds \
            else None


@dataclass
class LoginLoad:
    """Logins per second with `clients` parallel clients against a listening sshd (measure/logins.py, --logins):
    every login a fresh `ssh HOST true`, each client starting its next as its last exits, for `seconds`."""

    clients: int
    kex: AlgorithmName | None  # the key exchange asked for (None: the client's default); `negotiated` says
    seconds: float  # from the first login's start to the last one's exit
    completed: int = 0  # logins that ran `true` and exited 0
    refused: int = 0  # turned away before the server's banner (MaxStartups: counted, never dropped silently)
    failed: int = 0  # any other failure
    latency_seconds: list[float] = field(default_factory=list)  # each completed login, ssh started -> exited
    server_cpu_seconds: float | None = None  # the listening sshd and everything it started, over the stage
    client_cpu_seconds: float | None = None  # every ssh (and its connection helper), over the stage
    negotiated: AlgorithmName | None = None  # the key exchange the completed logins used
    first_error: str | None = None  # the first failure's last lines, for the report

    def __post_init__(self) -> None:
        """Only a stage sshbench could have measured (a results file is untrusted: schema.py names the stage)."""
        if not 1 <= self.clients <= MAX_LOGIN_CLIENTS:
            raise ValueError(f"clients is {self.clients}: a stage has 1 to {MAX_LOGIN_CLIENTS} parallel clients")
        if not (math.isfinite(self.seconds) and self.seconds > 0):
            raise ValueError(f"seconds is {self.seconds}: a stage lasts a positive, finite time")
