"""Command line: parse options, build the run, hand results to the renderers. The only place that exits.

Reads as the pipeline: options -> client discovery -> embedded server ->
selection and cases -> seeded schedule -> runner (saving as it goes) ->
tables and next steps. Every failure the user can fix arrives here as an
SshbenchError and leaves as one line on stderr with a documented exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import random
import shlex
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, NoReturn

from rich.console import Console

from sshbench import __version__, sysinfo, untrusted
from sshbench.advice import advise
from sshbench.algorithms import ALGORITHM_KINDS, Grade, Kind, lookup
from sshbench.compare import compare
from sshbench.controls import EVP_OF, verify_aesni_mask
from sshbench.datapath import Payload, make_payload
from sshbench.discovery import AlgorithmLists, ClientInfo, lists_facts, probe_client
from sshbench.environment import Environment, FilesFacts, MaskCheck, ServerFacts, TerrapinFacts
from sshbench.errors import ExitCode, MissingToolError, OutputError, ServerError, SshbenchError, UsageError
from sshbench.export import charts, html, markdown
from sshbench.export.results import ResultsWriter, read_results
from sshbench.iperf import tcp_ceiling
from sshbench.kexinit import KexinitError, kexinit_over, read_client_kexinit, terrapin_report
from sshbench.methods import missing_tools, parse_methods, sftp_variants
from sshbench.model import Case, CaseRecord, CaseStatus, Direction, Report, host_label
from sshbench.options import (
    DEFAULT_CIPHER_MAC,
    DEFAULT_MAC_CIPHER,
    RunOptions,
    parse_directions,
    parse_duration,
    parse_fraction,
)
from sshbench.outputs import file_in, output_dir, text_output
from sshbench.plan import FixedSchedule, PrecisionSchedule, Schedule, Selection, SweepSettings, build_cases, select
from sshbench.probe import ProbeSettings
from sshbench.recommend import POLICIES
from sshbench.remote import (
    RemoteTarget,
    host_pattern,
    offered_lists,
    parse_destination,
    resolve,
    round_trip_seconds,
    server_offer,
)
from sshbench.runner import bytes_moved, execute
from sshbench.servers.openssh import EmbeddedOpenSSH
from sshbench.target import EmbeddedTarget
from sshbench.testfiles import check_free_space, measure_disk
from sshbench.transfer import TransferFiles, command_templates, prepared_files
from sshbench.ui.compare import comparison_table
from sshbench.ui.config import print_recommendation, print_terrapin
from sshbench.ui.progress import JsonLinesReporter, QuietReporter, RichReporter
from sshbench.ui.tables import algorithms_tables, full_report, host_rule, hosts_report
from sshbench.units import parse_size
from sshbench.validate import CheckedRecommendation, checked_recommendation

SUBCOMMANDS = ("run", "algos", "recommend", "report", "compare")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, not argparse's usage dump: the problem and where to look."""
        raise UsageError(f"{message} (see sshbench --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sshbench", description="Measure SSH ciphers, MACs and key exchanges on a private "
                     "loopback OpenSSH server (default command: run).")
    parser.add_argument("--version", action="version", version=f"sshbench {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    run = sub.add_parser("run", help="the benchmark (default when no command is given)")
    run.add_argument("destination", nargs="*", help="[user@]host[:port] or a Host alias of your ssh config: "
                     "measure that real server with your own ssh setup; several are measured one after another "
                     "into one results file (default: a private loopback sshd)")
    run.add_argument("--ssh-config", help="with a destination: ssh config file to use instead of ~/.ssh/config")
    run.add_argument("--max-bytes", help="stop before sending more than this in total, e.g. 20GB (politeness "
                     "towards real links)")
    sel = run.add_argument_group("what to measure (comma lists; keywords all, default, none; -NAME excludes)")
    sel.add_argument("--ciphers", default="all", help="cipher sweep, upload and download (default: all)")
    sel.add_argument("--macs", default="all", help="MAC sweep with one non-AEAD cipher, upload (default: all)")
    sel.add_argument("--kex", default="all", help="key exchange handshake latency (default: all)")
    sel.add_argument("--hostkeys", default="all", help="host key algorithm handshake latency (default: all)")
    sel.add_argument("--cipher-mac", default=DEFAULT_CIPHER_MAC, help="MAC for non-AEAD ciphers in the cipher sweep")
    sel.add_argument("--mac-cipher", default=DEFAULT_MAC_CIPHER, help="non-AEAD cipher for the MAC sweep")
    sel.add_argument("--directions", default="both", help="cipher sweep directions: upload, download or both")
    how = run.add_argument_group("how much (default: precision mode)")
    how.add_argument("--precision", help="target half-width of each median's 95%% interval, "
                     "e.g. 3%% or 0.03 (default: 3%%)")
    how.add_argument("--min-runs", type=int, help="measured samples per case at least (default: 6, "
                     "the fewest that give a 95%% interval)")
    how.add_argument("--max-runs", type=int, help="measured samples per case at most (default: 30)")
    how.add_argument("--time-budget", help="stop starting samples after this long, e.g. 90s, 8m, 1h; 'none' "
                     "for no limit (default: 8m in precision mode, none with --runs)")
    how.add_argument("--runs", type=int, help="fixed mode: exactly this many measured samples per throughput "
                     "case, no precision target (time budget only if given)")
    how.add_argument("--setup-runs", type=int, help="fixed mode: samples per key exchange / host key "
                     "case (default: 10)")
    how.add_argument("--size", help="bytes per transfer, e.g. 512MiB, 2GB, 1G (default: sized per case so a "
                     "sample lasts --sample-seconds)")
    how.add_argument("--sample-seconds", type=float, help="target data phase per sample when "
                     "sizing automatically (default: 1.0)")
    how.add_argument("--seed", type=int, help="schedule seed, to repeat a run's order (default: random, recorded)")
    how.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per connection on top of the "
                     "expected transfer time (default: 60)")
    data = run.add_argument_group("data and crypto")
    data.add_argument("--data", choices=("zero", "random", "text"), default="zero",
                      help="payload: zeros (default), random bytes (incompressible) or text (compresses ~3:1); "
                      "made once per run, streamed without slowing the source")
    data.add_argument("--compression", action="store_true", help="SSH compression on; only meaningful with "
                      "--data text (zeros compress absurdly well, random data not at all)")
    data.add_argument("--no-aesni", action="store_true", help="mask AES-NI, VAES and PCLMULQDQ in OpenSSL for "
                      "client, server and ceilings: what a CPU without AES instructions would see")
    data.add_argument("--no-controls", action="store_true", help="skip the raw TCP control and crypto ceilings")
    tools = run.add_argument_group("transfer methods (the cipher sweep runs once per method)")
    tools.add_argument("--method", default="pipe", help="comma list of pipe (ssh carrying a stream: SSH itself), "
                       "scp, scp-legacy (scp -O), sftp, rsync, or all (default: pipe)")
    tools.add_argument("--workdir", help="directory for the file methods' test files (default: the temp dir)")
    tools.add_argument("--remote-workdir", help="with a destination: directory on the server for its test files "
                       "(default: the server's $TMPDIR or /tmp); its free space is checked first")
    tools.add_argument("--sink", choices=("file", "null"), help="file methods: the receiver "
                       "writes a real file (default; size checked) or /dev/null")
    tools.add_argument("--verify", action="store_true", help="SHA-256 of every received file (outside the timing)")
    tools.add_argument("--files", type=int, help="many-small-files set: this many files per transfer (with "
                       "--file-size); per-file overhead, not the cipher, dominates there")
    tools.add_argument("--file-size", help="size of each file of the --files set, e.g. 64KiB")
    tools.add_argument("--sftp-buffers", help="sftp -B sweep, e.g. 32KiB,128KiB,255KiB (sftp's default 32768)")
    tools.add_argument("--sftp-requests", help="sftp -R sweep, e.g. 64,256 (sftp's default 64)")
    out = run.add_argument_group("where")
    out.add_argument("--output", "-o", help="results JSON path; a CSV of samples is written beside it "
                     "(default: sshbench-results/sshbench-<UTC time>.json)")
    out.add_argument("--quiet", "-q", action="store_true", help="no progress and no tables: only the results "
                     "path (and errors)")
    out.add_argument("--jsonl", action="store_true", help="machine-readable: one JSON object per sample on stdout, "
                     "then one for the finished run; no tables")
    out.add_argument("--sshd", help="sshd binary for the embedded server (default: from PATH or /usr/sbin)")
    out.add_argument("--ssh", help="ssh client binary (default: from PATH)")
    run.set_defaults(func=cmd_run)

    rec = sub.add_parser("recommend", help="ssh_config and sshd_config lines from a results file, validated")
    rec.add_argument("results", help="a results JSON written by sshbench run")
    rec.add_argument("--policy", choices=tuple(POLICIES), default="modern",
                     help="modern: recommended algorithms only; compatible: also acceptable ones older peers need")
    rec.add_argument("--host", help="Host pattern of the client block (default: the measured host, or * for the "
                     "embedded server)")
    rec.add_argument("--write", metavar="DIR", help="also write ssh_config.sshbench and 50-sshbench.conf into DIR")
    rec.add_argument("--sshd", help="sshd binary used to validate the drop-in")
    rec.add_argument("--ssh", help="ssh binary used to validate the client block")
    rec.set_defaults(func=cmd_recommend)

    rep = sub.add_parser("report", help="re-render a results file: terminal tables, HTML, Markdown, charts")
    rep.add_argument("results", help="a results JSON written by sshbench run")
    rep.add_argument("--html", metavar="FILE", help="one self-contained HTML file (inline SVG charts, no network)")
    rep.add_argument("--markdown", metavar="FILE", help="paste-ready Markdown tables ('-' for stdout)")
    rep.add_argument("--charts", metavar="DIR", help="PNG and SVG charts")
    rep.set_defaults(func=cmd_report)

    cmp = sub.add_parser("compare", help="compare runs case by case, with intervals and significance")
    cmp.add_argument("results", nargs="+", help="results files; the first is the baseline (one multi-host file: "
                     "its hosts against the first; files with the same hosts: host by host)")
    cmp.add_argument("--normalize", metavar="REF", help="divide each run by its own reference: 'tcp' (the raw "
                     "TCP control) or a cipher name, to compare machines by shape")
    cmp.add_argument("--fail-above", metavar="PCT", help="exit 7 when any case is significantly slower than the "
                     "baseline by more than this, e.g. 5%%")
    cmp.set_defaults(func=cmd_compare)

    algos = sub.add_parser("algos", help="what this client and the embedded server support, with grades")
    algos.add_argument("--sshd", help="sshd binary for the embedded server")
    algos.add_argument("--ssh", help="ssh client binary")
    algos.set_defaults(func=cmd_algos)
    return parser


