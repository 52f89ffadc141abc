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
import signal
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from types import FrameType
from typing import Any, NoReturn

from rich.console import Console

from sshbench import __version__, sysinfo
from sshbench.advice import advise
from sshbench.algorithms import ALGORITHM_KINDS, Grade, Kind, lookup
from sshbench.compare import compare
from sshbench.controls import EVP_OF, verify_aesni_mask
from sshbench.datapath import Payload, make_payload
from sshbench.discovery import AlgorithmLists, ClientInfo, probe_client
from sshbench.errors import ExitCode, MissingToolError, OutputError, SshbenchError, UsageError
from sshbench.export import charts, html, markdown
from sshbench.export.results import ResultsWriter, default_path
from sshbench.kexinit import KexinitError, read_client_kexinit, read_server_kexinit, terrapin_report
from sshbench.methods import missing_tools, parse_methods, sftp_variants
from sshbench.model import Case, CaseRecord, CaseStatus, Direction, Report, report_from_dict
from sshbench.options import (
    DEFAULT_CIPHER_MAC,
    DEFAULT_MAC_CIPHER,
    RunOptions,
    parse_directions,
    parse_duration,
    parse_fraction,
)
from sshbench.plan import FixedSchedule, PrecisionSchedule, Schedule, Selection, SweepSettings, build_cases, select
from sshbench.probe import ProbeSettings
from sshbench.recommend import POLICIES
from sshbench.remote import RemoteTarget, offered_lists, resolve, round_trip_seconds, server_offer
from sshbench.runner import execute
from sshbench.servers.openssh import EmbeddedOpenSSH
from sshbench.target import EmbeddedTarget
from sshbench.testfiles import check_free_space, measure_disk
from sshbench.transfer import TransferFiles, command_templates, prepared_files
from sshbench.ui.compare import comparison_table
from sshbench.ui.config import print_recommendation, print_terrapin
from sshbench.ui.progress import JsonLinesReporter, QuietReporter, RichReporter
from sshbench.ui.tables import algorithms_tables, full_report
from sshbench.units import parse_size
from sshbench.validate import checked_recommendation

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
    run.add_argument("destination", nargs="?", help="[user@]host[:port] or a Host alias of your ssh config: "
                     "measure that real server with your own ssh setup (default: a private loopback sshd)")
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
    how.add_argument("--precision", default="3%", help="target half-width of each median's 95%% interval, "
                     "e.g. 3%% or 0.03 (default: 3%%)")
    how.add_argument("--min-runs", type=int, default=6, help="measured samples per case at least (default: 6, "
                     "the fewest that give a 95%% interval)")
    how.add_argument("--max-runs", type=int, default=30, help="measured samples per case at most (default: 30)")
    how.add_argument("--time-budget", help="stop starting samples after this long, e.g. 90s, 8m, 1h; 'none' "
                     "for no limit (default: 8m in precision mode, none with --runs)")
    how.add_argument("--runs", type=int, help="fixed mode: exactly this many measured samples per throughput "
                     "case, no precision target (time budget only if given)")
    how.add_argument("--setup-runs", type=int, default=10, help="fixed mode: samples per key exchange / host key "
                     "case (default: 10)")
    how.add_argument("--size", help="bytes per transfer, e.g. 512MiB, 2GB, 1G (default: sized per case so a "
                     "sample lasts --sample-seconds)")
    how.add_argument("--sample-seconds", type=float, default=1.0, help="target data phase per sample when "
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
    tools.add_argument("--sink", choices=("file", "null"), default="file", help="file methods: the receiver "
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
    rec.add_argument("--host", default="*", help="Host pattern of the client block (default: *)")
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
    cmp.add_argument("results", nargs="+", help="results files; the first is the baseline")
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


def options_from_args(args: argparse.Namespace) -> RunOptions:
    return RunOptions(
        precision=parse_fraction(args.precision), min_runs=args.min_runs, max_runs=args.max_runs,
        time_budget_seconds=_time_budget(args),
        ciphers=args.ciphers, macs=args.macs, kex=args.kex, hostkeys=args.hostkeys,
        size_bytes=parse_size(args.size) if args.size else None, sample_seconds=args.sample_seconds,
        runs=None if args.runs is None else _int_option(args.runs, "--runs"),
        setup_runs=_int_option(args.setup_runs, "--setup-runs"),
        cipher_mac=args.cipher_mac, mac_cipher=args.mac_cipher, directions=parse_directions(args.directions),
        seed=args.seed, output=args.output, timeout_seconds=args.timeout, sshd=args.sshd, ssh=args.ssh,
        data=args.data, compression=args.compression, no_aesni=args.no_aesni, controls=not args.no_controls,
        max_bytes=parse_size(args.max_bytes) if args.max_bytes else None,
        methods=parse_methods(args.method), workdir=args.workdir, sink=args.sink, verify=args.verify,
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


def _environment(client: ClientInfo, server: EmbeddedOpenSSH) -> dict[str, Any]:
    assert server.info is not None
    return {
        "host": sysinfo.collect(),
        "client": {"path": client.path, "version": client.version, "openssl": client.openssl},
        "server": {"kind": "embedded-openssh", "path": server.info.path, "version": server.info.version,
                   "openssl": server.info.openssl, "listen": f"127.0.0.1:{server.port}",
                   "host_key_types": list(server.info.host_key_types), "per_connection": "sshd -i, CPU by wait4"},
        "algorithms": {
            "client_supported": dataclasses.asdict(client.supported),
            "client_defaults": dataclasses.asdict(client.defaults),
            "client_aead_ciphers": list(client.aead_ciphers),
            "server_enabled": dataclasses.asdict(server.info.enabled),
            "server_defaults": dataclasses.asdict(server.defaults),
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


def _next_steps(report: Report, writer: ResultsWriter) -> list[str]:
    lines = [f"Results: {writer.json_path}  (samples as CSV: {writer.csv_path})"]
    fastest = [s for s in report.summaries if s.group == f"cipher:{Direction.UPLOAD.value}" and s.rank]  # pipe
    safe = [s for s in sorted(fastest, key=lambda s: s.rank or 0)
            if lookup(report.case(s.case_id).case.subject, Kind.CIPHER).grade in (Grade.RECOMMENDED, Grade.ACCEPTABLE)]
    if safe and safe[0].throughput_bytes_per_second:
        top = report.case(safe[0].case_id).case.subject
        lines.append(f"Fastest cipher without a known weakness here: {top} "
                     f"({safe[0].throughput_bytes_per_second.median / 1e6:,.0f} MB/s upload, median).")
    short = [report.case(s.case_id).case for s in report.summaries if s.precise is False]
    if short:
        lines.append(f"{len(short)} cases did not reach the precision target; give them more time, e.g.:  sshbench "
                     f"{_selection_args(short)} --time-budget 20m")
    elif safe:
        pair = ",".join(report.case(s.case_id).case.subject for s in safe[:2])
        lines.append(f"Compare the top two more tightly:  sshbench --ciphers {pair} --macs none --kex none "
                     f"--hostkeys none --precision 1%")
    lines.append(f"Same schedule again:  sshbench --seed {report.seed}    What each side supports:  sshbench algos")
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
    writer = ResultsWriter(options.output or default_path())
    _STATE["writer"] = writer
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    machine_before = sysinfo.cpu_snapshot()
    crypto = verify_aesni_mask() if options.no_aesni else None
    methods, missing = _methods(options, "all" in args.method.lower())
    remote = _remote_target(args, options, client) if args.destination else None
    # The embedded server also runs for remote hosts: its private dir holds the payload, and its sshd
    # validates the recommended drop-in (sshd -t) without touching any real server.
    with EmbeddedOpenSSH(client, options.sshd, env=options.crypto_env()) as server, \
            contextlib.ExitStack() as stack:
        assert server.info is not None and server.dir is not None
        payload = make_payload(options.data, server.dir, seed)
        offered = server.info.enabled if remote is None else remote.offered
        records, measured = _plan_cases(options, client, offered, methods, missing, tcp_control=remote is None)
        if not measured:
            raise UsageError("nothing to measure: every selection is empty or unsupported by the server "
                             "(see sshbench algos)")
        report = Report(tool_version=__version__, started_at=datetime.now(UTC).isoformat(timespec="seconds"),
                        seed=seed, options={**options.to_dict(), "seed": seed},
                        environment=_environment(client, server), cases=records)
        report.environment["crypto"] = {"aesni_masked": options.no_aesni, "mask": options.crypto_env() or None,
                                        "mask_check": crypto}
        if remote is None:
            report.environment["terrapin"] = _terrapin(client, server)
        else:
            report.environment["server"] = remote.facts
            report.environment["algorithms"]["server_enabled"] = dataclasses.asdict(remote.offered)
            report.environment["terrapin"] = remote.terrapin
        live = [r.case for r in records if r.status is not CaseStatus.SKIPPED]
        target: EmbeddedTarget | RemoteTarget = EmbeddedTarget(server) if remote is None else remote.target
        files = None
        if any(c.method != "pipe" for c in live):
            files = stack.enter_context(_test_files(options, target, payload))
            report.environment["files"] = _files_facts(options, files, payload)
            report.environment["files"]["commands"] = command_templates(target, files, methods)
        plan: Schedule = (FixedSchedule(live, options.runs, options.setup_runs, seed) if options.runs is not None
                          else PrecisionSchedule(live, options.min_runs, options.max_runs, seed))
        writer.save(report)
        reporter: RichReporter | JsonLinesReporter = (
            QuietReporter() if args.quiet else JsonLinesReporter(sys.stdout) if args.jsonl else RichReporter(err))
        with reporter:
            execute(report, plan, target, options, writer.save, reporter,
                    ProbeSettings(payload, options.compression, options.crypto_env()), files)
        report.environment["host"]["load_average_end"] = sysinfo.load_average()
        report.environment["host"]["during_run"] = sysinfo.usage_since(machine_before)
        report.warnings = [w.to_dict() for w in advise(report)]
        writer.save(report)
        host_pattern = "*" if remote is None else remote.target.dest.given.rpartition("@")[2]
        advice = checked_recommendation(report, client, server, "modern", host_pattern)
        if not advice.problems:  # kept in the results, so reports can show it without running anything
            report.recommendation = {"policy": advice.rec.policy, "client_block": advice.client_text,
                                     "server_dropin": advice.server_text, "prediction": advice.prediction}
            writer.save(report)
    failed = any(not s.ok and not s.warmup for s in report.samples) or any(
        r.status is CaseStatus.FAILED for r in report.cases)
    if args.jsonl:
        print(json.dumps({"event": "finished", "status": report.status, "results": writer.json_path,
                          "csv": writer.csv_path, "samples": len(report.samples), "failed": failed}), flush=True)
    elif args.quiet:
        out.print(writer.json_path, highlight=False, soft_wrap=True)
    else:
        out.print(full_report(report))
        print_recommendation(out, advice)
        for line in _next_steps(report, writer):
            out.print(line, highlight=False)
    return ExitCode.SAMPLES_FAILED if failed else ExitCode.OK


@dataclasses.dataclass(frozen=True)
class _Remote:
    target: RemoteTarget
    offered: AlgorithmLists
    facts: dict[str, Any]
    terrapin: dict[str, Any]


def _remote_target(args: argparse.Namespace, options: RunOptions, client: ClientInfo) -> _Remote:
    """Resolve, check and read the offer of a real host, before anything is measured."""
    dest = resolve(client.path, args.destination, args.ssh_config)
    target = RemoteTarget(client.path, dest, args.ssh_config, connect_timeout=min(options.timeout_seconds, 30))
    system = target.preflight(timeout=options.timeout_seconds)
    offer = server_offer(dest, timeout=min(options.timeout_seconds, 15))
    if offer is None:  # behind ProxyJump/ProxyCommand: measure what the client knows; refusals become skips
        offered, terrapin = client.supported, {"server": None, "note": "server offer not read: reached via a proxy"}
    else:
        offered = offered_lists(offer)
        try:
            client_offer = read_client_kexinit(client.path)
        except KexinitError:
            client_offer = None
        terrapin = terrapin_report(offer, client_offer)
    version = offer.banner if offer else None
    facts = {"kind": "remote", "destination": args.destination, "hostname": dest.hostname, "port": dest.port,
             "user": dest.user, "via_proxy": dest.proxied, "banner": version,
             "version": version.removeprefix("SSH-2.0-") if version else "unknown (via proxy)", "system": system,
             "openssl": None, "round_trip_seconds": round_trip_seconds(dest),
             "server_cpu": "sshd session process from /proc on Linux, else unknown",
             "ssh_config": args.ssh_config or "your default (~/.ssh/config)"}
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


def _files_facts(options: RunOptions, files: TransferFiles, payload: Payload) -> dict[str, Any]:
    """What the file methods moved and where, and how fast that disk is: the bottleneck check."""
    disk = measure_disk(files.source(tiny=False, server=False), files.client_dir, payload)
    shape = files.shape
    return {"workdir": os.path.dirname(files.client_dir), "file_bytes": shape.file_bytes, "files": shape.files,
            "directory": shape.directory, "total_bytes": shape.total_bytes, "describe": shape.describe(),
            "sparse_source": options.data == "zero" and not shape.directory, "sink": options.sink,
            "verify": options.verify, "source_sha256": files.source_sha256, "disk": disk.to_dict()}


def _terrapin(client: ClientInfo, server: EmbeddedOpenSSH) -> dict[str, Any]:
    """Terrapin status from the embedded server's and the client's first KEXINIT (markers, not versions)."""
    server_offer = read_server_kexinit("127.0.0.1", server.port)
    try:
        client_offer = read_client_kexinit(client.path)
    except KexinitError:
        client_offer = None
    return terrapin_report(server_offer, client_offer)


def load_results(path: str) -> Report:
    try:
        with open(path, encoding="utf-8") as fh:
            return report_from_dict(json.load(fh))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path} is not a readable sshbench results file: {exc}") from None


def _write(path: str, data: bytes | str) -> None:
    try:
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}; choose a writable path") from None


def cmd_report(args: argparse.Namespace, out: Console, err: Console) -> int:
    report = load_results(args.results)
    if not (args.html or args.markdown or args.charts):
        out.print(full_report(report))
    if args.markdown == "-":
        out.print(markdown.render(report), highlight=False, markup=False, soft_wrap=True)
    elif args.markdown:
        _write(args.markdown, markdown.render(report))
        err.print(f"wrote {args.markdown}", highlight=False)
    if args.html:
        _write(args.html, html.render(report))
        err.print(f"wrote {args.html}", highlight=False)
    if args.charts:
        made = charts.charts(report)
        try:
            for chart in made:
                for fmt in ("png", "svg"):
                    _write(os.path.join(args.charts, f"{chart.name}.{fmt}"), chart.render(fmt))
        finally:
            charts.close(made)
        err.print(f"wrote {len(made) * 2} charts to {args.charts}", highlight=False)
    return int(ExitCode.OK)


def cmd_compare(args: argparse.Namespace, out: Console, err: Console) -> int:
    if len(args.results) < 2:
        raise UsageError("compare needs at least two results files: the baseline first")
    threshold = parse_fraction(args.fail_above) if args.fail_above else None
    runs = [load_results(path) for path in args.results]
    regressed = False
    for path, run in zip(args.results[1:], runs[1:], strict=True):
        try:
            changes = compare(runs[0], run, args.normalize)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        out.print(comparison_table(args.results[0], path, changes, args.normalize, threshold))
        regressed |= threshold is not None and any(c.regression_beyond(threshold) for c in changes)
    return int(ExitCode.REGRESSION if regressed else ExitCode.OK)


def cmd_recommend(args: argparse.Namespace, out: Console, err: Console) -> int:
    report = load_results(args.results)
    client = probe_client(args.ssh)
    with EmbeddedOpenSSH(client, args.sshd) as server:
        advice = checked_recommendation(report, client, server, args.policy, args.host)
    print_recommendation(out, advice)
    if advice.problems:
        return int(ExitCode.UNVERIFIED)
    if args.write:
        os.makedirs(args.write, exist_ok=True)
        for name, text in (("ssh_config.sshbench", advice.client_text), ("50-sshbench.conf", advice.server_text)):
            path = os.path.join(args.write, name)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            out.print(f"wrote {path}", highlight=False)
    return int(ExitCode.OK)


def cmd_algos(args: argparse.Namespace, out: Console, err: Console) -> int:
    client = probe_client(args.ssh)
    with EmbeddedOpenSSH(client, args.sshd) as server:
        assert server.info is not None
        out.print(f"client: {client.path}  {client.version}, {client.openssl}", highlight=False)
        out.print(f"server: {server.info.path}  {server.info.version}, {server.info.openssl} "
                  f"(embedded, every algorithm it supports enabled)", highlight=False)
        for table in algorithms_tables(client, server.info):
            out.print(table)
        terrapin = _terrapin(client, server)
    print_terrapin(out, terrapin)
    return ExitCode.OK


_STATE: dict[str, ResultsWriter] = {}


def _sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in SUBCOMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list = ["run", *args_list]
    out = Console()
    if not out.is_terminal:  # logs and pipes: wide enough that no algorithm name is cut
        out = Console(width=180)
    err = Console(stderr=True)
    # SIGTERM (kill) and SIGHUP (terminal closed) end the run like Ctrl-C: results kept, everything cleaned up.
    previous = {sig: signal.signal(sig, _sigterm) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        args = build_parser().parse_args(args_list)
        result: int = args.func(args, out, err)
        return result
    except SshbenchError as exc:
        err.print(f"sshbench: error: {exc}", highlight=False, soft_wrap=True)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        writer = _STATE.get("writer")
        kept = f"; results so far kept in {writer.json_path}" if writer and os.path.exists(writer.json_path) else ""
        with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
            err.print(f"sshbench: interrupted{kept}", highlight=False, soft_wrap=True)
        return int(ExitCode.INTERRUPTED)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _STATE.clear()
