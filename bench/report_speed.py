"""How fast `report` reads a 100k-sample results file, before and after the Findings work, side by side in one run.

Issue 63 asks that concluding once (analysis/conclude.py, begun after
0bdb178) leave `report FILE` and `report FILE --json` of a 100k-sample
results file no slower than before, and that a run's own concluding step be
measured the same way. This bench checks out both revisions (--before,
default 0bdb178; --after, default HEAD) into temporary git worktrees and
times, in --rounds interleaved rounds (the order alternates each round, so
drift falls on both alike), each as a fresh process of this interpreter
with PYTHONPATH=<worktree>/src:

* `python -m sshbench report FILE`, stdout to /dev/null (not a terminal:
  sshbench's fixed 180-column width; COLUMNS and the colour variables are
  unset), and `report FILE --json`: wall time and the child's CPU time
  (os.wait4's user + system);
* in-process (`python -c`, its own clocks): the file's load
  (read_results), then what a run does at its end, the terminal tables and
  the answer printed to a string at 180 columns. After the Findings work
  that is conclude() and then full_report and answer_block of the Findings
  (conclude() alone is shown too, after only); before it, 0bdb178 had no
  conclude(): full_report and answer_block concluded inside themselves,
  from the Report. So the pair "run's end" compares the same output made
  from the same Report, and a rendering that concludes twice would show.

Printed per figure: the before and after medians with their ranges, the
ratio after/before of the medians with the range of the per-round ratios
(each round's pair ran back to back), the 1-min load average over that
figure's rounds; the CPU model (lscpu "Model name"), the load at the start
and end, and both revisions' commits head the table. CPU time is the firmer
figure on a busy machine; a wall time alone is not a verdict.

The results file: a recorded run (default tests/data/results-servers-
openssh-dropbear-tinysshd.json.gz: 43 cases on three servers, 606 samples;
--source for another) replicated to --samples. The recorded samples come
first as they are; then the run's schedule is repeated, pass after pass:
each slot (a measured, non-warm-up sample) gets a sample drawn (seeded
RNG, --seed) from its own case's recorded samples, with its round, its
back-to-back chain and its started_at moved past the previous pass (so
rounds, chains and times move forward and no two passes share a chain).
The run's time budget, time use and --max-runs are scaled to match, its
looks planned for that --max-runs as a decision-mode run plans them.

Schema: 0bdb178 reads results schema 15 at most (and upgrades 3 to 14);
HEAD writes 16 (the --client dimension, reason kinds) and upgrades 15. So
the file is written with --before's own code: it reads the replicated
recorded file (schema 11, upgraded as it upgrades any old file),
recomputes every summary, rank and verdict over all the samples
(measure/loop.py's _summaries, the rule a decision-mode run uses: those of
a 606-sample file would sit beside 100k samples) and writes it as a run
does (indent 1): schema 15, which both revisions read, --after through its
15 -> 16 upgrade (each case's reason kind read from its words: part of its
load, as for any file 0bdb178 wrote). About 2.2 KB per sample: 100k
samples are about 222 MB, under the 256 MiB sshbench reads at most (a
larger file is refused here, before anything is timed).

The worktrees and the temporary directory are removed at the end, on
Ctrl-C and on SIGTERM too (--keep keeps the results file and says where).

Usage: .venv/bin/python bench/report_speed.py [--samples 100000] [--rounds 5] [--before 0bdb178]
       [--after HEAD] [--source RECORDED.json[.gz]] [--seed 63] [--keep]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from clirun import cpu_model

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "results-servers-openssh-dropbear-tinysshd.json.gz"
BEFORE = "0bdb178"  # the last revision before the Findings work (issue 63)
WIDTH = 180  # sshbench's width when stdout is not a terminal (cli/__init__.py)
MAX_READ = 256 * 2**20  # results/store.py MAX_RESULTS_BYTES, in both revisions
PASS_GAP = 1.0  # seconds between one pass of the schedule and the next

# Run by --before's code: the replicated file read, its summaries recomputed over every sample, written as schema
# --before writes (argv: the replicated file, the results file to write)
WRITE = """
import dataclasses, json, sys
from sshbench.analysis.stats.verdicts import rule_for
from sshbench.measure.loop import _summaries
from sshbench.results.codec import results_to_dict
from sshbench.results.model import SCHEMA_VERSION
from sshbench.results.store import read_results
report = read_results(sys.argv[1])[0]
rule = rule_for(report.options)
if report.design is not None and not report.design.paired:
    rule = dataclasses.replace(rule, paired=False)