def _int_option(value: Any, name: str) -> int:
    if value is None or value < 1:
        raise UsageError(f"{name} must be a whole number of at least 1")
    return int(value)


DEFAULT_TIME_BUDGET = "8m"


def _time_budget(args: argparse.Namespace) -> float | None:
    """'none' disables it; in fixed mode (--runs) there is none unless asked for."""
    text = args.time_budget or (None if args.runs is not None else DEFAULT_TIME_BUDGET)
    if text is None or text.lower() == "none":
        return None
    return parse_duration(text)


def _refuse_ignored(args: argparse.Namespace, methods: tuple[str, ...]) -> None:
    """An option that would have no effect in this combination is an error, never silently dropped."""
    if args.runs is not None:
        for option, value in (("--precision", args.precision), ("--min-runs", args.min_runs),
                              ("--max-runs", args.max_runs)):
            if value is not None:
                raise UsageError(f"{option} sets precision mode's stopping rule, and --runs is fixed mode: drop one "
                                 "of them")
    elif args.setup_runs is not None:
        raise UsageError("--setup-runs applies to fixed mode: add --runs N, or drop it")
    if args.size and args.sample_seconds is not None:
        raise UsageError("--sample-seconds sizes samples when --size is not given: drop one of them")
    if args.ssh_config and not args.destination:
        raise UsageError("--ssh-config is for real hosts: give a destination (sshbench run HOST --ssh-config FILE), "
                         "or drop it")
    if all(m == "pipe" for m in methods):
        for option, given in (("--workdir", args.workdir), ("--sink", args.sink), ("--verify", args.verify)):
            if given:
                raise UsageError(f"{option} applies to the file methods: add --method scp,sftp,rsync (or all), "
                                 "or drop it")
    if args.verify and args.sink == "null":
        raise UsageError("--verify hashes the received files, and --sink null keeps none: drop one of them")


