"""Placement: the client and server sides on separate CPUs (--placement split) against the scheduler's free choice.

Alternates `--placement split` and `--placement free` runs of the same cases
(the cipher sweep, both directions, fixed samples), one after the other, so
both see the same machine and the same other load. Printed per case: the
median steady-state MB/s of each and their ratio, the per-sample log SD of
each (the noise a decision has to see through) and its ratio; then, per
placement, how many neighbour pairs the runs settled. Run it on the machine
whose numbers you want: the answer depends on its CPUs and its other load.

Usage: python bench/placement.py [--rounds 2] [--runs 12] [-- SSHBENCH OPTIONS...]
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from clirun import run_sshbench

PLACEMENTS = ("split", "free")
CASES = ["--ciphers", "default,aes128-ctr,aes256-ctr", "--macs", "none", "--kex", "none", "--hostkeys", "none",
         "--no-controls"]


def speeds(doc: dict[str, Any]) -> dict[str, list[float]]:
    """case -> steady-state MB/s of its measured samples."""
    out: dict[str, list[float]] = defaultdict(list)
    for s in doc["samples"]:
        if s["ok"] and not s["warmup"] and s.get("steady_seconds") and s.get("steady_bytes"):
            out[s["case_id"]].append(s["steady_bytes"] / s["steady_seconds"] / 1e6)
    return out


def settled(doc: dict[str, Any]) -> tuple[int, int]:
    ranked = [s for s in doc["summaries"] if s.get("rank") is not None and s["rank"] > 1]
    return sum(s.get("relation") in ("different", "equivalent") for s in ranked), len(ranked)


def log_sd(values: list[float]) -> float:
    return statistics.stdev(math.log(v) for v in values) if len(values) > 2 else math.nan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="runs of each placement, alternated (default 2)")
    parser.add_argument("--runs", type=int, default=12, help="samples per case in each run (default 12)")
    parser.add_argument("options", nargs="*", help="sshbench options for every run (after --)")
    args = parser.parse_args()
    pooled: dict[str, dict[str, list[float]]] = {p: defaultdict(list) for p in PLACEMENTS}
    noise: dict[str, dict[str, list[float]]] = {p: defaultdict(list) for p in PLACEMENTS}  # log SD per run
    pairs: dict[str, list[tuple[int, int]]] = {p: [] for p in PLACEMENTS}
    where: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for place in PLACEMENTS:
                doc, _ = run_sshbench([*CASES, "--runs", str(args.runs), "--placement", place, *args.options],
                                      Path(tmp) / f"{place}-{round_}.json")
                where[place] = doc["environment"]["host"].get("placement") or place
                for case, values in speeds(doc).items():
                    pooled[place][case] += values
                    noise[place][case].append(log_sd(values))
                pairs[place].append(settled(doc))
    print(f"{args.rounds} runs of each placement, alternated, {args.runs} samples per case per run")
    for place in PLACEMENTS:
        print(f"  {where[place]}")
    print(f"{'case':44} {'split MB/s':>10} {'free MB/s':>10} {'ratio':>6}   {'log SD split':>12} {'free':>6} "
          f"{'free/split':>10}")
    ratios = []
    for case in sorted(pooled["split"]):
        a, b = pooled["split"][case], pooled["free"].get(case, [])
        sd_a, sd_b = statistics.median(noise["split"][case]), statistics.median(noise["free"].get(case, [math.nan]))
        ratios.append(sd_b / sd_a)
        print(f"{case[:44]:44} {statistics.median(a):10,.0f} {statistics.median(b) if b else math.nan:10,.0f} "
              f"{statistics.median(a) / statistics.median(b) if b else math.nan:6.2f}   {sd_a:12.3f} {sd_b:6.3f} "
              f"{sd_b / sd_a:10.1f}")
    print(f"median of the per-case noise ratios (free / split): {statistics.median(ratios):.1f}")
    for place in PLACEMENTS:
        print(f"{place}: neighbour pairs settled per run: "
              + ", ".join(f"{done} of {total}" for done, total in pairs[place]))


if __name__ == "__main__":
    main()
