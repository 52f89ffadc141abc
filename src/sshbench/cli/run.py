"""`sshbench run`: the benchmark, read as the pipeline it is.

options -> client discovery -> hosts checked -> embedded server -> cases ->
one measuring session per host (schedule, samples, saved as they come) ->
tables, recommendation and next steps.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import random
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from sshbench import __version__
from sshbench.analysis.validate import CheckedRecommendation
from sshbench.cli import Context
from sshbench.cli.hints import next_steps
from sshbench.cli.parser import options_from_args
from sshbench.errors import ExitCode, MissingToolError, ServerError, UsageError
from sshbench.linkspec import parse_label
from sshbench.measure.controls import verify_aesni_mask
from sshbench.measure.datapath import make_payload
from sshbench.measure.runner import bytes_moved
from sshbench.measure.session import Host, embedded_environment, measure_host
from sshbench.options import RunOptions
from sshbench.plan.budget import host_share
from sshbench.plan.cases import expand_methods, plan_host
from sshbench.render.config import print_recommendation
from sshbench.render.progress import reporter_for
from sshbench.render.terminal import full_report, host_rule, hosts_report
from sshbench.results.model import CaseStatus, Report
from sshbench.results.store import ResultsWriter
from sshbench.results.untrusted import UntrustedText, host_name
from sshbench.targets.base import EmbeddedServer
from sshbench.targets.discovery import ClientInfo, discover_client
from sshbench.targets.link.emulated import EmulatedLinks
from sshbench.targets.link.netns import check_can_emulate
from sshbench.targets.remote import RemoteHost, open_remote, parse_destination
from sshbench.targets.servers import SERVERS, embedded_server


def cmd_run(args: argparse.Namespace, ctx: Context) -> int:
    options = options_from_args(args)
    destinations = _destinations(args.destination)
    server_names = _server_names(args.server, destinations)
    if args.label is not None:
        try:
            host_name(args.label, "--label")
        except UntrustedText:
            raise UsageError(f"bad --label {args.label!r}: use letters, digits, '.', '-' and '_', e.g. web1") \
                from None
    if options.links and destinations:
        raise UsageError("--link puts an emulated link in front of the embedded server; a real host's link is "
                         "real (its RTT is measured and used): leave --link out")
    if options.links:
        check_can_emulate()  # before anything is made or started
    if options.remote_workdir and not destinations:
        raise UsageError("--remote-workdir is for real hosts: give a destination, or use --workdir for the "
                         "embedded server")
    ctx.writer = writer = ResultsWriter(options.output)
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    runs: list[tuple[Report, CheckedRecommendation]] = []
    with contextlib.ExitStack() as stack:
        with _preparing(ctx, args) as say:  # a few seconds before the first sample: say what is happening
            say("checking the local ssh client")
            client = discover_client(options.ssh)
            crypto = verify_aesni_mask() if options.no_aesni else None
            methods, missing = expand_methods(options, "all" in args.method.lower())
            # Every host is checked (login, offer) before the first is measured: no half-run for a typo in the third.
            remotes: list[RemoteHost | None] = []
            for destination in destinations:
                say(f"checking {destination}: login, its SSH offer, round-trip time")
                remotes.append(open_remote(destination, args.ssh_config, client, options.timeout_seconds,
                                           options.remote_workdir))
            remotes = remotes or [None]
            # The embedded server also runs for remote hosts: its private dir holds the payload, and it
            # validates the recommended server drop-in without touching any real server.
            servers = []
            for name in server_names:
                say(f"starting the private {name} on 127.0.0.1 (keys, config, what it supports)")
                server = _start(stack, name, client, options, ctx, asked_all=args.server.strip().lower() == "all")
                if server is not None:
                    servers.append(server)
            links: EmulatedLinks | None = None
            if options.links:
                say("making the emulated links (network namespaces, devices) and measuring their round trips")
                links = stack.enter_context(EmulatedLinks([parse_label(text) for text in options.links], seed))
            ports = {server.name: links.serve(server) if links else 0 for server in servers}
            say("making the test data and planning the cases")
            payload = make_payload(options.data, servers[0].workdir, seed)
            hosts = ([Host(options, client, servers[0], payload, remote, methods, seed, crypto) for remote in remotes]
                     if destinations else
                     [Host(options, client, server, payload, None, methods, seed, crypto,
                           links.paths if links else {}, ports[server.name]) for server in servers])
            plans = [plan_host(options, client, h.offered, methods, missing,
                               "the server" if h.remote is None else h.remote.facts.destination or "",
                               embedded=h.remote is None,
                               hostkey_skip=None if h.remote is None else h.remote.hostkey_skip,
                               compression=None if h.remote is None else h.remote.compression) for h in hosts]
        started = time.monotonic()
        with reporter_for(ctx.err, quiet=args.quiet, jsonl=args.jsonl) as reporter:
            for index, (host, plan) in enumerate(zip(hosts, plans, strict=True)):
                spent = (time.monotonic() - started, sum(bytes_moved(r) for r, _ in runs))
                share = host_share(options, spent, len(hosts) - index)
                share = dataclasses.replace(share, cipher_mac=plan.cipher_mac, mac_cipher=plan.mac_cipher)
                for note in plan.notes:
                    ctx.say(f"sshbench: {report_label(host)}{note}")
                report = Report(tool_version=__version__, seed=seed, options=share, cases=plan.records,
                                started_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
                                environment=embedded_environment(client, host.server), partner_kex=plan.partner_kex)
                report.environment.host.label = args.label or ""
                runs.append((report, measure_host(dataclasses.replace(host, options=share), report, writer.save,
                                                  reporter)))
                writer.host_done(report)
    return _finish(args, ctx, writer, runs)


def _finish(args: argparse.Namespace, ctx: Context, writer: ResultsWriter,
            runs: list[tuple[Report, CheckedRecommendation]]) -> int:
    """The tables, recommendation and next steps (or the JSON line, or just the path); the exit code."""
    reports = [report for report, _ in runs]
    failed = any(not s.ok and not s.warmup for r in reports for s in r.samples) or any(
        c.status is CaseStatus.FAILED for r in reports for c in r.cases) or any(
        not e.ok for r in reports for e in r.echoes)
    out = ctx.out
    if args.jsonl:
        print(json.dumps({"event": "finished", "status": _overall_status(reports), "results": writer.json_path,
                          "csv": writer.csv_path, "hosts": [r.label for r in reports],
                          "samples": sum(len(r.samples) for r in reports), "failed": failed}), flush=True)
    elif args.quiet:
        ctx.path(writer.json_path or "")
    else:
        for report, advice in runs:
            if len(runs) > 1:
                out.print(host_rule(report))
            out.print(full_report(report, ctx.table_width(args.wide)))
            print_recommendation(out, advice)
        if len(runs) > 1:
            out.print(hosts_report(reports, ctx.table_width(args.wide)))
        for line in next_steps(reports, writer, ctx.argv, args.ssh_config):
            out.print(line, highlight=False, markup=False, soft_wrap=True)  # commands are pasted: never wrapped
    return ExitCode.SAMPLES_FAILED if failed else ExitCode.OK


@contextlib.contextmanager
def _preparing(ctx: Context, args: argparse.Namespace) -> Iterator[Callable[[str], None]]:
    """A spinner with what the run is doing before its progress bar exists (terminal only; never with -q/--jsonl)."""
    if args.quiet or args.jsonl or not ctx.err.is_terminal:
        yield lambda _text: None
        return
    with ctx.err.status("starting") as status:
        yield lambda text: status.update(text)


def _server_names(given: str, destinations: list[str]) -> list[str]:
    """--server: openssh, dropbear, tinysshd, a comma list, or all. Real hosts are measured with openssh's
    embedded server beside them (payload, drop-in checks), so any other choice with a destination is an error."""
    names = list(SERVERS) if given.strip().lower() == "all" else [n.strip() for n in given.split(",") if n.strip()]
    unknown = [n for n in names if n not in SERVERS]
    if unknown or not names:
        raise UsageError(f"--server {given!r}: use one or more of {', '.join(SERVERS)}, or all")
    if destinations and names != ["openssh"]:
        raise UsageError("--server chooses the embedded server; with a destination the real host is measured, so "
                         "leave --server out")
    return list(dict.fromkeys(names))


def _start(stack: contextlib.ExitStack, name: str, client: ClientInfo, options: RunOptions, ctx: Context,
           asked_all: bool) -> EmbeddedServer | None:
    """One embedded server, started; with `all`, a server this machine lacks is skipped, saying what to install."""
    try:
        return stack.enter_context(embedded_server(name, client, options.sshd if name == "openssh" else None,
                                                   env=options.crypto_env()))
    except (MissingToolError, ServerError) as exc:
        if name == "openssh":
            raise
        if not asked_all:
            if isinstance(exc, ServerError):
                raise
            raise MissingToolError(f"--server {name}: {exc}") from None
        ctx.say(f"sshbench: --server all: {name} skipped: {exc}")
        return None


def report_label(host: Host) -> str:
    """"HOST: " before a note about one host of several (nothing for the embedded server)."""
    return "" if host.remote is None else f"{host.remote.facts.destination}: "


def _destinations(given: list[str] | None) -> list[str]:
    seen: set[str] = set()
    for destination in given or []:
        parse_destination(destination)  # checked before anything is made or run
        if destination in seen:
            raise UsageError(f"destination {destination!r} is named twice; each host is measured once per run")
        seen.add(destination)
    return list(given or [])


def _overall_status(reports: list[Report]) -> str:
    statuses = {r.status for r in reports}
    return next((s for s in ("failed", "interrupted", "running") if s in statuses), "complete")
