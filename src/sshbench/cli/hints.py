"""What to do next, after a run: where the results are, the answer in one line, and commands that work as shown."""

from __future__ import annotations

import shlex

from sshbench.algorithms import ALGORITHM_KINDS, Grade, Kind, lookup
from sshbench.analysis.recommend import terrapin_exposed
from sshbench.results.kinds import PIPE, CaseKind, Direction
from sshbench.results.model import Case, Report
from sshbench.results.store import ResultsWriter


def _safe_ranked(report: Report) -> list[str]:
    """Pipe upload ciphers without a known weakness (Terrapin included), fastest first."""
    fastest = [s for s in report.summaries if s.group == f"cipher:{Direction.UPLOAD.value}" and s.rank]  # pipe
    names = [report.case(s.case_id).case.subject for s in sorted(fastest, key=lambda s: s.rank or 0)]
    terrapin = report.environment.terrapin
    strict = terrapin is not None and terrapin.protected
    return [n for n in names if lookup(n, Kind.CIPHER).grade in (Grade.RECOMMENDED, Grade.ACCEPTABLE)
            and (strict or not terrapin_exposed(n, None))]


def next_steps(reports: list[Report], writer: ResultsWriter, ssh_config: str | None = None) -> list[str]:
    lines = [f"Results: {writer.json_path}  (samples as CSV: {writer.csv_path})"]
    hosts = [r.label for r in reports if r.label != "embedded"]
    config = f" --ssh-config {shlex.quote(ssh_config)}" if ssh_config else ""
    command = "sshbench" + "".join(f" {h}" for h in hosts) + config
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
        lines.append(f"{len(short)} cases did not reach the precision target; give them more time, e.g.:  {command} "
                     f"{_selection_args(short)} --time-budget 20m")
    elif first and len(reports) == 1:
        lines.append(f"Compare the top two more tightly:  {command} --ciphers {','.join(first[:2])} --macs none "
                     f"--kex none --hostkeys none --precision 1%")
    common = [c for c in first if all(c in _safe_ranked(r) for r in reports[1:])]
    if len(reports) > 1 and common:
        lines.append(f"Hosts by shape, each divided by its own {common[0]}:  sshbench compare {writer.json_path} "
                     f"--normalize {common[0]}")
    lines.append(f"Same schedule again:  {command} --seed {reports[0].seed}    What each side supports:  "
                 "sshbench algos")
    return lines


def _selection_args(cases: list[Case]) -> str:
    """Command-line selections that measure exactly these cases' algorithms."""
    picked: dict[Kind, list[str]] = {kind: [] for kind in ALGORITHM_KINDS}
    for case in cases:
        kind = case.algorithm_kind
        if kind is not None and case.subject not in picked[kind]:
            picked[kind].append(case.subject)
    flags = {Kind.CIPHER: "--ciphers", Kind.MAC: "--macs", Kind.KEX: "--kex", Kind.HOSTKEY: "--hostkeys"}
    methods = list(dict.fromkeys(c.method.split("-B")[0] for c in cases if c.kind is CaseKind.CIPHER))
    extra = f" --method {','.join(methods)}" if methods and methods != [PIPE] else ""
    return " ".join(f"{flags[k]} {','.join(names) or 'none'}" for k, names in picked.items()) + extra
