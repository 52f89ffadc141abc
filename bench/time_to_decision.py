"""Time to a decision: an earlier design against today's, same cases, same wall time, against a long reference.

Runs in one invocation, one after the other:

1. before: sshbench as it was at --before (the source of that revision, from
   git, run with this checkout's virtualenv); by default the design before
   the machine's noise was measured: back-to-back passes and pairs, 0.3-s
   steady-state samples, every open pair sampled alike, Bonferroni over
   each table's looks (96399a4 is 0.2's: shuffled rounds, unpaired);
2. now: this checkout's default (the noise measured after the minimum and
   the sample length and pairing chosen from it, the answer's pairs first,
   group-sequential boundaries, the time left spent on pairs in reach);
3. reference: a long fixed-mode run of the same cases (this checkout's
   placement, so the truth "before" is judged by is split too) with every throughput
   case the same size (--reference-size), --reference-runs samples per
   throughput case and three times as many per handshake case.

Designs 1 and 2 get the same options and the same --time-budget (the
default run's unless told). Printed per design: samples, wall time,
neighbour pairs settled (speed ranking; and the cost rankings for now),
wrong-way verdicts (pairs called "different" that the reference orders the
other way: significantly, or at all) and agreement (of the case pairs the
reference separates, Mann-Whitney with Holm over each table's pairs, the
share the design's ranking orders the same way). And the machine's load
average around each. Then, per design, the answer's comparisons (the
runner-up and the client's default, per direction) as today's code states
them from that design's samples, and the design the run chose.

Usage: python bench/time_to_decision.py [--before REV] [--budget 8m] [--reference-runs 30]
       [--reference-size 128MiB] [-- SSHBENCH OPTIONS...]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from clirun import run_sshbench
from sshbench.analysis.answers.answer import answers
from sshbench.analysis.stats.robust import holm, mann_whitney_p
from sshbench.results.store import read_results
from sshbench.vocabulary.case_terms import Relation

Doc = dict[str, Any]
ROOT = Path(__file__).resolve().parents[1]
BEFORE = "523f194"  # the last revision with the design this one replaces (paired passes, Bonferroni over looks,
# every open pair sampled alike, the sample length fixed; 96399a4 is sshbench 0.2's decision mode)
SETTLED = ("different", "equivalent")


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def old_source(rev: str, into: Path) -> Path:
    """That revision's src/ unpacked into `into` (git archive: the checkout itself is not touched)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


def headline(sample: Doc) -> float | None:
    """A sample's figure as the reference ranks it: throughput (its steady state where timed), else 1/handshake."""
    if not sample["ok"] or sample["warmup"]:
        return None
    if sample.get("steady_seconds") and sample.get("steady_bytes"):
        return float(sample["steady_bytes"] / sample["steady_seconds"])
    if sample.get("bytes_received") and sample.get("data_seconds"):
        return float(sample["bytes_received"] / sample["data_seconds"])
    hs = sample.get("handshake_seconds")
    return 1 / hs if hs else None


def tables(doc: Doc) -> dict[str, dict[str, list[float]]]:
    """group -> case -> values (bigger is better) of the ranked tables."""
    groups = {s["case_id"]: s["group"] for s in doc["summaries"] if s.get("rank") is not None}
    out: dict[str, dict[str, list[float]]] = {}
    for sample in doc["samples"]:
        group = groups.get(sample["case_id"])
        value = headline(sample)
        if group and value:
            out.setdefault(group, {}).setdefault(sample["case_id"], []).append(value)
    return out


def separated(reference: Doc) -> dict[tuple[str, str], bool]:
    """(faster, slower) by the reference's medians -> whether it separates them (Holm over the table's pairs)."""
    out: dict[tuple[str, str], bool] = {}
    for cases in tables(reference).values():
        pairs = list(itertools.combinations(sorted(cases), 2))
        rejected = holm([mann_whitney_p(cases[a], cases[b]) for a, b in pairs], 0.05)
        for (a, b), significant in zip(pairs, rejected, strict=True):
            fast, slow = (a, b) if statistics.median(cases[a]) >= statistics.median(cases[b]) else (b, a)
            out[(fast, slow)] = significant
    return out


def judged(doc: Doc, truth: dict[tuple[str, str], bool], relation: str = "relation",
           rank: str = "rank") -> dict[str, int]:
    """A design's verdicts against the reference."""
    rows = sorted((s for s in doc["summaries"] if s.get(rank) is not None), key=lambda s: (s["group"], s[rank]))
    out = {"pairs": 0, "settled": 0, "different": 0, "wrong": 0, "wrong_significant": 0}
    for above, below in itertools.pairwise(rows):
        if above["group"] != below["group"]:
            continue
        out["pairs"] += 1
        verdict = below.get(relation)
        out["settled"] += verdict in SETTLED
        if verdict == "different" and relation == "relation":
            out["different"] += 1
            pair = (below["case_id"], above["case_id"])  # the reference has the lower one faster
            out["wrong"] += pair in truth
            out["wrong_significant"] += truth.get(pair, False)
    return out