def options_from_args(args: argparse.Namespace) -> RunOptions:
    methods = parse_methods(args.method)
    _refuse_ignored(args, methods)
    return RunOptions(
        precision=parse_fraction(args.precision or "3%", "--precision"),
        min_runs=6 if args.min_runs is None else args.min_runs, max_runs=30 if args.max_runs is None else args.max_runs,
        time_budget_seconds=_time_budget(args),
        ciphers=args.ciphers, macs=args.macs, kex=args.kex, hostkeys=args.hostkeys,
        size_bytes=parse_size(args.size) if args.size else None,
        sample_seconds=1.0 if args.sample_seconds is None else args.sample_seconds,
        runs=None if args.runs is None else _int_option(args.runs, "--runs"),
        setup_runs=10 if args.setup_runs is None else _int_option(args.setup_runs, "--setup-runs"),
        cipher_mac=args.cipher_mac, mac_cipher=args.mac_cipher, directions=parse_directions(args.directions),
        seed=args.seed, output=args.output, timeout_seconds=args.timeout, sshd=args.sshd, ssh=args.ssh,
        data=args.data, compression=args.compression, no_aesni=args.no_aesni, controls=not args.no_controls,
        max_bytes=parse_size(args.max_bytes) if args.max_bytes else None,
        methods=methods, workdir=args.workdir, remote_workdir=args.remote_workdir,
        sink=args.sink or "file", verify=args.verify,
        files=args.files, file_size_bytes=parse_size(args.file_size) if args.file_size else None,
        sftp_buffers=_size_list(args.sftp_buffers, "--sftp-buffers"),
        sftp_requests=_count_list(args.sftp_requests, "--sftp-requests"),
    )


def _size_list(text: str | None, option: str) -> tuple[int, ...]:
    return tuple(parse_size(w.strip()) for w in (text or "").split(",") if w.strip())


def _count_list(text: str | None, option: str) -> tuple[int, ...]:
    try:
        return tuple(int(w) for w in (text or "").split(",") if w.strip())
    except ValueError:
        raise UsageError(f"bad {option} {text!r}: use whole numbers, e.g. 64,256") from None


def _methods(options: RunOptions, asked_all: bool) -> tuple[tuple[str, ...], dict[str, str]]:
    """The methods to measure (sftp tuning variants expanded) and those this machine cannot run, with why.

    A method named explicitly whose tool is missing is an error; with `all` it is skipped and listed.
    """
    methods = [*options.methods]
    if "sftp" in methods:
        at = methods.index("sftp")
        methods[at:at + 1] = sftp_variants(options.sftp_buffers, options.sftp_requests) or ("sftp",)
    missing = missing_tools(tuple(methods))
    if missing and not asked_all:
        name, why = next(iter(missing.items()))
        raise MissingToolError(f"--method {name}: {why}; install it or leave {name} out")
    return tuple(m for m in methods if m not in missing), missing


