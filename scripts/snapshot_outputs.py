"""Every output sshbench renders from saved results, written to one directory: to prove a refactor changed none.

For each results file: the terminal report (at a fixed width, no colour),
Markdown, HTML, the summary CSV, `report --json`, `recommend --json` and
the charts; for the fleet directory, the fleet report in each form. Run it
before and after a change and compare the two directories byte for byte:

    python scripts/snapshot_outputs.py /tmp/before RESULTS... --fleet DIR
    (change the code)
    python scripts/snapshot_outputs.py /tmp/after RESULTS... --fleet DIR
    diff -r /tmp/before /tmp/after && echo identical

Nothing here measures; it only runs `sshbench report` and `recommend`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

WIDTH = "160"


def _sshbench(args: list[str], stdout: Path | None, cwd: Path) -> None:
    env = {**os.environ, "COLUMNS": WIDTH, "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run([sys.executable, "-m", "sshbench", *args], capture_output=True, env=env, cwd=cwd,
                          timeout=600, check=False)
    if stdout is not None:
        stdout.write_bytes(done.stdout + f"\n[exit {done.returncode}]\n".encode() + done.stderr)


def snapshot(results: Path, out: Path) -> None:
    """Every rendering of one results file (or fleet directory) into `out`."""
    out.mkdir(parents=True)
    source = str(results.resolve())
    _sshbench(["report", source], out / "terminal.txt", out)
    _sshbench(["report", source, "--wide"], out / "terminal-wide.txt", out)
    _sshbench(["report", source, "--json"], out / "report.json", out)
    _sshbench(["report", source, "--markdown", "report.md", "--html", "report.html", "--summary-csv",
               "summary.csv", "--charts", "charts"], out / "files.log", out)
    if results.is_file():
        _sshbench(["recommend", source, "--json"], out / "recommend.json", out)
        _sshbench(["recommend", source], out / "recommend.txt", out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("out", type=Path, help="a new directory for the outputs")
    parser.add_argument("results", type=Path, nargs="+", help="results files")
    parser.add_argument("--fleet", type=Path, help="a directory of results files (the fleet report)")
    args = parser.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    for index, results in enumerate(args.results):
        snapshot(results, args.out / f"{index}-{results.name.removesuffix('.gz').removesuffix('.json')}")
    if args.fleet is not None:
        snapshot(args.fleet, args.out / "fleet")
    count = sum(1 for _ in args.out.rglob("*") if _.is_file())
    print(f"{count} files in {args.out}")


if __name__ == "__main__":
    main()
