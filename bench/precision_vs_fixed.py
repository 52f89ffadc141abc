"""Time to a +-3% answer: sshbench's precision mode against the usual fixed method.

The usual method: 5 runs of 3.4 GB per cipher, median taken. sshbench: rounds
of ~1 s samples until each median's 95% interval is within +-3% (no time
budget, at most 30 samples). Both run here, one after the other, on the same
ciphers; the bench prints each method's wall time and the interval each
achieved per cipher. With 5 samples no 95% interval of the median exists (the
best order-statistic interval, min..max, covers 93.75%): that is shown too.

Usage: python bench/precision_vs_fixed.py [--ciphers default] [--directions upload]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

from clirun import run_sshbench
from sshbench.analysis.stats.robust import median_interval


def half_width(data: dict[str, Any], case_id: str) -> tuple[float, str]:
    """Relative half-width of the median's interval, and how it was obtained."""
    values = sorted(s["throughput_bytes_per_second"] for s in data["samples"]
                    if s["case_id"] == case_id and s["ok"] and not s["warmup"])
    median = statistics.median(values)
    interval = median_interval(values)
    label = "95%"
    if interval is None:  # n < 6: the widest order-statistic interval, with its lower coverage
        interval, label = (values[0], values[-1]), f"{100 * (1 - 2 / 2 ** len(values)):.2f}%"
    return max(median - interval[0], interval[1] - median) / median, label


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ciphers", default="default")
    parser.add_argument("--directions", default="upload")
    args = parser.parse_args()
    common = ["--ciphers", args.ciphers, "--directions", args.directions, "--macs", "none", "--kex", "none",
              "--hostkeys", "none", "--no-controls"]
    with tempfile.TemporaryDirectory() as tmp:
        fixed, t_fixed = run_sshbench([*common, "--runs", "5", "--size", "3.4GB"], Path(tmp) / "fixed.json")
        precise, t_precise = run_sshbench([*common, "--precision", "3%", "--max-runs", "30", "--time-budget", "none"],
                                 Path(tmp) / "precise.json")
    print(f"ciphers {args.ciphers}, {args.directions}")
    print(f"fixed (5 x 3.4 GB, median): {t_fixed:.0f} s     sshbench precision mode (±3%): {t_precise:.0f} s")
    print(f"{'case':45} {'fixed ±':>9} {'coverage':>9} {'precision ±':>12} {'samples':>8}")
    counts = {s["case_id"]: s["samples_ok"] for s in precise["summaries"]}
    for case in sorted(counts):
        if not case.startswith("cipher:"):
            continue
        f_width, f_label = half_width(fixed, case)
        p_width, _ = half_width(precise, case)
        print(f"{case:45} {f_width:9.1%} {f_label:>9} {p_width:12.1%} {counts[case]:8d}")


if __name__ == "__main__":
    main()
