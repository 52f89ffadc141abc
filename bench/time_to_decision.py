"""Time to a decision: seed study 000's method against sshbench's default, in the same wall time.

Seed study 000 ran every cipher 5 times, interleaved, at one fixed size, and
ranked by the median. sshbench's default (decision mode) gives every case an
interval, then spends samples only where neighbours are not yet settled.
Both run here on the same cipher cases, one after the other, with the same
wall time: the fixed size is chosen from a pilot so that 5 rounds take about
--budget seconds, and sshbench is then given exactly the time the fixed
method's five rounds took (its warm-up, which the seed method did not have,
is not counted: sshbench gets slightly less time, never more). A long reference run (--reference-runs samples per case)
says what the true order is.

Printed for each method:
- neighbour pairs settled: judged by the same rule for both (analysis/decide.py:
  Mann-Whitney, Holm over the table's pairs; equivalence within +-5%);
  sshbench's own verdicts also correct for its looks, so its count is the
  stricter one;
- agreement: of the case pairs the reference run separates (Holm over all
  pairs), the share each method puts in the same order.
Also the data-phase share of throughput samples before this change (ssh's
default key exchange) and after (the fixed fast one).

Usage: python bench/time_to_decision.py [--ciphers all] [--direction upload] [--budget 180]
       [--reference-runs 20]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
from pathlib import Path
from typing import Any

from clirun import run_sshbench
from sshbench.analysis.decide import DecisionRule, verdicts
from sshbench.analysis.robust import holm, mann_whitney_p, smallest_p
from sshbench.kinds import Relation
from sshbench.units import MiB

Doc = dict[str, Any]


def values(doc: Doc, metric: str) -> dict[str, list[float]]:
    """Counted samples per cipher case: 'data' (steady-state rate) or 'e2e' (bytes over the whole connection)."""
    out: dict[str, list[float]] = {}
    for s in doc["samples"]:
        if s["ok"] and not s["warmup"] and s["case_id"].startswith("cipher:") and s["bytes_received"]:
            seconds = s["data_seconds"] if metric == "data" else s["total_seconds"]
            out.setdefault(s["case_id"], []).append(s["bytes_received"] / seconds)
    return out


def order(per_case: dict[str, list[float]]) -> list[str]:
    return sorted(per_case, key=lambda c: -statistics.median(per_case[c]))


def settled(per_case: dict[str, list[float]]) -> int:
    """Neighbour pairs the shared rule settles (different or equivalent), one look."""
    found = verdicts(order(per_case), per_case, True, DecisionRule())
    return sum(v.relation is not Relation.UNSETTLED for v in found)


def own_settled(doc: Doc) -> int:
    """sshbench's own verdicts, as its tables show them (corrected for its looks too)."""
    return sum(1 for s in doc["summaries"] if s["case_id"].startswith("cipher:") and s.get("relation")
               in ("different", "equivalent"))


def reference_pairs(per_case: dict[str, list[float]]) -> list[tuple[str, str]]:
    """(faster, slower) for every pair the reference separates, Holm over all its pairs."""
    pairs = list(itertools.combinations(per_case, 2))
    rejected = holm([mann_whitney_p(per_case[a], per_case[b]) for a, b in pairs], 0.05)
    out = []
    for (a, b), separate in zip(pairs, rejected, strict=True):
        if separate:
            out.append((a, b) if statistics.median(per_case[a]) > statistics.median(per_case[b]) else (b, a))
    return out


def agreement(per_case: dict[str, list[float]], truth: list[tuple[str, str]]) -> tuple[int, int]:
    ranks = {case: i for i, case in enumerate(order(per_case))}
    known = [(a, b) for a, b in truth if a in ranks and b in ranks]
    return sum(ranks[a] < ranks[b] for a, b in known), len(known)


def data_share(doc: Doc) -> float:
    samples = [s for s in doc["samples"] if s["case_id"].startswith("cipher:") and s["total_seconds"]]
    data: float = sum(s["data_seconds"] or 0 for s in samples if s["ok"])
    total: float = sum(s["total_seconds"] for s in samples)
    return data / total


