"""What to do next, after a run: where the results are, the answer in one line, and commands that work as shown.

Every suggested command starts from the run's own command line, so it keeps
what that run needed (the destination, --ssh-config, --cipher-mac for a
server without the default MAC, sizes...) and only swaps the options it is
about. A test runs each suggestion.
"""

from __future__ import annotations

import shlex

from sshbench.algorithms import ALGORITHM_KINDS, Grade, Kind, lookup
from sshbench.analysis.recommend import terrapin_exposed
from sshbench.results.kinds import PIPE, CaseKind, Direction
from sshbench.results.model import Case, Report
from sshbench.results.store import ResultsWriter

# Options a suggestion replaces (with how many values each takes); everything else is kept as given.
SELECTION = {"--ciphers": 1, "--macs": 1, "--kex": 1, "--hostkeys": 1, "--method": 1, "--precision": 1,
             "--runs": 1, "--setup-runs": 1, "--time-budget": 1, "--seed": 1, "--output": 1, "-o": 1,
             "--quiet": 0, "-q": 0, "--jsonl": 0}


def _safe_ranked(report: Report) -> list[str]:
    """Pipe upload ciphers without a known weakness (Terrapin included), fastest first."""
    fastest = [s for s in report.summaries if s.group == f"cipher:{Direction.UPLOAD.value}" and s.rank]  # pipe
    names = [report.case(s.case_id).case.subject for s in sorted(fastest, key=lambda s: s.rank or 0)]
    terrapin = report.environment.terrapin
    strict = terrapin is not None and terrapin.protected
    return [n for n in names if lookup(n, Kind.CIPHER).grade in (Grade.RECOMMENDED, Grade.ACCEPTABLE)
            and (strict or not terrapin_exposed(n, None))]


def without_selection(argv: list[str]) -> list[str]:
    """The run's arguments without the options a suggestion sets itself (`--opt value` and `--opt=value`)."""
    out, skip = [], 0
    for arg in argv:
        if skip:
            skip -= 1
            continue
        name = arg.split("=", 1)[0]
        if name in SELECTION:
            skip = SELECTION[name] if "=" not in arg else 0
            continue
        out.append(arg)
    if out and out[0] == "run":
        out = out[1:]
    return out


def command(argv: list[str], *extra: str) -> str:
    return shlex.join(["sshbench", *without_selection(argv), *extra])


def next_steps(reports: list[Report], writer: ResultsWriter, argv: list[str]) -> list[str]:
    lines = [f"Results: {writer.json_path}  (samples as CSV: {writer.csv_path})"]
    for report in reports:
        safe = _safe_ranked(report)
        summary = next((s for s in report.summaries if safe and s.case_id == Case(
            CaseKind.CIPHER, Direction.UPLOAD, cipher=safe[0]).id), None)
        if summary and summary.throughput_bytes_per_second:
            where = "here" if len(reports) == 1 else f"on {report.label}"
            lines.append(f"Fastest cipher without a known weakness {where}: {safe[0]} "
                         f"({summary.throughput_bytes_per_second.median / 1e6:,.0f} MB/s upload, median).")
    short = [r.case(s.case_id).case for r in reports for s in r.summaries if s.precise is False]
    first = _safe_ranked(reports[0])
    if short:
        lines.append(f"{len(short)} cases did not reach the precision target; give them more time, e.g.:  "
                     f"{command(argv, *_selection_args(short), '--time-budget', '20m')}")
    elif len(first) >= 2 and len(reports) == 1:
        lines.append("Compare the top two more tightly:  " + command(
            argv, "--ciphers", ",".join(first[:2]), "--macs", "none", "--kex", "none", "--hostkeys", "none",
            "--precision", "1%"))
    common = [c for c in first if all(c in _safe_ranked(r) for r in reports[1:])]
    if len(reports) > 1 and common:
        lines.append(f"Hosts by shape, each divided by its own {common[0]}:  sshbench compare "
                     f"{shlex.quote(writer.json_path)} --normalize {common[0]}")
    lines.append(f"Same schedule again:  {command(argv, *_original_selection(argv), '--seed', str(reports[0].seed))}")
    lines.append(f"What each side supports:  {_algos(reports, argv)}")
    return lines


def _original_selection(argv: list[str]) -> list[str]:
    """The selection options the run was given, as given (kept for "same schedule again")."""
    out, take = [], 0
    for arg in argv:
        if take:
            out.append(arg)
            take -= 1
            continue
        name = arg.split("=", 1)[0]
        if name in SELECTION and name not in ("--seed", "--output", "-o", "--quiet", "-q", "--jsonl"):
            out.append(arg)
            take = SELECTION[name] if "=" not in arg else 0
    return out


def _algos(reports: list[Report], argv: list[str]) -> str:
    """`sshbench algos` for the embedded server, or for the host measured (with the run's --ssh-config)."""
    config = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--ssh-config"),
                  next((a.split("=", 1)[1] for a in argv if a.startswith("--ssh-config=")), None))
    hosts = [r.environment.server.destination for r in reports if r.environment.server.destination]
    if not hosts:
        kinds = [r.environment.server.software for r in reports]
        return "   ".join("sshbench algos" if kind == "openssh" else f"sshbench algos --server {kind}"
                           for kind in dict.fromkeys(kinds))
    extra = ["--ssh-config", config] if config else []
    return "   ".join(shlex.join(["sshbench", "algos", host, *extra]) for host in hosts)


def _selection_args(cases: list[Case]) -> list[str]:
    """Command-line selections that measure exactly these cases' algorithms."""
    picked: dict[Kind, list[str]] = {kind: [] for kind in ALGORITHM_KINDS}
    for case in cases:
        kind = case.algorithm_kind
        if kind is not None and case.subject not in picked[kind]:
            picked[kind].append(case.subject)
    flags = {Kind.CIPHER: "--ciphers", Kind.MAC: "--macs", Kind.KEX: "--kex", Kind.HOSTKEY: "--hostkeys"}
    methods = list(dict.fromkeys(c.method.split("-B")[0] for c in cases if c.kind is CaseKind.CIPHER))
    out = [part for k, names in picked.items() for part in (flags[k], ",".join(names) or "none")]
    return out + (["--method", ",".join(methods)] if methods and methods != [PIPE] else [])
