"""The machine a run happened on, for the results file: enough to tell two runs apart.

AES-NI, VAES and SHA-NI change cipher and MAC speeds by an order of
magnitude, so their presence is recorded with every run.
"""

from __future__ import annotations

import os
import platform
import socket
from typing import Any

CPU_FLAGS_OF_INTEREST = ("aes", "vaes", "pclmulqdq", "vpclmulqdq", "sha_ni", "avx2", "avx512f", "ssse3")


def _cpuinfo() -> tuple[str, set[str]]:
    model = platform.processor() or "unknown"
    flags: set[str] = set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name":
                    model = value.strip()
                elif key in ("flags", "Features") and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return model, flags


def _os_name() -> str:
    try:
        with open("/etc/os-release", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def collect() -> dict[str, Any]:
    model, flags = _cpuinfo()
    return {
        "hostname": socket.gethostname(),
        "os": _os_name(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "cpu_model": model,
        "cpu_count": os.cpu_count(),
        "cpu_flags": {flag: flag in flags for flag in CPU_FLAGS_OF_INTEREST},
        "python": platform.python_version(),
        "load_average_start": load_average(),
    }