def _check_partner(kind: Kind, name: str, option: str, client: ClientInfo, server: AlgorithmLists) -> None:
    if name not in client.supported.of(kind):
        raise UsageError(f"{option} {name!r} is not supported by this ssh; valid: "
                         f"{', '.join(client.supported.of(kind))}")
    if name not in server.of(kind):
        raise UsageError(f"{option} {name!r} is not offered by the server; pick one of "
                         f"{', '.join(server.of(kind))}")


def _environment(client: ClientInfo, server: EmbeddedOpenSSH) -> Environment:
    assert server.info is not None
    return {
        "host": sysinfo.collect(),
        "client": {"path": client.path, "version": client.version, "openssl": client.openssl},
        "server": {"kind": "embedded-openssh", "path": server.info.path, "version": server.info.version,
                   "openssl": server.info.openssl, "listen": f"127.0.0.1:{server.port}",
                   "host_key_types": list(server.info.host_key_types), "per_connection": "sshd -i, CPU by wait4"},
        "algorithms": {
            "client_supported": lists_facts(client.supported),
            "client_defaults": lists_facts(client.defaults),
            "client_aead_ciphers": list(client.aead_ciphers),
            "server_enabled": lists_facts(server.info.enabled),
            "server_defaults": lists_facts(server.defaults),
        },
    }


def _plan_cases(options: RunOptions, client: ClientInfo, offered: AlgorithmLists,
                methods: tuple[str, ...] = ("pipe",), missing: dict[str, str] | None = None,
                tcp_control: bool = True) -> tuple[list[CaseRecord], int]:
    specs = {Kind.CIPHER: options.ciphers, Kind.MAC: options.macs, Kind.KEX: options.kex,
             Kind.HOSTKEY: options.hostkeys}
    selections = [select(kind, spec, client, offered) for kind, spec in specs.items()]
    settings = SweepSettings(options.cipher_mac, options.mac_cipher, options.directions, methods)
    if options.macs.strip().lower() != "none":
        _check_partner(Kind.CIPHER, options.mac_cipher, "--mac-cipher", client, offered)
    if any(not lookup(c, Kind.CIPHER).aead for c in selections[0].measure):
        _check_partner(Kind.MAC, options.cipher_mac, "--cipher-mac", client, offered)
    records = [CaseRecord(case) for case in build_cases(selections, settings)]
    measured = len(records)
    ciphers = selections[0].measure
    if options.controls and ciphers:
        if tcp_control:  # raw TCP over loopback: only meaningful against the embedded server
            records.append(CaseRecord(Case(Kind.CONTROL, Direction.UPLOAD)))
        records += [CaseRecord(Case(Kind.CEILING, Direction.LOCAL, cipher=c)) for c in ciphers if c in EVP_OF]
    skipped = [Selection(s.kind, tuple(n for n, _ in s.skipped)) for s in selections]
    reasons = {(s.kind, n): why for s in selections for n, why in s.skipped}
    for case in build_cases(skipped, settings):
        records.append(CaseRecord(case, status=CaseStatus.SKIPPED, reason=reasons[(case.kind, case.subject)]))
    unavailable = SweepSettings(options.cipher_mac, options.mac_cipher, options.directions, tuple(missing or {}))
    for case in build_cases([selections[0]], unavailable):
        records.append(CaseRecord(case, status=CaseStatus.SKIPPED, reason=(missing or {})[case.method]))
    return records, measured


def _safe_ranked(report: Report) -> list[str]:
    """Pipe upload ciphers without a known weakness, fastest first."""
    fastest = [s for s in report.summaries if s.group == f"cipher:{Direction.UPLOAD.value}" and s.rank]  # pipe
    names = [report.case(s.case_id).case.subject for s in sorted(fastest, key=lambda s: s.rank or 0)]
    return [n for n in names if lookup(n, Kind.CIPHER).grade in (Grade.RECOMMENDED, Grade.ACCEPTABLE)]


def _next_steps(reports: list[Report], writer: ResultsWriter, ssh_config: str | None = None) -> list[str]:
    lines = [f"Results: {writer.json_path}  (samples as CSV: {writer.csv_path})"]
    hosts = [host_label(r) for r in reports if host_label(r) != "embedded"]
    config = f" --ssh-config {shlex.quote(ssh_config)}" if ssh_config else ""
    command = "sshbench" + "".join(f" {h}" for h in hosts) + config
    for report in reports:
        safe = _safe_ranked(report)
        summary = next((s for s in report.summaries if safe and s.case_id == Case(
            Kind.CIPHER, Direction.UPLOAD, cipher=safe[0]).id), None)
        if summary and summary.throughput_bytes_per_second:
            where = "here" if len(reports) == 1 else f"on {host_label(report)}"
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
        if case.kind in picked and case.subject not in picked[case.kind]:
            picked[case.kind].append(case.subject)
    flags = {Kind.CIPHER: "--ciphers", Kind.MAC: "--macs", Kind.KEX: "--kex", Kind.HOSTKEY: "--hostkeys"}
    methods = list(dict.fromkeys(c.method.split("-B")[0] for c in cases if c.kind is Kind.CIPHER))
    extra = f" --method {','.join(methods)}" if methods and methods != ["pipe"] else ""
    return " ".join(f"{flags[k]} {','.join(names) or 'none'}" for k, names in picked.items()) + extra