report.looks = {"throughput": rule.looks, "handshake": rule.for_table(False).looks}
report.look_points = {"throughput": list(rule.points), "handshake": list(rule.for_table(False).points)}
report.summaries = _summaries(report, report.options, rule)
with open(sys.argv[2], "w", encoding="utf-8") as fh:
    fh.write(json.dumps(results_to_dict([report]), indent=1) + "\\n")
print(json.dumps({"schema_version": SCHEMA_VERSION, "samples": len(report.samples), "cases": len(report.cases)}))
"""

# Run by each revision, timed on its own clocks: the load, then a run's end (argv: the results file)
END = f"""
import importlib.util, io, json, sys, time
out = {{}}
def since(name, start):
    now = (time.perf_counter(), time.process_time())
    out[name] = [now[0] - start[0], now[1] - start[1]]
    return now
t = (time.perf_counter(), time.process_time())
import sshbench
from rich.console import Console
from sshbench.render.terminal import answer_block, full_report
from sshbench.results.store import read_results
concludes = importlib.util.find_spec("sshbench.analysis.conclude") is not None
if concludes:
    from sshbench.analysis.conclude import conclude
t = since("import", t)
runs = read_results(sys.argv[1])
t = since("load", t)
start = t
if concludes:
    found = [conclude(report) for report in runs]
    t = since("conclude", t)
else:
    found = runs
console = Console(width={WIDTH}, file=io.StringIO(), emoji=False)
for each in found:
    console.print(full_report(each, {WIDTH}))
for each in found:
    answer = answer_block(each)
    if answer is not None:
        console.print(answer)
since("layout", t)
since("end", start)
out.update(samples=sum(len(r.samples) for r in runs), module=sshbench.__file__, chars=len(console.file.getvalue()))
print(json.dumps(out))
"""

# figure name -> what it is; the in-process ones read from END's output
FIGURES = {
    "report wall": "report FILE > /dev/null, wall s",
    "report cpu": "report FILE > /dev/null, CPU s",
    "json wall": "report FILE --json > /dev/null, wall s",
    "json cpu": "report FILE --json > /dev/null, CPU s",
    "load wall": "in-process: read_results(FILE), wall s",
    "load cpu": "in-process: read_results(FILE), CPU s",
    "end wall": "in-process: run's end (tables + answer), wall s",
    "end cpu": "in-process: run's end (tables + answer), CPU s",
    "conclude cpu": "  of which conclude() (after only), CPU s",
    "layout cpu": "  of which tables + answer laid out, CPU s",
}


class Interrupted(Exception):
    """SIGTERM, unwound like Ctrl-C so the worktrees and the temp dir go."""


def _terminated(_sig: int, _frame: object) -> None:
    raise Interrupted


def load1() -> float:
    return os.getloadavg()[0]


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def schema_read(rev: str) -> str:
    """The newest results schema a revision reads (results/model.py SCHEMA_VERSION)."""
    found = re.search(r"^SCHEMA_VERSION = (\d+)", git("show", f"{rev}:src/sshbench/results/model.py"), re.M)
    return found.group(1) if found else "?"


@contextlib.contextmanager
def worktrees(revs: dict[str, str], into: Path) -> Iterator[dict[str, Path]]:
    """Each revision checked out (detached) into its own worktree under `into`; every one removed at the end."""
    made: list[Path] = []
    try:
        trees = {}
        for name, rev in revs.items():
            tree = into / f"tree-{name}"
            made.append(tree)
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), rev],
                           check=True)
            trees[name] = tree
        yield trees
    finally:
        for tree in made:
            gone = subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", "--force", str(tree)],
                                  capture_output=True, text=True, check=False)
            if gone.returncode != 0 and tree.exists():
                shutil.rmtree(tree, ignore_errors=True)
                print(f"report_speed: git worktree remove {tree} failed ({gone.stderr.strip()}); its directory is "
                      "removed: `git worktree prune` forgets it", file=sys.stderr)


def _shifted(stamp: str, seconds: float) -> str:
    return (datetime.fromisoformat(stamp) + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


def replicated(source: Path, samples: int, seed: int) -> dict[str, Any]:
    """The recorded run with `samples` samples: its own first, then its schedule repeated (module docstring)."""
    raw = source.read_bytes()
    data: dict[str, Any] = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    if data.get("schema") != "sshbench/run":
        raise SystemExit(f"report_speed: {source} is not one run's results file (schema {data.get('schema')!r})")
    recorded: list[dict[str, Any]] = data["samples"]
    slots = [s for s in recorded if not s["warmup"]]
    if not slots:
        raise SystemExit(f"report_speed: {source} has no measured samples to replicate")
    own: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for sample in slots:
        own[sample["case_id"]].append(sample)
    rng = random.Random(seed)
    span = (datetime.fromisoformat(data["finished_at"]) - datetime.fromisoformat(data["started_at"])).total_seconds()
    span += PASS_GAP
    rounds = 1 + max(s.get("round", 0) for s in recorded)
    chains = 1 + max((s["chain"] for s in recorded if s.get("chain") is not None), default=0)
    out = recorded[:samples]
    passes = 0
    while len(out) < samples:
        passes += 1
        for slot in slots[:samples - len(out)]:
            drawn = rng.choice(own[slot["case_id"]])
            moved: dict[str, Any] = {"started_at": _shifted(slot["started_at"], passes * span)}
            if "round" in slot:
                moved["round"] = slot["round"] + passes * rounds
            if "chain" in slot:
                moved["chain"] = None if slot["chain"] is None else slot["chain"] + passes * chains
            out.append({**drawn, **moved})
    per_case: dict[str, int] = defaultdict(int)
    for sample in out:
        per_case[sample["case_id"]] += not sample["warmup"]
    options = data["options"]
    if "max_runs" in options:
        options["max_runs"] = max(options["max_runs"], *per_case.values())
    if options.get("time_budget_seconds"):
        options["time_budget_seconds"] *= passes + 1
    if data.get("time_use"):
        data["time_use"] = {k: v * (passes + 1) if isinstance(v, float) else v for k, v in data["time_use"].items()}
    data["finished_at"] = _shifted(data["finished_at"], passes * span)
    data["samples"] = out
    return data


def write_results(args: argparse.Namespace, before: Path, tmp: Path) -> tuple[Path, dict[str, Any]]:
    """The results file, written by --before's code (module docstring, "Schema")."""
    start = time.perf_counter()
    plain = tmp / "replicated.json"
    plain.write_text(json.dumps(replicated(Path(args.source), args.samples, args.seed)))
    path = tmp / f"results-{args.samples}.json"
    done = subprocess.run([sys.executable, "-c", WRITE, str(plain), str(path)], env=child_env(before),
                          cwd=tmp, capture_output=True, text=True, check=False)
    plain.unlink()
    if done.returncode != 0:
        raise SystemExit(f"report_speed: --before's code could not write the results file:\n{done.stderr[-2000:]}")
    made: dict[str, Any] = json.loads(done.stdout)
    made["seconds"] = time.perf_counter() - start
    made["bytes"] = path.stat().st_size
    if made["bytes"] > MAX_READ:
        raise SystemExit(f"report_speed: {made['bytes'] / 2**20:.0f} MiB of results is more than sshbench reads "
                         f"({MAX_READ // 2**20} MiB): ask for fewer --samples")
    return path, made


