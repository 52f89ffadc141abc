"""The machine a run happened on, for the results file: enough to tell two runs apart.

AES-NI, VAES and SHA-NI change cipher and MAC speeds by an order of
magnitude, so their presence is recorded with every run.
"""

from __future__ import annotations

import os
import platform
import resource
import socket
import time
from dataclasses import dataclass

from sshbench.plumbing.tcpinfo import default_congestion
from sshbench.results.environment import DuringRun, HostFacts

_TICK = os.sysconf("SC_CLK_TCK")

CPU_FLAGS_OF_INTEREST = ("aes", "vaes", "pclmulqdq", "vpclmulqdq", "sha_ni", "avx2", "avx512f", "ssse3",
                         "pmull", "sha2")  # the last two: Arm's crypto extensions


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


def collect() -> HostFacts:
    model, flags = _cpuinfo()
    return HostFacts(hostname=socket.gethostname(), os=_os_name(), kernel=platform.release(),
                     machine=platform.machine(), cpu_model=model, cpu_count=os.cpu_count(),
                     cpu_flags={flag: flag in flags for flag in CPU_FLAGS_OF_INTEREST},
                     python=platform.python_version(), load_average_start=load_average(), cpu_mhz=cpu_mhz(),
                     frequency_governor=frequency_governor(), tcp_congestion=default_congestion())


def _proc_stat_cpu() -> tuple[int, int, int] | None:
    """(total, busy, steal) jiffies over all CPUs from /proc/stat."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(v) for v in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    total = user + nice + system + idle + iowait + irq + softirq + steal
    return total, total - idle - iowait, steal


def _own_cpu_seconds() -> float:
    """CPU of this process and every child it reaped (ssh, each sshd -i and its children, openssl)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


@dataclass(frozen=True)
class CpuSnapshot:
    wall: float
    stat: tuple[int, int, int] | None
    own: float


def cpu_snapshot() -> CpuSnapshot:
    return CpuSnapshot(time.monotonic(), _proc_stat_cpu(), _own_cpu_seconds())


def usage_since(before: CpuSnapshot) -> DuringRun:
    """How busy the machine was with work that is not ours, and how much time the hypervisor stole.

    Others' share = (all busy CPU time - ours) / (wall time x CPUs). The 1-minute
    load average cannot tell this: at the end of a run it mostly counts sshbench.
    """
    after = cpu_snapshot()
    wall = after.wall - before.wall
    cpus = os.cpu_count() or 1
    out = DuringRun(wall_seconds=round(wall, 3), own_cpu_seconds=round(after.own - before.own, 3))
    if before.stat is None or after.stat is None or wall <= 0:
        return out
    total = after.stat[0] - before.stat[0]
    busy_seconds = (after.stat[1] - before.stat[1]) / _TICK
    out.others_cpu_share = round(max(0.0, busy_seconds - (after.own - before.own)) / (wall * cpus), 4)
    out.steal_share = round((after.stat[2] - before.stat[2]) / total, 4) if total else 0.0
    return out


def frequency_governor() -> str | None:
    """The cpufreq governor of CPU 0 (None where the kernel exposes none, as in most VMs)."""
    try:
        with open("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return None


def cpu_mhz() -> float | None:
    """Clock from /proc/cpuinfo, for cycles per byte (the nominal/TSC clock in VMs)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("cpu MHz"):
                    return float(line.split(":", 1)[1])
    except (OSError, ValueError):
        pass
    return None
