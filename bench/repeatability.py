"""Run the same sweep twice back to back; per cipher case, how far apart are the two medians?

For each cipher case it prints both medians, their difference, and whether
each median lies inside the other run's 95% interval. A benchmark whose
intervals are honest should see most medians inside the other's interval.

Usage: python bench/repeatability.py [-- SSHBENCH ARGS...]
       (default: the default sweep, `sshbench` with no arguments, twice)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from clirun import run_sshbench


def cipher_stats(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["case_id"]: s["throughput_bytes_per_second"] for s in data["summaries"]
            if s["case_id"].startswith("cipher:") and s["throughput_bytes_per_second"]}


def inside(value: float, stat: dict[str, Any]) -> str:
    if stat["ci_low"] is None:
        return "n/a"
    return "yes" if stat["ci_low"] <= value <= stat["ci_high"] else "no"


def plus_minus(stat: dict[str, Any]) -> str:
    if stat["ci_low"] is None:
        return ""
    return f" ±{max(stat['median'] - stat['ci_low'], stat['ci_high'] - stat['median']) / 1e6:.0f}"


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    with tempfile.TemporaryDirectory() as tmp:
        first, t1 = run_sshbench(args, Path(tmp) / "a.json")
        second, t2 = run_sshbench(args, Path(tmp) / "b.json")
    a, b = cipher_stats(first), cipher_stats(second)
    print(f"sshbench {' '.join(args) or '(default sweep)'}: run A {t1:.0f} s, run B {t2:.0f} s")
    print(f"{'case':45} {'A MB/s':>14} {'B MB/s':>14} {'diff':>7} {'A in B':>7} {'B in A':>7}")
    agree = 0
    for case in sorted(set(a) & set(b)):
        sa, sb = a[case], b[case]
        diff = sb["median"] / sa["median"] - 1
        a_in_b, b_in_a = inside(sa["median"], sb), inside(sb["median"], sa)
        agree += a_in_b == b_in_a == "yes"
        print(f"{case:45} {sa['median'] / 1e6:8.0f}{plus_minus(sa):>6} {sb['median'] / 1e6:8.0f}{plus_minus(sb):>6} "
              f"{diff:+7.1%} {a_in_b:>7} {b_in_a:>7}")
    print(f"{agree} of {len(set(a) & set(b))} cases: each median inside the other run's interval")


if __name__ == "__main__":
    main()