def agreement(doc: Doc, truth: dict[tuple[str, str], bool]) -> tuple[int, int]:
    ranks = {s["case_id"]: s["rank"] for s in doc["summaries"] if s.get("rank") is not None}
    known = [(a, b) for (a, b), significant in truth.items() if significant and a in ranks and b in ranks]
    return sum(ranks[a] < ranks[b] for a, b in known), len(known)


def samples_per_case(doc: Doc) -> str:
    n = sorted(s["samples_ok"] for s in doc["summaries"] if s.get("rank") is not None)
    return f"{n[0]}-{n[-1]}, median {statistics.median(n):g}" if n else "-"


def answer_lines(path: Path) -> list[str]:
    """The answer's comparisons as today's code states them from that file's samples (the runner-up and the
    client's default, per direction), and the design the run chose, if it chose one."""
    report = read_results(str(path))[0]
    lines = []
    for answer in answers(report):
        for comparison in answer.comparisons:
            interval = f"[{comparison.low:.2f}, {comparison.high:.2f}]" if comparison.low and comparison.high else ""
            lines.append(f"{answer.direction.value} {answer.best} vs {comparison.other} ({comparison.role}): "
                         f"{comparison.ratio:.2f}x {interval} {comparison.relation.value}")
    settled = sum(c.relation is not Relation.UNSETTLED for a in answers(report) for c in a.comparisons)
    total = sum(len(a.comparisons) for a in answers(report))
    lines.insert(0, f"the answer's comparisons settled: {settled} of {total}")
    if report.design is not None:
        lines.append(f"design: {report.design.reason}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default=BEFORE, help=f"the revision of the earlier design (default {BEFORE})")
    parser.add_argument("--budget", default="8m", help="--time-budget of each design (default: the default run's)")
    parser.add_argument("--reference-runs", type=int, default=30)
    parser.add_argument("--reference-size", default="128MiB", help="every throughput case's size in the reference")
    parser.add_argument("--skip-before", action="store_true", help="only today's design and the reference")
    parser.add_argument("--keep", help="a directory to keep the three results files in (default: none kept)")
    parser.add_argument("options", nargs="*", help="sshbench options for all three (after --), e.g. --macs none")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep) if args.keep else Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        runs: list[tuple[str, Doc, float, str, list[str]]] = []
        if not args.skip_before:
            env = {**os.environ, "PYTHONPATH": str(old_source(args.before, out))}
            before_load = load()
            doc, wall = run_sshbench([*args.options, "--time-budget", args.budget], out / "before.json", env)
            runs.append((f"before ({args.before})", doc, wall, f"{before_load} -> {load()}",
                         answer_lines(out / "before.json")))
        now_load = load()
        doc, wall = run_sshbench([*args.options, "--time-budget", args.budget], out / "now.json")
        runs.append(("now (this checkout)", doc, wall, f"{now_load} -> {load()}", answer_lines(out / "now.json")))
        ref_load = load()
        reference, ref_wall = run_sshbench([*args.options, "--runs", str(args.reference_runs), "--setup-runs",
                                            str(3 * args.reference_runs), "--size", args.reference_size,
                                            "--no-controls"], out / "reference.json")
    truth = separated(reference)
    print(f"reference: {args.reference_runs} samples per throughput case of {args.reference_size} each, "
          f"{3 * args.reference_runs} per handshake case, {ref_wall:.0f} s (load {ref_load} -> {load()}); it "
          f"separates {sum(truth.values())} of {len(truth)} case pairs (Holm over each table's pairs)")
    print(f"{'design':24} {'wall':>6} {'samples':>8} {'n per case':>18} {'settled':>12} {'different':>10} "
          f"{'wrong way':>10} {'(signif.)':>9} {'agreement':>12}  load 1/5/15 min")
    for label, doc, wall, loads, _answer in runs:
        found = judged(doc, truth)
        hits, known = agreement(doc, truth)
        print(f"{label:24} {wall:5.0f}s {len(doc['samples']):8} {samples_per_case(doc):>18} "
              f"{found['settled']:>5} of {found['pairs']:<4} {found['different']:>10} {found['wrong']:>10} "
              f"{found['wrong_significant']:>9} {hits:>5}/{known:<4} {100 * hits / max(known, 1):3.0f}%  {loads}")
        cost = judged(doc, truth, "cost_relation", "cost_rank")
        if cost["pairs"]:
            print(f"{'':24} cost rankings: {cost['settled']} of {cost['pairs']} neighbour pairs settled")
    for label, _doc, _wall, _loads, answer in runs:
        print(f"{label}:", *answer, sep="\n  ")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