def child_env(tree: Path) -> dict[str, str]:
    """This environment with the revision's source first, and nothing that sets a width, colours or a debug mode."""
    unset = ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "PYTHONSTARTUP",
             "PYTHONSAFEPATH")
    env = {k: v for k, v in os.environ.items() if k not in unset and not k.startswith("SSHBENCH_")}
    env["PYTHONPATH"] = str(tree / "src")
    return env


def timed(argv: list[str], tree: Path, tmp: Path, keep_out: bool = False) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system, os.wait4) of one fresh process, and its stdout if kept (in a file; else
    /dev/null)."""
    out, err = tmp / "child.out", tmp / "child.err"
    with open(out if keep_out else os.devnull, "wb") as stdout, open(err, "wb") as stderr:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, env=child_env(tree),
                                cwd=tmp)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode in (130, -signal.SIGINT):  # Ctrl-C reached the child first
        raise KeyboardInterrupt
    if proc.returncode != 0:
        raise SystemExit(f"report_speed: {' '.join(argv[:4])} ... exited {proc.returncode} ({tree.name}):\n"
                         f"{err.read_text(errors='replace')[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, out.read_text() if keep_out else ""


def measure(what: str, tree: Path, results: Path, tmp: Path) -> dict[str, float]:
    """One process of `what` ("report", "json" or "end") with the revision in `tree`: its figures."""
    if what == "end":
        _, _, printed = timed([sys.executable, "-c", END, str(results)], tree, tmp, keep_out=True)
        found = json.loads(printed)
        figures = {f"{name} {clock}": found[name][i] for name in ("load", "end", "conclude", "layout")
                   if name in found for i, clock in enumerate(("wall", "cpu"))}
        return {k: v for k, v in figures.items() if k in FIGURES}
    argv = [sys.executable, "-m", "sshbench", "report", str(results), *(["--json"] if what == "json" else [])]
    wall, cpu, _ = timed(argv, tree, tmp)
    return {f"{what} wall": wall, f"{what} cpu": cpu}


def checked(trees: dict[str, Path], results: Path, samples: int, tmp: Path) -> None:
    """Both revisions compiled and each loads the file, from its own worktree (untimed: it warms the page cache)."""
    for name, tree in trees.items():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")], check=True,
                       stdout=subprocess.DEVNULL)
        _, _, printed = timed([sys.executable, "-c", END, str(results)], tree, tmp, keep_out=True)
        found = json.loads(printed)
        if not found["module"].startswith(str(tree)) or found["samples"] != samples:
            raise SystemExit(f"report_speed: {name} imported {found['module']} and read {found['samples']} samples; "
                             f"expected its worktree {tree} and {samples}")


def spread(values: list[float], digits: int = 3) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def table(times: dict[str, dict[str, list[float]]], loads: dict[str, list[float]]) -> None:
    print(f"{'figure':50} {'before median (range)':>24} {'after median (range)':>24} "
          f"{'after/before (per round)':>25}  load 1-min")
    for figure, label in FIGURES.items():
        before, after = times["before"].get(figure, []), times["after"].get(figure, [])
        if not after:
            continue
        load = loads[figure.split()[0] if figure.split()[0] in ("report", "json") else "end"]
        if before:
            ratios = [a / b for a, b in zip(after, before, strict=True) if b > 0]
            ratio = f"{statistics.median(after) / statistics.median(before):.3f} " \
                    f"({min(ratios):.3f}-{max(ratios):.3f})" if ratios else "-"
        else:
            ratio = "- (before had none)"
        print(f"{label:50} {spread(before) if before else '-':>24} {spread(after):>24} {ratio:>25}  "
              f"{min(load):.2f}-{max(load):.2f}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=100_000, help="samples in the results file (default 100000)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--before", default=BEFORE, help=f"the revision before (default {BEFORE})")
    parser.add_argument("--after", default="HEAD", help="the revision after (default HEAD)")
    parser.add_argument("--source", default=str(SOURCE), help="the recorded results file replicated (.json[.gz])")
    parser.add_argument("--seed", type=int, default=63, help="the replication's seed (default 63)")
    parser.add_argument("--keep", action="store_true", help="keep the results file (its path is printed)")
    args = parser.parse_args(argv)
    if args.samples < 1 or args.rounds < 1:
        parser.error("--samples and --rounds need 1 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    revs = {"before": git("rev-parse", "--short", f"{args.before}^{{commit}}"),
            "after": git("rev-parse", "--short", f"{args.after}^{{commit}}")}
    cpu, start_load = cpu_model(), load1()
    tmp = Path(tempfile.mkdtemp(prefix="sshbench-report-speed-"))
    keep: Path | None = None
    try:
        with worktrees(revs, tmp) as trees:
            results, made = write_results(args, trees["before"], tmp)
            checked(trees, results, args.samples, tmp)
            keep = results if args.keep else None
            times: dict[str, dict[str, list[float]]] = {"before": defaultdict(list), "after": defaultdict(list)}
            loads: dict[str, list[float]] = defaultdict(list)
            for round_ in range(args.rounds):
                order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
                for what in ("report", "json", "end"):
                    loads[what].append(load1())
                    for name in order:
                        for figure, value in measure(what, trees[name], results, tmp).items():
                            times[name][figure].append(value)
                    loads[what].append(load1())
                print(f"round {round_ + 1} of {args.rounds} done (load {load1():.2f})", file=sys.stderr, flush=True)
    except (KeyboardInterrupt, Interrupted):
        print("report_speed: interrupted; worktrees and temporary files removed", file=sys.stderr)
        return 130
    finally:
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"CPU {cpu}, {os.cpu_count()} CPUs; python {sys.version.split()[0]} ({sys.executable}); load (1 min) "
          f"{start_load:.2f} at the start, {load1():.2f} at the end")
    print(f"before {revs['before']} (reads results schema <= {schema_read(revs['before'])}), after {revs['after']} "
          f"(<= {schema_read(revs['after'])}); {args.rounds} rounds, interleaved, the order alternating")
    print(f"results file: {made['samples']} samples, {made['cases']} cases, {made['bytes'] / 1e6:.0f} MB, schema "
          f"{made['schema_version']}, written by {revs['before']}'s code in {made['seconds']:.0f} s from "
          f"{Path(args.source).name} (seed {args.seed}){f'; kept: {keep}' if keep else ''}")
    table(times, loads)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _terminated)
    sys.exit(main())
