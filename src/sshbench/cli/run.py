"""`sshbench run`: parse, orchestrate, render.

The arguments become a checked RunRequest (here and cli/parser.py); the
orchestrator (orchestrate/run.py) prepares the client, hosts, servers and
links, then measures each host, saving as samples come; this module prints
the tables, the recommendation and the next steps, and picks the exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections import Counter
from collections.abc import Callable, Iterator

from rich.text import Text

from sshbench.analysis.conclude import conclude, conclude_fleet
from sshbench.analysis.findings import Findings

# --plan only: what a budget could settle on a quiet and a noisy machine, before anything is measured; not a
# conclusion of a run (a run's come from conclude() alone), so pyproject.toml's contract names these imports.
from sshbench.analysis.stats.forecast import NOISY_NOISE, QUIET_NOISE, resolution
from sshbench.analysis.stats.verdicts import rule_for
from sshbench.cli import refusals
from sshbench.cli.context import Context
from sshbench.cli.hints import next_steps
from sshbench.cli.parser import options_from_args
from sshbench.options import RunOptions
from sshbench.orchestrate.run import Prepared, RunRequest, measure_all, prepare
from sshbench.orchestrate.session import Advice
from sshbench.plan.budget import duration
from sshbench.render.config import print_recommendation
from sshbench.render.jsondoc import report_json
from sshbench.render.progress import JsonLinesReporter, reporter_for
from sshbench.render.terminal import answer_block, full_report, host_rule, hosts_report
from sshbench.results.model import CaseKind, CaseStatus, Report
from sshbench.results.store import ResultsWriter, check_output
from sshbench.targets.link.netns import check_can_emulate
from sshbench.targets.remote import parse_destination
from sshbench.targets.servers import DEFAULT as DEFAULT_SERVER
from sshbench.targets.servers import SERVERS, server_entry, variant, window_variants
from sshbench.vocabulary.errors import ExitCode, OutputError, UsageError
from sshbench.vocabulary.untrusted import UntrustedText, host_name


def cmd_run(args: argparse.Namespace, ctx: Context) -> int:
    """parse -> orchestrate (prepare, measure each host) -> render."""
    request = request_from_args(args)
    if args.plan:  # nothing is measured or saved: no results directory is made either
        check_output(request.options.output)  # but what the run would refuse, --plan refuses too
        ctx.code_if_closed = ExitCode.OK
        with contextlib.ExitStack() as stack, _preparing(ctx, args) as say:
            prepared = prepare(request, stack, say, ctx.say)
        for line in plan_lines(prepared):
            ctx.out.print(line, highlight=False, markup=False, soft_wrap=True)
        return ExitCode.OK
    ctx.writer = writer = ResultsWriter(request.options.output)
    ctx.code_if_closed = ExitCode.OUTPUT_CLOSED  # until the results are complete
    with contextlib.ExitStack() as stack:
        with _preparing(ctx, args) as say:  # a few seconds before the first sample: say what is happening
            prepared = prepare(request, stack, say, ctx.say)
        with reporter_for(ctx.err, quiet=args.quiet, jsonl=args.jsonl) as reporter:
            runs = measure_all(prepared, request, writer, reporter, ctx.say)
    return _finish(args, ctx, writer, runs, reporter if isinstance(reporter, JsonLinesReporter) else None)


def request_from_args(args: argparse.Namespace) -> RunRequest:
    """Every argument of `run` checked, before anything is made or started."""
    options = options_from_args(args)
    destinations = _destinations(args.destination)
    if args.label is not None:
        try:
            host_name(args.label, "--label")
        except UntrustedText:
            raise UsageError(f"bad --label {args.label!r}: use letters, digits, '.', '-' and '_', e.g. web1") \
                from None
    if options.links and destinations:
        raise UsageError("--link puts an emulated link in front of the embedded server; a real host's link is "
                         "real (its RTT is measured and used): leave --link out")
    if options.remote_workdir and not destinations:
        raise UsageError("--remote-workdir is for real hosts: give a destination, or use --workdir for the "
                         "embedded server")
    if options.none_cipher and not options.builds:
        raise UsageError("--none-cipher measures HPN-SSH's none cipher on the builds that have it: give them with "
                         "--build (e.g. --build stock --build hpn-ssh-18.8.0)")
    if options.builds and (destinations or _server_names(args.server, destinations) != [DEFAULT_SERVER]):
        raise UsageError("--build compares SSH builds on the embedded OpenSSH server: leave out destinations and "
                         "--server (a real host's server is what it is; measure its clients with --ssh)")
    servers = _server_names(args.server, destinations)
    refusals.for_hosts(options, destinations, servers)
    if options.links:
        check_can_emulate()  # before anything is made or started
    return RunRequest(options, tuple(destinations), tuple(servers),
                      all_servers=args.server.strip().lower() == "all", all_methods="all" in args.method.lower(),
                      label=args.label or "", ssh_config=args.ssh_config, plan_only=args.plan,
                      fit=args.fit, budget_chosen=args.time_budget is None)


def plan_lines(prepared: Prepared) -> list[str]:
    """--plan: per host, what would be measured (cases per table, references, left out) and the least time the
    minimum needs, against the budget."""
    out = []
    for host, plan, minimum in zip(prepared.hosts, prepared.plans, prepared.minimum, strict=True):
        name = host.remote.facts.destination if host.remote is not None else "embedded " + ", ".join(
            side.name for side in host.builds if side.axis == "server") if host.builds and \
            host.builds[0].axis == "server" else f"embedded {host.server.name}"
        measured = [r.case for r in plan.records if r.status is not CaseStatus.SKIPPED]
        tables = Counter(c.group for c in measured if c.kind not in (CaseKind.CONTROL, CaseKind.CEILING))
        references = len(measured) - sum(tables.values())
        budget = host.options.time_budget_seconds
        out.append(f"plan: {name}: {sum(tables.values())} cases in {len(tables)} tables ("
                   + ", ".join(f"{group} {count}" for group, count in tables.items())
                   + f"), {references} references, {len(plan.records) - len(measured)} left out")
        out.append(f"plan: {name}: the minimum ({host.options.min_runs} samples of each case) needs at least "
                   f"{duration(minimum[0])}, about {duration(minimum[1])} on a busy 2-vCPU machine (guessed before "
                   "measuring); the time budget is "
                   + ("none" if budget is None else f"{duration(budget / len(prepared.hosts))}"
                      + (" (this host's share)" if len(prepared.hosts) > 1 else "")))
        out += [f"plan: {name}: {line}" for line in forecast_lines(host.options, tables, minimum[0],
                                                                     None if budget is None else
                                                                     budget / len(prepared.hosts))]
    return out


def forecast_lines(options: RunOptions, tables: Counter[str], minimum: float, budget: float | None) -> list[str]:
    """What the run can settle in its budget, forecast for a quiet and a noisy machine (the run itself measures its
    noise and forecasts each open pair of its answer)."""
    if options.mode != "decision" or not tables:
        return []
    per_pass = minimum / max(1, options.min_runs)
    samples = options.max_runs if budget is None or not per_pass else \
        max(options.min_runs, min(options.max_runs, int(budget / per_pass)))
    rule = rule_for(options)
    share = rule.alpha / max(1, max(tables.values()) - 1)
    levels = rule.level(share, samples), rule.level(share, samples, two_sided=False)
    words = []
    for label, noise in (("a quiet machine", QUIET_NOISE), ("a noisy one", NOISY_NOISE)):
        found = resolution(samples, noise, options.tie_margin, *levels)
        equal = (f"equivalent within ±{options.tie_margin * 100:g}% where closer than "
                 f"{found.equivalent_below * 100:.1f}%" if found.equivalent_below is not None else
                 f"no equivalence within ±{options.tie_margin * 100:g}% (that would need "
                 f"±{found.margin_needed * 100:.0f}%)")
        words.append(f"on {label} ({noise * 100:g}% per sample) it tells apart differences of "
                     f"{found.different_from * 100:.0f}% or more, and shows {equal}")
    return [f"forecast: with about {samples} samples of each throughput case in this budget, " + "; ".join(words),
            "forecast: the run measures its own noise after the minimum and says, for every comparison its answer "
            "leaves open, how much longer would settle it"]


def _server_names(given: str, destinations: list[str]) -> list[str]:
    """--server: openssh, dropbear, tinysshd, a window variant (dropbear:window=4MiB), a comma list, or all. Real
    hosts are measured with openssh's embedded server beside them (payload, drop-in checks), so any other choice
    with a destination is an error."""
    names = list(SERVERS) if given.strip().lower() == "all" else [n.strip() for n in given.split(",") if n.strip()]
    unknown = [n for n in names if variant(n.partition(":")[0].strip())[0] not in SERVERS]
    if unknown or not names:
        raise UsageError(f"--server {given!r}: use one or more of {', '.join(SERVERS)}, or all; a window variant "
                         f"is a server of its own ({window_variants()})")
    names = [server_entry(n) for n in names]  # a window variant by its canonical name, as ids and results say it
    if destinations and names != [DEFAULT_SERVER]:
        raise UsageError("--server chooses the embedded server; with a destination the real host is measured, so "
                         "leave --server out")
    return list(dict.fromkeys(names))


def _destinations(given: list[str] | None) -> list[str]:
    seen: set[str] = set()
    for destination in given or []:
        parse_destination(destination)  # checked before anything is made or run
        if destination in seen:
            raise UsageError(f"destination {destination!r} is named twice; each host is measured once per run")
        seen.add(destination)
    return list(given or [])


def _finish(args: argparse.Namespace, ctx: Context, writer: ResultsWriter,
            runs: list[tuple[Report, list[Advice]]], lines: JsonLinesReporter | None = None) -> int:
    """The tables, recommendation and next steps (or the JSON line, or just the path); the exit code."""
    reports = [report for report, _ in runs]
    failed = any(not s.ok and not s.warmup for r in reports for s in r.samples) or any(
        c.status is CaseStatus.FAILED for r in reports for c in r.cases) or any(
        not e.ok for r in reports for e in r.echoes)
    ctx.code_if_closed = ExitCode.SAMPLES_FAILED if failed else ExitCode.OK  # the results are complete now
    out = ctx.out
    if args.jsonl and lines is not None:
        _jsonl_end(lines, [conclude(report) for report in reports], writer, failed)
        if lines.failure is not None:
            raise OutputError(f"--jsonl: stdout could not be written ({lines.failure.strerror or lines.failure}); "
                              f"the run went on and its results file is complete: {writer.json_path}")
    elif args.quiet:
        ctx.line(writer.json_path or "")
    else:
        found = [conclude(report) for report in reports]  # once per run: the tables and the answer at the end
        for each, (report, advices) in zip(found, runs, strict=True):
            if len(runs) > 1:
                out.print(host_rule(report))
            out.print(full_report(each, ctx.table_width(args.wide)))
            for view, advice in advices:
                if len(advices) > 1:  # --server a,b: each server's own recommendation, under its name
                    out.print(host_rule(view))
                print_recommendation(out, advice)
        if len(runs) > 1:
            out.print(hosts_report(conclude_fleet(reports), ctx.table_width(args.wide)))
        for line in next_steps(found, writer, ctx.argv, args.ssh_config):
            out.print(line, highlight=False, markup=False, soft_wrap=True)  # commands are pasted: never wrapped
        for each in found:  # the answer last too: on screen when the run finishes
            answer = answer_block(each)
            if answer is not None:
                out.print(Text(f"\n{each.report.label}:", style="bold") if len(reports) > 1 else "")
                out.print(answer)
    return ExitCode.SAMPLES_FAILED if failed else ExitCode.OK


def _jsonl_end(lines: JsonLinesReporter, found: list[Findings], writer: ResultsWriter, failed: bool) -> None:
    """What the tables say, for scripts: per host each case's final summary, the warnings and the answer, then
    `finished` with the whole `report --json` document of these results (one document, built once: the events
    before it are its parts)."""
    reports = [each.report for each in found]
    document = report_json(found)
    for report, run in zip(reports, document["runs"], strict=True):
        for summary in run["summaries"]:
            lines.line(json.dumps({"event": "summary", "host": report.label, **summary}))
        for warning in run["warnings"]:
            lines.line(json.dumps({"event": "warning", "host": report.label, **warning}))
        lines.line(json.dumps({"event": "answer", "host": report.label, "answer": run["answer"],
                               "servers": run["servers"]}, allow_nan=False))
    lines.line(json.dumps({"event": "finished", "status": _overall_status(reports), "results": writer.json_path,
                           "csv": writer.csv_path, "hosts": [r.label for r in reports],
                           "samples": sum(len(r.samples) for r in reports), "failed": failed,
                           "report": document}, allow_nan=False))


@contextlib.contextmanager
def _preparing(ctx: Context, args: argparse.Namespace) -> Iterator[Callable[[str], None]]:
    """A spinner with what the run is doing before its progress bar exists (terminal only; never with -q/--jsonl)."""
    if args.quiet or args.jsonl or not ctx.err.is_terminal:
        yield lambda _text: None
        return
    with ctx.err.status("starting") as status:
        yield lambda text: status.update(text)


def _overall_status(reports: list[Report]) -> str:
    statuses = {r.status for r in reports}
    return next((s for s in ("failed", "interrupted", "running") if s in statuses), "complete")
