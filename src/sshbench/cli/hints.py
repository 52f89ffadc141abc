"""What to do next, after a run: where the results are, the answer in one line, and commands that work as shown.

The answer and the ciphers a suggestion names are the run's Findings
(analysis/conclude.py, once per run): the fastest cipher without a known
weakness is the upload answer's pick, the top two its pick and runner-up,
so the last lines of a run say what its tables and --json say.

Every suggested command starts from the run's own command line, so it keeps
what that run needed (the destination, --ssh-config, --cipher-mac for a
server without the default MAC, sizes...) and only swaps the options it is
about. A test runs each suggestion.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys

from sshbench.analysis.findings import CipherFinding, Findings
from sshbench.methods import family
from sshbench.results.model import Case, Report
from sshbench.results.store import ResultsWriter
from sshbench.results.views import builds_of, per_server
from sshbench.targets.servers import DEFAULT as DEFAULT_SERVER
from sshbench.targets.servers import takes_sshd
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, Kind
from sshbench.vocabulary.case_terms import PIPE, CaseKind, Direction

# Options a suggestion replaces (with how many values each takes); everything else is kept as given.
SELECTION = {"--ciphers": 1, "--macs": 1, "--kex": 1, "--hostkeys": 1, "--method": 1, "--precision": 1,
             "--runs": 1, "--setup-runs": 1, "--time-budget": 1, "--seed": 1, "--output": 1, "-o": 1,
             "--quiet": 0, "-q": 0, "--jsonl": 0}


# Of those, the ones that only say where output goes: not part of "the same schedule".
OUTPUT_ONLY = frozenset({"--seed", "--output", "-o", "--quiet", "-q", "--jsonl"})


def _upload(found: Findings, view: Report) -> CipherFinding | None:
    """The upload answer on loopback of a run's (or one server's) first side, with --build the one a config is
    for, as the run concluded it (None: no safe cipher ranked there)."""
    side = next(iter(builds_of(view)), "")
    return next((c for c in found.ciphers if c.answer.direction is Direction.UPLOAD and not c.answer.link
                 and c.answer.build == side), None)


def _safe_ranked(found: Findings, view: Report) -> tuple[str, ...]:
    """Its pipe upload ciphers without a known weakness (Terrapin included), fastest first."""
    pick = _upload(found, view)
    return pick.safe if pick is not None else ()


def split_options(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the run's arguments without the SELECTION options, the selection options as given, minus OUTPUT_ONLY).

    Takes `--opt value` and `--opt=value`; a leading "run" is dropped (it is the default command).
    """
    kept: list[str] = []
    chosen: list[str] = []
    into, take = kept, 0
    for arg in argv:
        if take:
            into.append(arg)
            take -= 1
            continue
        name = arg.split("=", 1)[0]
        into = kept if name not in SELECTION else [] if name in OUTPUT_ONLY else chosen
        into.append(arg)
        take = SELECTION.get(name, 0) if "=" not in arg else 0
    return (kept[1:] if kept[:1] == ["run"] else kept), chosen


def program() -> list[str]:
    """This program as the user can run it again: `sshbench` where PATH finds this very program, else the path
    it was started by (`.venv/bin/sshbench` after `make run`, which puts nothing on PATH), or `python -m
    sshbench` with this interpreter."""
    started = sys.argv[0] if sys.argv and sys.argv[0] else "sshbench"
    if os.path.basename(started) == "__main__.py":
        return [sys.executable, "-m", "sshbench"]
    found = shutil.which("sshbench")
    if found and os.path.realpath(found) == os.path.realpath(started):
        return ["sshbench"]
    return [started]


def command(argv: list[str], *extra: str) -> str:
    return shlex.join([*program(), *split_options(argv)[0], *extra])


def next_steps(found: list[Findings], writer: ResultsWriter, argv: list[str], ssh_config: str | None) -> list[str]:
    """The lines after a run's tables, from each run's Findings."""
    reports = [each.report for each in found]
    lines = [f"Results: {writer.json_path}  (samples as CSV: {writer.csv_path})"]
    # --server a,b: each server's own answer, from its own view
    servers = [(each, view) for each in found for view in per_server(each.report)]
    for each, report in servers:
        pick = _upload(each, report)
        if pick is not None:
            where = "here" if len(servers) == 1 else f"on {report.label}"
            lines.append(f"Fastest cipher without a known weakness {where}: {pick.answer.best} "
                         f"({pick.answer.rate.median / 1e6:,.0f} MB/s upload, median).")
    short = [r.case(s.case_id).case for r in reports for s in r.summaries if s.precise is False]
    first = _safe_ranked(found[0], reports[0])
    if short:
        cases = "1 case" if len(short) == 1 else f"{len(short)} cases"
        lines.append(f"{cases} did not reach the precision target; give them more time, e.g.:  "
                     f"{command(argv, *_selection_args(short), '--time-budget', '20m')}")
    elif len(first) >= 2 and len(reports) == 1:
        lines.append("Compare the top two more tightly:  " + command(
            argv, "--ciphers", ",".join(first[:2]), "--macs", "none", "--kex", "none", "--hostkeys", "none",
            "--precision", "1%"))
    common = [c for c in first if all(c in _safe_ranked(each, each.report) for each in found[1:])]
    if len(reports) > 1 and common:
        lines.append(f"Hosts by shape, each divided by its own {common[0]}:  "
                     + shlex.join([*program(), "compare", writer.json_path, "--normalize", common[0]]))
    lines.append(f"Same schedule again:  {command(argv, *split_options(argv)[1], '--seed', str(reports[0].seed))}")
    lines.append(f"What each side supports:  {_algos([view for _, view in servers], ssh_config)}")
    return lines


def _algos(reports: list[Report], ssh_config: str | None) -> str:
    """`sshbench algos` for each embedded server, or for each host measured (with the run's --ssh-config)."""
    hosts = [r.environment.server.destination for r in reports if r.environment.server.destination]
    if not hosts:  # the launchers that ran (not what they ran: an HPN-SSH sshd is the openssh launcher's --sshd)
        asked = [_embedded_args(r) for r in reports]
        return "   ".join(shlex.join([*program(), "algos", *args]) for args in dict.fromkeys(asked))
    extra = ["--ssh-config", ssh_config] if ssh_config else []
    return "   ".join(shlex.join([*program(), "algos", host, *extra]) for host in hosts)


def _embedded_args(report: Report) -> tuple[str, ...]:
    """`algos` options that start the embedded server this run measured: its launcher and --sshd if it took one."""
    embedded = report.environment.server.embedded
    launcher = embedded.server if embedded else DEFAULT_SERVER
    named = () if launcher == DEFAULT_SERVER else ("--server", launcher)
    sshd = report.options.sshd
    return (*named, "--sshd", sshd) if sshd and takes_sshd(launcher) else named


def _selection_args(cases: list[Case]) -> list[str]:
    """Command-line selections that measure exactly these cases' algorithms."""
    picked: dict[Kind, list[str]] = {kind: [] for kind in ALGORITHM_KINDS}
    for case in cases:
        kind = case.algorithm_kind
        if kind is not None and case.subject not in picked[kind]:
            picked[kind].append(case.subject)
    flags = {Kind.CIPHER: "--ciphers", Kind.MAC: "--macs", Kind.KEX: "--kex", Kind.HOSTKEY: "--hostkeys"}
    methods = list(dict.fromkeys(family(c.method) for c in cases if c.kind is CaseKind.CIPHER))
    out = [part for k, names in picked.items() for part in (flags[k], ",".join(names) or "none")]
    return out + (["--method", ",".join(methods)] if methods and methods != [PIPE] else [])