def counts(per_case: dict[str, list[float]]) -> str:
    n = sorted(len(v) for v in per_case.values())
    return str(n[0]) if n[0] == n[-1] else f"{n[0]}-{n[-1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ciphers", default="all")
    parser.add_argument("--direction", default="upload", choices=("upload", "download"))
    parser.add_argument("--budget", type=float, default=180.0, help="wall seconds for each method")
    parser.add_argument("--reference-runs", type=int, default=20)
    args = parser.parse_args()
    common = ["--ciphers", args.ciphers, "--directions", args.direction, "--macs", "none", "--kex", "none",
              "--hostkeys", "none", "--no-controls"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        # before this change: ssh's default key exchange under every throughput sample (the data-phase share)
        before, _ = run_sshbench([*common, "--runs", "2", "--partner-kex", "default"], out / "before.json")
        pilot = {s["case_id"]: s for s in before["samples"] if not s["warmup"] and s["ok"]}
        setup = sum(s["total_seconds"] - s["data_seconds"] for s in pilot.values())
        per_byte = sum(s["data_seconds"] / s["bytes_received"] for s in pilot.values())
        size = max(16 * MiB, int((args.budget / 5 - setup) / per_byte) // MiB * MiB)
        fixed, _ = run_sshbench([*common, "--runs", "5", "--size", str(size), "--partner-kex", "default",
                                 "--seed", "1"], out / "fixed.json")
        # the seed method has no warm-up round: its time is its five rounds' samples
        t_fixed = sum(s["total_seconds"] or 0 for s in fixed["samples"] if not s["warmup"])
        decided, t_decided = run_sshbench([*common, "--time-budget", f"{t_fixed:.0f}s", "--seed", "1"],
                                          out / "decided.json")
        reference, t_reference = run_sshbench([*common, "--runs", str(args.reference_runs), "--seed", "2"],
                                              out / "reference.json")
    truth = reference_pairs(values(reference, "data"))
    fixed_values, decided_values = values(fixed, "e2e"), values(decided, "data")
    pairs = len(fixed_values) - 1
    print(f"{len(fixed_values)} ciphers, {args.direction}; reference: {args.reference_runs} samples per case "
          f"({t_reference:.0f} s), separating {len(truth)} of {len(fixed_values) * pairs // 2} case pairs")
    print(f"{'method':44} {'wall':>6} {'n/case':>7} {'settled (same rule)':>20} {'own':>5} {'agreement':>14}")
    rows = [(f"seed 000: 5 x {size // MiB} MiB, interleaved, median", t_fixed, fixed_values, None),
            ("sshbench default (decision mode)", t_decided, decided_values, own_settled(decided))]
    settled_counts = []
    for label, wall, per_case, own in rows:
        hits, known = agreement(per_case, truth)
        settled_counts.append(settled(per_case))
        print(f"{label:44} {wall:5.0f}s {counts(per_case):>7} {settled_counts[-1]:>12} of {pairs:<5} "
              f"{'-' if own is None else own:>5} {hits:>6}/{known} {100 * hits / max(known, 1):4.0f}%")
    own = own_settled(decided)
    ratio = "no finite ratio" if settled_counts[0] == 0 else f"{own / settled_counts[0]:.1f}x"
    print(f"pairs settled, sshbench's own (stricter) verdicts / seed 000 under the shared rule: {own} / "
          f"{settled_counts[0]} ({ratio})")
    print(f"why: 5 against 5 samples can reach p = {smallest_p(5, 5):.4f} at best; Holm's first step over "
          f"{pairs} pairs needs p < {0.05 / pairs:.4f}")
    print(f"data-phase share of throughput samples: before (ssh's default key exchange) "
          f"{100 * data_share(before):.0f}%, after (fixed {decided.get('partner_kex') or 'default'}) "
          f"{100 * data_share(decided):.0f}%")


if __name__ == "__main__":
    main()
