"""What to do next, after a run: where the results are, the answer in one line, and commands that work as shown.

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

from sshbench.analysis.answer import ranked_ciphers
from sshbench.analysis.safety import safe_cipher
from sshbench.methods import family
from sshbench.results.model import Case, Report, Summary
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


def _safe_ranked(report: Report) -> list[Summary]:
    """Pipe upload cipher cases without a known weakness (Terrapin included), fastest first (of the first build,
    with --build: the one a config is for)."""
    build = next(iter(builds_of(report)), "")
    return [s for s in ranked_ciphers(report, Direction.UPLOAD, build=build) if safe_cipher(report, _name(report, s))]


def _name(report: Report, summary: Summary) -> str:
    return report.case(summary.case_id).case.subject


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


def next_steps(reports: list[Report], writer: ResultsWriter, argv: list[str], ssh_config: str | None) -> list[str]:
    lines = [f"Results: {writer.json_path}  (samples as CSV: {writer.csv_path})"]
    servers = [view for report in reports for view in per_server(report)]  # --server a,b: each server's own
    for report in servers:
        safe = _safe_ranked(report)
        tput = safe[0].throughput_bytes_per_second if safe else None
        if tput is not None:
            where = "here" if len(servers) == 1 else f"on {report.label}"
            lines.append(f"Fastest cipher without a known weakness {where}: {_name(report, safe[0])} "
                         f"({tput.median / 1e6:,.0f} MB/s upload, median).")
    short = [r.case(s.case_id).case for r in reports for s in r.summaries if s.precise is False]
    first = [_name(reports[0], s) for s in _safe_ranked(reports[0])]
    if short:
        cases = "1 case" if len(short) == 1 else f"{len(short)} cases"
        lines.append(f"{cases} did not reach the precision target; give them more time, e.g.:  "
                     f"{command(argv, *_selection_args(short), '--time-budget', '20m')}")
    elif len(first) >= 2 and len(reports) == 1:
        lines.append("Compare the top two more tightly:  " + command(
            argv, "--ciphers", ",".join(first[:2]), "--macs", "none", "--kex", "none", "--hostkeys", "none",
            "--precision", "1%"))
    common = [c for c in first if all(c in [_name(r, s) for s in _safe_ranked(r)] for r in reports[1:])]
    if len(reports) > 1 and common:
        lines.append(f"Hosts by shape, each divided by its own {common[0]}:  "
                     + shlex.join([*program(), "compare", writer.json_path, "--normalize", common[0]]))
    lines.append(f"Same schedule again:  {command(argv, *split_options(argv)[1], '--seed', str(reports[0].seed))}")
    lines.append(f"What each side supports:  {_algos(servers, ssh_config)}")
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