def cmd_run(args: argparse.Namespace, out: Console, err: Console) -> int:
    options = options_from_args(args)
    client = probe_client(options.ssh)
    destinations = _destinations(args.destination)
    if options.remote_workdir and not destinations:
        raise UsageError("--remote-workdir is for real hosts: give a destination, or use --workdir for the "
                         "embedded server")
    writer = ResultsWriter(options.output)
    _STATE["writer"] = writer
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    crypto = verify_aesni_mask() if options.no_aesni else None
    methods, missing = _methods(options, "all" in args.method.lower())
    # Every host is checked (login, offer) before the first is measured: no half-run for a typo in the third.
    remotes: list[_Remote | None] = [_remote_target(d, args.ssh_config, options, client) for d in destinations] \
        or [None]
    runs: list[tuple[Report, CheckedRecommendation]] = []
    # The embedded server also runs for remote hosts: its private dir holds the payload, and its sshd
    # validates the recommended drop-in (sshd -t) without touching any real server.
    with EmbeddedOpenSSH(client, options.sshd, env=options.crypto_env()) as server:
        assert server.info is not None and server.dir is not None
        payload = make_payload(options.data, server.dir, seed)
        plans = [_plan_host(options, client, server, remote, methods, missing) for remote in remotes]
        reporter: RichReporter | JsonLinesReporter = (
            QuietReporter() if args.quiet else JsonLinesReporter(sys.stdout) if args.jsonl else RichReporter(err))
        started = time.monotonic()
        with reporter:
            for index, (remote, records) in enumerate(zip(remotes, plans, strict=True)):
                spent = (time.monotonic() - started, sum(bytes_moved(r) for r, _ in runs))
                share = _host_share(options, spent, len(remotes) - index)
                host = _Host(share, client, server, payload, remote, methods, seed, crypto)
                now = datetime.now(UTC).isoformat(timespec="milliseconds")
                report = Report(tool_version=__version__, started_at=now, seed=seed,
                                options={**share.to_dict(), "seed": seed},
                                environment=_environment(client, server), cases=records)
                runs.append((report, _measure_host(host, report, writer, reporter)))
                writer.host_done(report)
    reports = [report for report, _ in runs]
    failed = any(not s.ok and not s.warmup for r in reports for s in r.samples) or any(
        c.status is CaseStatus.FAILED for r in reports for c in r.cases)
    if args.jsonl:
        print(json.dumps({"event": "finished", "status": _overall_status(reports), "results": writer.json_path,
                          "csv": writer.csv_path, "hosts": [host_label(r) for r in reports],
                          "samples": sum(len(r.samples) for r in reports), "failed": failed}), flush=True)
    elif args.quiet:
        out.print(writer.json_path, highlight=False, markup=False, soft_wrap=True)
    else:
        for report, advice in runs:
            if len(runs) > 1:
                out.print(host_rule(report))
            out.print(full_report(report))
            print_recommendation(out, advice)
        if len(runs) > 1:
            out.print(hosts_report(reports))
        for line in _next_steps(reports, writer, args.ssh_config):
            out.print(line, highlight=False, markup=False)
    return ExitCode.SAMPLES_FAILED if failed else ExitCode.OK


def _destinations(given: list[str] | None) -> list[str]:
    seen: set[str] = set()
    for destination in given or []:
        parse_destination(destination)  # checked before anything is made or run
        if destination in seen:
            raise UsageError(f"destination {destination!r} is named twice; each host is measured once per run")
        seen.add(destination)
    return list(given or [])


