"""How long the everyday commands take, against the targets users notice, measured side by side in one run.

    sshbench --version, --help                        target 0.3 s (lazy imports: nothing heavy at start)
    sshbench report FILE                              target 3 s
    sshbench report FILE --html --markdown --charts   target 3 s
    sshbench compare FILE FILE                        target 3 s

Each command runs --repeat times, interleaved round by round so machine
noise falls on all alike; the table prints the median wall time and its
ratio to the target (below 1.00 is within it). The results file should be
a default run's (about 70 cases, 760 samples); the recorded small run in
tests/data is used when none is given, and the header says which.

Also printed: what `import sshbench.cli` costs and whether matplotlib was
loaded by it (it must not be: charts are imported only when drawn).

Usage: python bench/command_times.py [RESULTS.json] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "tests" / "data" / "results-small.json"


def _time(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sshbench", *argv], capture_output=True, timeout=300, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"sshbench {' '.join(argv)} failed: {done.stderr.decode()[-300:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default=str(SMALL))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sshbench-bench-") as tmp:
        commands = {
            "--version": (["--version"], 0.3),
            "--help": (["--help"], 0.3),
            "report (terminal)": (["report", args.results], 3.0),
            "report --html --markdown --charts": (["report", args.results, "--html", f"{tmp}/r.html", "--markdown",
                                                   f"{tmp}/r.md", "--charts", f"{tmp}/charts"], 3.0),
            "compare": (["compare", args.results, args.results], 3.0),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(max(1, args.repeat)):
            for name, (argv, _) in commands.items():
                times[name].append(_time(argv))
    probe = ("import sys, time; t = time.perf_counter(); import sshbench.cli, sshbench.cli.parser; "
             "print(round(time.perf_counter() - t, 3), 'matplotlib' in sys.modules)")
    imported = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    which = "the recorded small run (give a default run's file for the real figure)" if args.results == str(SMALL) \
        else args.results
    print(f"results file: {which}; {args.repeat} runs each, interleaved")
    print(f"{'command':<36} {'median s':>9} {'min s':>7} {'target s':>9} {'ratio':>6}")
    for name, (_, target) in commands.items():
        median = statistics.median(times[name])
        print(f"{name:<36} {median:>9.2f} {min(times[name]):>7.2f} {target:>9.1f} {median / target:>6.2f}")
    print(f"import sshbench.cli: {imported[0]} s; matplotlib loaded by it: {imported[1]}")


if __name__ == "__main__":
    main()
