"""What today's design would have chosen on a machine it never ran on: a saved run re-analysed.

Reads a results file (e.g. ../shared/data/runs/epyc-2vcpu-default-run-2026-11-25.json.gz, a default run on a
2-vCPU AMD EPYC VM made by an earlier design) and, with today's analysis code and nothing measured anew:

1. the noise of its throughput samples as the run would have measured it once every case had its minimum, and
   again over all of them (analysis/stats/noise.py): per-sample, within and between connections (within needs the
   steady halves of schema 9; older files say so), the pairing ratio, the fixed cost of a visit;
2. the design chosen from it (sample length, pairing) and the figures that decided it;
3. the verdicts re-judged with today's rule (group-sequential boundaries, the pairing chosen) on the same
   samples, against the verdicts the file recorded: neighbour pairs settled per table;
4. the answer's comparisons as today's code states them, with the forecast for each one left open.

The samples were taken by the old design's schedule; re-judging them shows what the new boundaries and pairing
make of the same evidence, not what the new schedule would have sampled (the synthetic machines in
tests/unit/test_design.py do that). Usage: python bench/replay_design.py RESULTS[.json|.json.gz]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import gzip
import itertools
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from sshbench.analysis.answers.answer import answers
from sshbench.analysis.stats.noise import choose, measure
from sshbench.analysis.stats.stats import summarize
from sshbench.analysis.stats.verdicts import rule_for
from sshbench.render.facts import noise_line
from sshbench.render.labels import forecast_text
from sshbench.results.model import Report, Summary
from sshbench.results.store import read_results
from sshbench.vocabulary.case_terms import CaseKind, Relation


def load(path: Path) -> tuple[Report, object]:
    """The file's one run, and the schema version it was saved with (a gzipped file is unpacked into a temporary
    copy first: read_results checks and upgrades it like any results file)."""
    text = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    saved = json.loads(text).get("schema_version")
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "run.json"
        plain.write_bytes(text)
        return read_results(str(plain))[0], saved


def settled(summaries: list[Summary]) -> Counter[str]:
    """Neighbour pairs settled (different or equivalent), per group, and "pairs" per group."""
    out: Counter[str] = Counter()
    rows = sorted((s for s in summaries if s.rank is not None), key=lambda s: (s.group, s.rank or 0))
    for above, below in itertools.pairwise(rows):
        if above.group == below.group:
            out[below.group + " pairs"] += 1
            out[below.group] += below.relation is not Relation.UNSETTLED
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path)
    path = parser.parse_args().results
    report, saved = load(path)
    env = report.environment.host
    print(f"{path.name}: {env.cpu_model}, {env.cpu_count} CPUs, schema {saved}, {len(report.samples)} samples, "
          f"mode {report.options.mode}, {report.options.time_budget_seconds:g} s budget")
    ids = {r.case.id for r in report.cases if r.case.kind in (CaseKind.CIPHER, CaseKind.MAC) and r.case.is_pipe}
    counted = [s for s in report.samples if s.ok and not s.warmup and s.case_id in ids]
    seen: Counter[str] = Counter()
    minimum = []
    for sample in counted:  # in the order measured: what the run knew when every case had its minimum
        seen[sample.case_id] += 1
        if seen[sample.case_id] <= report.options.min_runs:
            minimum.append(sample)
    for label, samples in (("after the minimum", minimum), ("over the whole run", counted)):
        noise = measure(samples, ids)
        design = choose(noise, report.options.sample_seconds)
        print(f"\nnoise {label} ({noise.samples} throughput samples): {noise_line(noise)}")
        print(f"design it would choose: {design.sample_seconds:g} s samples, "
              f"{'paired' if design.paired else 'unpaired'} verdicts: {design.reason}")

    before = settled(report.summaries)
    rule = dataclasses.replace(rule_for(report.options), paired=design.paired)
    rejudged = copy.deepcopy(report)
    rejudged.summaries = summarize(rejudged.cases, rejudged.samples, rule=rule)
    rejudged.look_points = {"throughput": list(rule.points), "handshake": list(rule.setup.points if rule.setup else ())}
    rejudged.design = design
    after = settled(rejudged.summaries)
    print("\nneighbour pairs settled, as recorded -> re-judged with today's rule on the same samples:")
    for group in sorted(g for g in before if not g.endswith(" pairs")):
        print(f"  {group:28} {before[group]:3} -> {after[group]:3} of {before[group + ' pairs']}")
    total = sum(v for g, v in before.items() if g.endswith(" pairs"))
    print(f"  {'all':28} {sum(v for g, v in before.items() if not g.endswith(' pairs')):3} -> "
          f"{sum(v for g, v in after.items() if not g.endswith(' pairs')):3} of {total}")

    print("\nthe answer's comparisons, today's wording and forecasts:")
    for answer in answers(rejudged):
        print(f"  {answer.direction.value}: {answer.best}" + (f"; {answer.note}" if answer.note else ""))
        for c in answer.comparisons:
            interval = f" [{c.low:.2f}, {c.high:.2f}]" if c.low is not None and c.high is not None else ""
            line = f"    vs {c.other} ({c.role}): {c.ratio:.2f}x{interval}, {c.relation.value}"
            print(line + (f"; {forecast_text(c.forecast)}" if c.forecast else ""))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