def _host_share(options: RunOptions, spent: tuple[float, int], hosts_left: int) -> RunOptions:
    """This host's part of the time budget and byte cap: what is left, split over the hosts still to go.

    A host that finishes early leaves its remainder to the next ones; the run as a whole stays within both.
    """
    seconds, sent = spent
    budget = None if options.time_budget_seconds is None else \
        max(1.0, (options.time_budget_seconds - seconds) / hosts_left)
    cap = None if options.max_bytes is None else max(0, (options.max_bytes - sent) // hosts_left)
    return dataclasses.replace(options, time_budget_seconds=budget, max_bytes=cap)


def _overall_status(reports: list[Report]) -> str:
    statuses = {r.status for r in reports}
    return next((s for s in ("failed", "interrupted", "running") if s in statuses), "complete")


@dataclasses.dataclass(frozen=True)
class _Host:
    """What measuring one host needs; the embedded server and payload are shared by every host of a run."""

    options: RunOptions
    client: ClientInfo
    server: EmbeddedOpenSSH
    payload: Payload
    remote: _Remote | None
    methods: tuple[str, ...]
    seed: int
    crypto: MaskCheck | None


def _plan_host(options: RunOptions, client: ClientInfo, server: EmbeddedOpenSSH, remote: _Remote | None,
               methods: tuple[str, ...], missing: dict[str, str]) -> list[CaseRecord]:
    assert server.info is not None
    offered = server.info.enabled if remote is None else remote.offered
    records, measured = _plan_cases(options, client, offered, methods, missing, tcp_control=remote is None)
    if not measured:
        where = "the server" if remote is None else remote.facts["destination"]
        raise UsageError(f"nothing to measure on {where}: every selection is empty or not offered there "
                         "(see sshbench algos)")
    return records


def _measure_host(host: _Host, report: Report, writer: ResultsWriter,
                  reporter: RichReporter | JsonLinesReporter) -> CheckedRecommendation:
    """One host from first sample to validated recommendation, saving after every sample."""
    options, server, remote = host.options, host.server, host.remote
    machine_before = sysinfo.cpu_snapshot()
    report.environment["crypto"] = {"aesni_masked": options.no_aesni, "mask": options.crypto_env() or None,
                                    "mask_check": host.crypto}
    if remote is None:
        report.environment["terrapin"] = _terrapin(host.client, server)
    else:
        report.environment["server"] = remote.facts
        report.environment.setdefault("algorithms", {})["server_enabled"] = lists_facts(remote.offered)
        report.environment["terrapin"] = remote.terrapin
        if options.controls:  # the link's own ceiling, when iperf3 happens to be on both ends
            report.environment["server"]["iperf3"] = tcp_ceiling(
                remote.target, remote.facts["hostname"], remote.facts["via_proxy"],
                capped=options.max_bytes is not None).to_dict()
    live = [r.case for r in report.cases if r.status is not CaseStatus.SKIPPED]
    target: EmbeddedTarget | RemoteTarget = EmbeddedTarget(server) if remote is None else remote.target
    with contextlib.ExitStack() as stack:
        files = None
        if any(c.method != "pipe" for c in live):
            files = stack.enter_context(_test_files(options, target, host.payload))
            report.environment["files"] = _files_facts(options, files, host.payload)
            report.environment["files"]["commands"] = command_templates(target, files, host.methods)
        plan: Schedule = (FixedSchedule(live, options.runs, options.setup_runs, host.seed)
                          if options.runs is not None
                          else PrecisionSchedule(live, options.min_runs, options.max_runs, host.seed))
        writer.save(report)
        execute(report, plan, target, options, writer.save, reporter,
                ProbeSettings(host.payload, options.compression, options.crypto_env()), files)
    if remote is None:
        report.environment["server"]["refused_connections"] = server.strangers
    report.environment["host"]["load_average_end"] = sysinfo.load_average()
    report.environment["host"]["during_run"] = sysinfo.usage_since(machine_before)
    report.warnings = [w.to_dict() for w in advise(report)]
    writer.save(report)
    pattern = host_pattern(None if remote is None else remote.facts["destination"])
    advice = checked_recommendation(report, host.client, server, "modern", pattern)
    if not advice.problems:  # kept in the results, so reports can show it without running anything
        report.recommendation = {"policy": advice.rec.policy, "client_block": advice.client_text,
                                 "server_dropin": advice.server_text, "prediction": advice.prediction}
        writer.save(report)
    return advice


@dataclasses.dataclass(frozen=True)
class _Remote:
    target: RemoteTarget
    offered: AlgorithmLists
    facts: ServerFacts
    terrapin: TerrapinFacts


def _remote_target(destination: str, ssh_config: str | None, options: RunOptions, client: ClientInfo) -> _Remote:
    """Resolve, check and read the offer of a real host, before anything is measured."""
    dest = resolve(client.path, destination, ssh_config)
    target = RemoteTarget(client.path, dest, ssh_config, connect_timeout=min(options.timeout_seconds, 30),
                          workdir=options.remote_workdir)
    system = target.preflight(timeout=options.timeout_seconds)
    offer = server_offer(dest, timeout=min(options.timeout_seconds, 15))
    try:
        client_offer = read_client_kexinit(client.path)
    except KexinitError:
        client_offer = None
    terrapin = terrapin_report(offer, client_offer)
    if offer is None:  # behind ProxyJump/ProxyCommand: measure what the client knows; refusals become skips
        offered = client.supported
        terrapin["note"] = "server offer not read: reached via a proxy"
    else:
        offered = offered_lists(offer)
    version = offer.banner if offer else None
    facts: ServerFacts = {"kind": "remote", "destination": destination, "hostname": dest.hostname, "port": dest.port,
             "user": dest.user, "via_proxy": dest.proxied, "banner": version,
             "version": version.removeprefix("SSH-2.0-") if version else "unknown (via proxy)", "system": system,
             "openssl": None, "round_trip_seconds": round_trip_seconds(dest),
             "server_cpu": "sshd session process from /proc on Linux, else unknown",
             "ssh_config": ssh_config or "your default (~/.ssh/config)"}
    return _Remote(target, offered, facts, terrapin)


@contextlib.contextmanager
def _test_files(options: RunOptions, target: EmbeddedTarget | RemoteTarget,
                payload: Payload) -> Iterator[TransferFiles]:
    """The file methods' test files, after checking there is room for them; gone afterwards."""
    workdir = options.workdir or tempfile.gettempdir()
    if not os.path.isdir(workdir):
        raise UsageError(f"--workdir {workdir}: no such directory; create it or pick another")
    check_free_space(workdir, options.file_shape, payload, options.sink == "file")
    with prepared_files(target, workdir, options.file_shape, payload, options.sink == "file",
                        options.verify) as files:
        yield files


def _files_facts(options: RunOptions, files: TransferFiles, payload: Payload) -> FilesFacts:
    """What the file methods moved and where, and how fast that disk is: the bottleneck check."""
    try:
        disk = measure_disk(files.source(tiny=False, server=False), files.client_dir, payload)
    except OSError as exc:
        raise OutputError(f"--workdir {os.path.dirname(files.client_dir)}: the disk check could not write there "
                          f"({exc.strerror or exc}); pick a writable directory with room") from None
    shape = files.shape
    return {"workdir": os.path.dirname(files.client_dir), "file_bytes": shape.file_bytes, "files": shape.files,
            "directory": shape.directory, "total_bytes": shape.total_bytes, "describe": shape.describe(),
            "sparse_source": options.data == "zero" and not shape.directory, "sink": options.sink,
            "verify": options.verify, "source_sha256": files.source_sha256, "disk": disk.to_dict()}


def _terrapin(client: ClientInfo, server: EmbeddedOpenSSH) -> TerrapinFacts:
    """Terrapin status from the embedded server's and the client's first KEXINIT (markers, not versions)."""
    try:
        server_offer = kexinit_over(server.connect(), f"the embedded server port {server.port}")
    except (KexinitError, OSError) as exc:
        raise ServerError(f"could not read the embedded server's SSH offer: {exc}") from None
    try:
        client_offer = read_client_kexinit(client.path)
    except KexinitError:
        client_offer = None
    return terrapin_report(server_offer, client_offer)


def load_results(path: str) -> list[Report]:
    """Every run in a results file, validated as untrusted input (export/results.py)."""
    return read_results(path)


def cmd_report(args: argparse.Namespace, out: Console, err: Console) -> int:
    runs = load_results(args.results)
    # every output is resolved (and refused) before anything is rendered or written
    markdown_out = text_output(args.markdown, "--markdown", "report.md", [args.results]) if args.markdown else None
    html_out = text_output(args.html, "--html", "report.html", [args.results]) if args.html else None
    charts_dir = output_dir(args.charts, "--charts") if args.charts else None
    if not (markdown_out or html_out or charts_dir):
        for report in runs:
            if len(runs) > 1:
                out.print(host_rule(report))
            out.print(full_report(report))
        if len(runs) > 1:
            out.print(hosts_report(runs))
    for output, render in ((markdown_out, markdown.render_all), (html_out, html.render)):
        if output is not None:
            output.write(render(runs))
            if not output.is_stdout:
                _say(err, f"wrote {output.path}")
    if charts_dir is not None:
        written = 0
        for subdir, made in _chart_sets(runs):
            try:
                for chart in made:
                    for fmt in ("png", "svg"):
                        file_in(os.path.join(charts_dir, subdir), f"{chart.name}.{fmt}", "--charts").write(
                            chart.render(fmt))
                        written += 1
            finally:
                charts.close(made)
        _say(err, f"wrote {written} charts to {charts_dir}")
    return int(ExitCode.OK)


def _chart_sets(runs: list[Report]) -> Iterator[tuple[str, list[charts.Chart]]]:
    """One host: its charts in DIR. Several: the cross-host chart in DIR, each host's charts in DIR/<host>/."""
    if len(runs) == 1:
        yield "", charts.charts(runs[0])
        return
    yield "", charts.host_charts(runs)
    for report in runs:
        yield safe_name(host_label(report)), charts.charts(report)


def _comparisons(paths: list[str]) -> list[tuple[tuple[str, Report], tuple[str, Report]]]:
    """Pairs of (label, run) to compare, baseline first; runs are named by file, and host in multi-host files.

    One multi-host file: its hosts against the first. Several files with the
    same hosts: host by host, each against the first file's. Otherwise every
    run against the first file's first run.
    """
    files = [(path, load_results(path)) for path in paths]
    labelled = [(path if len(runs) == 1 else f"{path} [{host_label(r)}]", r) for path, runs in files for r in runs]
    if len(labelled) < 2:
        raise UsageError("compare needs at least two runs: two results files, or one file with several hosts")
    hosts = [[host_label(r) for r in runs] for _, runs in files]
    if len(files) > 1 and len(hosts[0]) > 1 and all(h == hosts[0] for h in hosts):
        per_host = len(hosts[0])
        return [(labelled[i % per_host], labelled[i]) for i in range(per_host, len(labelled))]
    return [(labelled[0], other) for other in labelled[1:]]


def cmd_compare(args: argparse.Namespace, out: Console, err: Console) -> int:
    threshold = parse_fraction(args.fail_above, "--fail-above") if args.fail_above else None
    if threshold is not None and not 0 < threshold <= 10:
        raise UsageError(f"--fail-above {args.fail_above}: use a slowdown above 0, e.g. 5%")
    regressed = False
    for (base_label, base), (label, run) in _comparisons(args.results):
        try:
            changes = compare(base, run, args.normalize)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        out.print(comparison_table(base_label, label, changes, args.normalize, threshold))
        regressed |= threshold is not None and any(c.regression_beyond(threshold) for c in changes)
    return int(ExitCode.REGRESSION if regressed else ExitCode.OK)


def cmd_recommend(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.host is not None:
        try:
            untrusted.host_pattern(args.host, "--host")
        except untrusted.UntrustedText as exc:
            raise UsageError(str(exc)) from None
    runs = load_results(args.results)
    if args.host is not None and len(runs) > 1:
        raise UsageError("--host applies to a single-host results file; a multi-host file gets one Host block "
                         "per host")
    client = probe_client(args.ssh)
    results: list[tuple[Report, CheckedRecommendation]] = []
    with EmbeddedOpenSSH(client, args.sshd) as server:
        for report in runs:
            pattern = args.host or host_pattern(report.environment.get("server", {}).get("destination"))
            results.append((report, checked_recommendation(report, client, server, args.policy, pattern)))
    for report, advice in results:
        if len(runs) > 1:
            out.print(host_rule(report))
        print_recommendation(out, advice)
    if any(advice.problems for _, advice in results):
        return int(ExitCode.UNVERIFIED)
    if args.write:
        _write_configs(output_dir(args.write, "--write"), results, out)
    return int(ExitCode.OK)


def _write_configs(directory: str, results: list[tuple[Report, CheckedRecommendation]], out: Console) -> None:
    """One client file with every host's block; one server drop-in per host (each goes to its own server)."""
    files = {"ssh_config.sshbench": "\n".join(advice.client_text for _, advice in results)}
    for report, advice in results:
        name = "50-sshbench.conf" if len(results) == 1 else f"50-sshbench.{safe_name(host_label(report))}.conf"
        files[name] = advice.server_text
    outputs = [file_in(directory, name, "--write") for name in files]
    for output, text in zip(outputs, files.values(), strict=True):
        output.write(text)
        out.print(f"wrote {output.path}", highlight=False, markup=False)


def safe_name(label: str) -> str:
    """A host label as a file or directory name: letters, digits, dot, dash, underscore."""
    name = "".join(ch if ch.isalnum() or ch in ".-_" else "_" for ch in label).lstrip(".")  # never "." or ".."
    return name or "host"


def cmd_algos(args: argparse.Namespace, out: Console, err: Console) -> int:
    client = probe_client(args.ssh)
    with EmbeddedOpenSSH(client, args.sshd) as server:
        assert server.info is not None
        out.print(f"client: {client.path}  {client.version}, {client.openssl}", highlight=False, markup=False)
        out.print(f"server: {server.info.path}  {server.info.version}, {server.info.openssl} "
                  f"(embedded, every algorithm it supports enabled)", highlight=False, markup=False)
        for table in algorithms_tables(client, server.info):
            out.print(table)
        terrapin = _terrapin(client, server)
    print_terrapin(out, terrapin)
    return ExitCode.OK


_STATE: dict[str, ResultsWriter] = {}


def main(argv: list[str] | None = None) -> int:
    """Parse, run one command, turn every failure into one line and an exit code.

    Signal handling is installed by the entry point (sshbench/__main__.py)
    before this module is imported: SIGTERM and SIGHUP arrive here as
    KeyboardInterrupt, like Ctrl-C, and only the first one counts.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in SUBCOMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list = ["run", *args_list]
    out = Console()
    if not out.is_terminal:  # logs and pipes: wide enough that no algorithm name is cut
        out = Console(width=180)
    err = Console(stderr=True)
    try:
        args = build_parser().parse_args(args_list)
        result: int = args.func(args, out, err)
        return result
    except SshbenchError as exc:
        _say(err, f"sshbench: error: {exc}{_kept(exc.exit_code)}")
        return int(exc.exit_code)
    except KeyboardInterrupt:
        _say(err, f"sshbench: interrupted{_kept(ExitCode.INTERRUPTED)}")
        return int(ExitCode.INTERRUPTED)
    except Exception as exc:  # a bug: still one line, the results kept, the exit code documented
        if os.environ.get("SSHBENCH_DEBUG"):
            raise
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        _say(err, f"sshbench: internal error ({what}); this is a bug in sshbench: please report it with the command "
                  f"line (SSHBENCH_DEBUG=1 shows the traceback){_kept(ExitCode.INTERNAL)}")
        return int(ExitCode.INTERNAL)
    finally:
        _STATE.clear()


def _kept(code: ExitCode) -> str:
    """Where the results measured so far are, after giving the run its final status (saved once more)."""
    writer = _STATE.get("writer")
    if writer is None:
        return ""
    where = writer.finish("interrupted" if code is ExitCode.INTERRUPTED else "failed")
    return f"; results so far kept in {where}" if where else ""


def _say(err: Console, line: str) -> None:
    with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
        err.print(line, highlight=False, markup=False, soft_wrap=True)
