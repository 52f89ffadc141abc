"""Settings of a run, validated once, then frozen.

Everything here is echoed into the results file, so a run can be repeated
exactly (the seed included).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Literal

from sshbench.axes import declared
from sshbench.compressors import OFF, choice
from sshbench.vocabulary.buildspec import BuildSpec, check_builds
from sshbench.vocabulary.case_terms import PIPE, Direction
from sshbench.vocabulary.commands import COMMANDS, SLOW_LOGINS
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.linkspec import MAX_LINKS, LinkSpec
from sshbench.vocabulary.units import MiB, format_bytes

DEFAULT_CIPHER_MAC = "hmac-sha2-256-etm@openssh.com"
DEFAULT_MAC_CIPHER = "aes128-ctr"
# OPENSSL_ia32cap: first word clears AES-NI (bit 57) and PCLMULQDQ (bit 33) of CPUID.1:ECX<<32|EDX;
# second word clears VAES (bit 41) and VPCLMULQDQ (bit 42) of CPUID.7:ECX<<32|EBX.
AESNI_MASK = "~0x200000200000000:~0x60000000000"
# The file methods' test file when --size is not given: long enough that the ~0.1-0.2 s of tool start-up
# is a small part of the end-to-end time at ~1 GB/s, and free to make (sparse for zero data).
DEFAULT_FILE_BYTES = 512 * MiB
# Over an emulated link a window-bound transfer moves ~26 MB/s at 80 ms: 64 MiB is a few seconds there
LINK_FILE_BYTES = 64 * MiB
DEFAULT_ECHOES = 40  # keystroke echoes per cipher and link: a median and its 95% interval, ~3 s at 80 ms
MAX_ECHOES = 10_000


MAX_LOGIN_CLIENTS = 256  # parallel logins: well past OpenSSH's MaxStartups (100: every new one dropped)
MAX_STREAMS = 64  # parallel connections per transfer: beyond that it measures the machine's process table
# Decision mode samples each figure until its median's 95% interval is within this, after its pairs settled and
# while the budget lasts: the precision the docs' "within 5% of the hand" comparisons need
FIGURE_PRECISION = 0.05
MAX_TIMEOUT = 86_400.0  # a day per connection: beyond that it is a typo (and `inf` breaks timers)
_KNOB = re.compile(r"[a-z][a-z0-9_]{0,40}")  # a method knob's key, as methods/base.Knob makes it
_REMOTE_DIR = re.compile(r"/[A-Za-z0-9_./-]*")


@dataclass(frozen=True)
class FileShape:
    """What one transfer moves: a single file, or `files` files in a directory."""

    file_bytes: int
    files: int = 1
    directory: bool = False  # a directory of `files` files (the many-small-files set), moved recursively

    @property
    def total_bytes(self) -> int:
        return self.file_bytes * self.files

    @property
    def is_set(self) -> bool:
        return self.directory

    def describe(self) -> str:
        if self.is_set:
            return f"{self.files} files of {format_bytes(self.file_bytes)} ({format_bytes(self.total_bytes)})"
        return f"one {format_bytes(self.file_bytes)} file"


@dataclass(frozen=True)
class RunOptions:
    ciphers: str = "all"
    macs: str = "all"
    kex: str = "all"
    hostkeys: str = "all"
    size_bytes: int | None = None  # None: size each case from its warm-up probe
    # Target data phase when sizing from the warm-up. Short: a sample's noise on a shared machine hardly shrinks
    # with its length (log SD 0.29 at 128 MiB, 0.25 at 1.5 GiB), and with the start-up kept out of the rate
    # (the steady state) more, shorter samples settle more pairs in the same time (docs/methodology.md)
    sample_seconds: float = 0.3
    # Decision mode measures the noise after CALIBRATE_PASSES passes (analysis/stats/noise.py) and may lengthen the
    # samples from there; --sample-seconds or --size fix the length instead
    adapt_length: bool = True
    warmup_bytes: int = 64 * MiB  # warm-up transfer size; its rate sizes the case (--sample-seconds)
    # Decision mode (the default): every case gets min_runs samples, then only the cases not yet settled
    # against a ranking neighbour (different, or equivalent within +-tie_margin) get more, up to max_runs
    # and the time budget (analysis/stats/verdicts.py). Precision mode when precision is set: rounds continue
    # until every case's 95% median interval is within +-precision. Fixed mode when runs is set.
    precision: float | None = None
    tie_margin: float = 0.05
    min_runs: int = 6
    max_runs: int = 30
    # --max-runs not given: decision mode may raise max_runs, before measuring, to what the time budget could
    # take of every case (plan/budget.runs_cap), so a narrow run with a long budget uses it
    max_runs_auto: bool = False
    time_budget_seconds: float | None = 480.0
    # Hosts (or embedded servers) that share what is left of the budget, this one included (plan/budget.py):
    # a budget too small for this one's minimum is too small for each of them.
    budget_shared_by: int = 1
    # --fit: where the minimum does not fit the budget (guessed before measuring, or as the warm-up measured it),
    # leave out the largest part (the option that saves most) instead of refusing
    fit: bool = False
    runs: int | None = None  # fixed mode: measured samples per throughput case
    setup_runs: int = 10  # fixed mode: measured samples per key exchange / host key case
    # "auto" (the first of plan/partners.py's lists that both sides offer) until a host's plan resolves it;
    # the results keep the name used.
    cipher_mac: str = "auto"
    mac_cipher: str = "auto"
    # The key exchange of every throughput and host key case: "auto" (a fast one both sides offer, see
    # plan/partners.py), "default" (ssh's own choice, as before 0.2), or a name.
    partner_kex: str = "auto"
    directions: tuple[Direction, ...] = (Direction.UPLOAD, Direction.DOWNLOAD)
    seed: int | None = None
    output: str | None = None
    timeout_seconds: float = 60.0  # per connection, on top of the expected transfer time
    sshd: str | None = None
    ssh: str | None = None
    data: Literal["zero", "random", "text", "mixed"] = "zero"
    # How the bytes are compressed, each a case dimension (compressors/): "off", "ssh" (SSH's own zlib), "zstd:3"...
    compression: tuple[str, ...] = (OFF,)
    # Parallel SSH connections sharing each transfer's bytes, each a case dimension (--streams 1,4,16)
    streams: tuple[int, ...] = (1,)
    no_aesni: bool = False  # mask AES-NI/VAES/PCLMULQDQ in OpenSSL for client, server and ceilings
    controls: bool = True  # raw TCP control and crypto ceilings beside the cipher sweep
    # Real hosts: the port of the one-off iperf3 server of the raw-TCP ceiling; iperf3's own default, which
    # firewall rules for it usually name
    iperf3_port: int = 5201
    # Embedded servers: client and server on separate halves of the CPUs ("split", plumbing/placement.py),
    # wherever the scheduler puts them ("free"), or the steadier of the two on this machine, from a short trial of
    # both ("auto", analysis/stats/placing.py). Real hosts are on their own machine either way.
    placement: Literal["auto", "split", "free"] = "auto"
    methods: tuple[str, ...] = (PIPE,)  # pipe, scp, scp-legacy, sftp, rsync (methods/)
    workdir: str | None = None  # where the file methods' test files go (default: the temp dir)
    remote_workdir: str | None = None  # real hosts: where the server's test files go (default: its $TMPDIR)
    sink: Literal["file", "null"] = "file"  # file methods: the receiver writes a real file, or /dev/null ("null")
    verify: bool = False  # SHA-256 of every received file, outside the timed part
    files: int | None = None  # many-small-files set: this many files of file_size_bytes
    file_size_bytes: int | None = None
    # The transfer methods' knobs a run sweeps, by key ("sftp_buffers": sftp -B values), each method's own
    # (methods/: Knob); the methods make their variants from them
    knobs: tuple[tuple[str, tuple[int, ...]], ...] = ()
    links: tuple[LinkSpec, ...] = ()  # emulated links (--link), parsed once (vocabulary/linkspec.py)
    # Short commands run to their exit (--commands: "true", "output", "input"; vocabulary/commands.py)
    commands: tuple[str, ...] = field(default=(), metadata={"omit_empty": True})
    # Logins per second: parallel client counts against a listening sshd (--logins 1,4,16,64: measure/logins.py),
    # each for logins_seconds
    logins: tuple[int, ...] = field(default=(), metadata={"omit_empty": True})
    logins_seconds: float = 5.0
    # A classic slow login reproduced in the embedded OpenSSH server (--slow-login dns: targets/servers/stalls.py)
    slow_login: str | None = field(default=None, metadata={"omit_empty": True})
    builds: tuple[BuildSpec, ...] = ()  # SSH builds compared (--build), parsed once (vocabulary/buildspec.py)
    # The emulated hosts' TCP buffers: a tuned host's (autotuning up to 128 MiB, targets/link/netns.py), or what the
    # kernel gives a new namespace (an untuned host)
    link_tcp: Literal["tuned", "kernel"] = "tuned"
    # HPN-SSH's none cipher (data in the clear after login) and none MAC (unauthenticated too): measured only when
    # asked, on the builds that have them; graded broken, never recommended
    none_cipher: bool = False
    none_mac: bool = False
    echo_count: int = 0  # keystroke echo round trips per cipher (and link); 0: none
    max_bytes: int | None = None  # no sample starts that would take the run past this many bytes moved
    # The declared axes' values a run crosses (axes/: each one's own option), by axis name, canonical
    dims: tuple[tuple[str, tuple[str, ...]], ...] = field(default=(), metadata={"omit_empty": True})

    def __post_init__(self) -> None:
        if (self.runs is not None and self.runs < 1) or self.setup_runs < 1:
            raise UsageError("--runs and --setup-runs must be at least 1")
        if self.precision is not None and not 0.001 <= self.precision <= 0.5:
            raise UsageError("--precision must be between 0.1% and 50%, e.g. 3% or 0.03")
        if not 0.001 <= self.tie_margin <= 0.5:
            raise UsageError("--tie-margin must be between 0.1% and 50%, e.g. 5% or 0.05")
        if self.min_runs < 1 or self.max_runs < self.min_runs:
            raise UsageError("--min-runs must be at least 1 and --max-runs at least --min-runs")
        if self.time_budget_seconds is not None and self.time_budget_seconds <= 0:
            raise UsageError("--time-budget must be positive, e.g. 90s, 8m or 1h")
        if not 0.05 <= self.sample_seconds <= 600:
            raise UsageError("--sample-seconds must be between 0.05 and 600")
        if not 0 < self.timeout_seconds <= MAX_TIMEOUT:  # also false for nan; inf is out of range
            raise UsageError(f"--timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT:.0f}")
        if self.seed is not None and not 0 <= self.seed < 2**63:
            raise UsageError("--seed must be a whole number from 0 to 2**63-1")
        if not self.directions:
            raise UsageError("--directions needs upload, download or both")
        if self.data not in ("zero", "random", "text", "mixed"):
            raise UsageError(f"bad --data {self.data!r}: use zero, random, text or mixed")
        if not self.compression or not self.streams:
            raise UsageError("--compression and --streams need at least one value each")
        for text in self.compression:
            if choice(text).text != text:  # a results file is untrusted: only canonical choices sshbench wrote
                raise UsageError(f"bad compression {text!r}: not canonical (e.g. zstd:3)")
        if any(not 1 <= n <= MAX_STREAMS for n in self.streams):
            raise UsageError(f"bad --streams: use 1 to {MAX_STREAMS} parallel connections, e.g. 1,4,16")
        if any(name not in COMMANDS for name in self.commands) or len(set(self.commands)) != len(self.commands):
            raise UsageError(f"bad --commands: use {', '.join(COMMANDS)}, each once")
        if any(not 1 <= n <= MAX_LOGIN_CLIENTS for n in self.logins) or not 1 <= self.logins_seconds <= 600:
            raise UsageError(f"bad --logins: 1 to {MAX_LOGIN_CLIENTS} parallel clients, e.g. 1,4,16,64; "
                             "--logins-seconds 1 to 600")
        if self.slow_login is not None and self.slow_login not in SLOW_LOGINS:
            raise UsageError(f"bad --slow-login: use {', '.join(SLOW_LOGINS)}")
        if len(self.links) > MAX_LINKS or len({link.label for link in self.links}) != len(self.links):
            raise UsageError(f"--link: at most {MAX_LINKS} links, each once")
        check_builds(self.builds)
        self._check_dims()
        if not 0 <= self.echo_count <= MAX_ECHOES:
            raise UsageError(f"bad --echo {self.echo_count}: use 0 (none) to {MAX_ECHOES}")
        self._check_files()

    def _check_dims(self) -> None:
        """Each declared axis once, with values its own parser gives (a results file is untrusted)."""
        names = [name for name, _ in self.dims]
        if len(set(names)) != len(names):
            raise UsageError("each declared axis may be given once")
        for name, values in self.dims:
            axis = declared(name)
            if axis is None:
                raise UsageError(f"unknown axis {name!r}: this sshbench declares no such dimension")
            if not values or any(axis.parse(value) != (value,) for value in values):
                raise UsageError(f"bad {axis.option}: each value canonical, at least one")

    def dim_values(self, name: str) -> tuple[str, ...]:
        """The values given for declared axis `name`, or none (then every case is at its plain value)."""
        return dict(self.dims).get(name, ())

    def _check_files(self) -> None:
        if self.sink not in ("file", "null"):
            raise UsageError(f"bad --sink {self.sink!r}: use file (a real received file) or null (/dev/null)")
        if (self.files is None) != (self.file_size_bytes is None):
            raise UsageError("--files and --file-size go together, e.g. --files 1000 --file-size 64KiB")
        if self.files is not None and self.files < 1:
            raise UsageError("--files must be at least 1")
        if self.file_size_bytes is not None and self.file_size_bytes < 1:
            raise UsageError("--file-size must be at least 1 byte")
        file_methods = [m for m in self.methods if m != PIPE]
        if self.files is not None and not file_methods:
            raise UsageError("--files needs a file method: add --method scp,sftp,rsync (or all)")
        if self.files is not None and self.sink == "null":
            raise UsageError("--sink null cannot take a set of files: use --sink file with --files")
        for key, values in self.knobs:
            if not _KNOB.fullmatch(key) or not values or any(n < 1 for n in values):
                raise UsageError(f"--{key.replace('_', '-')} needs positive numbers, e.g. 64,256")
        if self.remote_workdir is not None and not _REMOTE_DIR.fullmatch(self.remote_workdir):
            raise UsageError(f"--remote-workdir {self.remote_workdir!r}: use an absolute path of letters, digits "
                             "and ./_- only (it passes through the server's shell)")

    @property
    def file_methods(self) -> tuple[str, ...]:
        return tuple(m for m in self.methods if m != PIPE)

    @property
    def file_shape(self) -> FileShape:
        """What each file-method transfer moves: one file of --size, or the --files set."""
        if self.files is not None and self.file_size_bytes is not None:
            return FileShape(self.file_size_bytes, self.files, directory=True)
        return FileShape(self.size_bytes or (LINK_FILE_BYTES if self.links else DEFAULT_FILE_BYTES))

    def crypto_env(self) -> dict[str, str]:
        """Environment for every process that does crypto: the OpenSSL capability mask when asked."""
        return {"OPENSSL_ia32cap": AESNI_MASK} if self.no_aesni else {}

    @property
    def fixed(self) -> bool:
        return self.runs is not None

    @property
    def mode(self) -> Literal["fixed", "precision", "decision"]:
        """How the run decides when a case has enough samples."""
        return "fixed" if self.runs is not None else "precision" if self.precision is not None else "decision"

    @property
    def figure_precision(self) -> float | None:
        """The interval each figure is sampled to: --precision in precision mode; in decision mode FIGURE_PRECISION,
        sought once the rankings settled, while the budget lasts (a settled pair's figures stopped at +-16-53%
        after 6 samples, and the user reads the figure, not only the verdict); none in fixed mode."""
        return self.precision if self.mode == "precision" else FIGURE_PRECISION if self.mode == "decision" else None

    def link_named(self, label: str) -> LinkSpec | None:
        """The link a case's `link` label names (None: loopback, or a real host's own network)."""
        return next((link for link in self.links if link.label == label), None)

    @property
    def compressed(self) -> bool:
        """Some case is compressed (the data then matters: zeros and random bytes tell nothing)."""
        return any(c != OFF for c in self.compression)


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


def parse_fraction(text: str, option: str) -> float:
    """'3%' or '0.03' -> 0.03; anything else (including nan and inf) is a UsageError naming the option."""
    try:
        value = float(text.strip()[:-1]) / 100 if text.strip().endswith("%") else float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise UsageError(f"bad {option} {text!r}: use a percentage like 3% or a fraction like 0.03")
    return value
