"""`sshbench recommend`: a results file in, validated configs out (printed, and written with --write).

Given several files (a shell glob such as sshbench-results/*.json), it uses
the newest run, by the time the run started, and says which on stderr: the
latest measurement is what a user means by "my results".
"""

from __future__ import annotations

import argparse
from datetime import datetime

from sshbench.analysis.findings import CheckedRecommendation

# --policy read and checked (a name, or a TOML file) before any result is: an argument, not a conclusion, so
# pyproject.toml's contract names this import. The recommendation itself is built and validated with the real
# ssh -G and sshd -t by orchestrate/validate.py, since the pure concluding step runs nothing.
from sshbench.analysis.security.policy import policy_from
from sshbench.cli.context import Context
from sshbench.clients import select_clients
from sshbench.orchestrate.validate import checked_recommendation, control_dir
from sshbench.render.config import print_recommendation
from sshbench.render.jsondoc import recommend_document
from sshbench.render.terminal import host_rule
from sshbench.results.model import Report
from sshbench.results.store import read_results
from sshbench.results.views import per_server
from sshbench.targets.discovery import discover_client
from sshbench.targets.remote import host_pattern
from sshbench.targets.servers import DEFAULT as DEFAULT_SERVER
from sshbench.targets.servers import embedded_server
from sshbench.vocabulary import untrusted
from sshbench.vocabulary.errors import ExitCode, UsageError
from sshbench.vocabulary.outputs import file_in, output_dir, safe_name, unique_names


def _started(report: Report) -> datetime:
    try:
        return datetime.fromisoformat(report.started_at)
    except ValueError:
        return datetime.min


def _counted(report: Report) -> bool:
    return any(s.ok and not s.warmup and s.unusable is None for s in report.samples)


def newest(paths: list[str], ctx: Context) -> tuple[str, list[Report]]:
    """The file whose run started last (every file is read and checked: a bad one is named, not skipped)."""
    loaded = [(path, read_results(path)) for path in dict.fromkeys(paths)]
    measured = [item for item in loaded if any(_counted(r) for r in item[1])]
    if not measured:  # an interrupted run with 0 samples gave an empty config, exit 0, without a word
        raise UsageError(f"{loaded[0][0] if len(loaded) == 1 else 'none of the results files given'}: no sample "
                         "was measured in it (an interrupted or failed run); recommend needs a run's figures")
    skipped = len(loaded) - len(measured)
    if skipped:
        ctx.say(f"sshbench: passing over {skipped} results file{'s' if skipped > 1 else ''} with no sample measured")
    loaded = measured
    if len(loaded) == 1:
        return loaded[0]
    # a run with AES-NI masked measured a CPU without it: never the basis of a config when a real one is there
    real = [item for item in loaded if not any(r.options.no_aesni for r in item[1])] or loaded
    path, runs = max(real, key=lambda item: (max(_started(r) for r in item[1]), item[0]))
    masked = len(loaded) - len(real)
    ctx.say(f"sshbench: {len(loaded)} results files given; using the newest run, {path} (started "
            f"{runs[0].started_at})" + (f", passing over {masked} made with --no-aesni" if masked else "")
            + "; name one file to choose another")
    return path, runs


def cmd_recommend(args: argparse.Namespace, ctx: Context) -> int:
    if args.host is not None:
        try:
            untrusted.host_pattern(args.host, "--host")
        except untrusted.UntrustedText as exc:
            raise UsageError(str(exc)) from None
    policy = policy_from(args.policy)
    clients = select_clients(args.clients, warn=ctx.say)
    _, measured = newest(args.results, ctx)
    runs = [view for run in measured for view in per_server(run)]  # --server a,b: a recommendation per server
    masked = [r for r in runs if r.options.no_aesni and r.environment.host.cpu_flags.get("aes")]
    if masked and not args.for_no_aesni:
        raise UsageError(f"{masked[0].label}: this run masked AES-NI (--no-aesni), so its ranking is for a CPU "
                         "without AES instructions, not this machine's; use a run without --no-aesni, or pass "
                         "--for-no-aesni to make a config for such CPUs")
    if args.host is not None and len(measured) > 1:
        raise UsageError("--host applies to a single-host results file; a multi-host file gets one Host block "
                         "per host")
    client = discover_client(args.ssh)
    control = control_dir() if args.write else None  # --write: for this machine's user; printed: the results' own
    results: list[tuple[Report, CheckedRecommendation]] = []
    with embedded_server(DEFAULT_SERVER, client, args.sshd) as server:  # validates the drop-in with the real sshd -t
        for report in runs:
            pattern = args.host or host_pattern(report.environment.server.destination)
            results.append((report, checked_recommendation(report, client, server, policy, pattern,
                                                           host_keys=args.host_key_algorithms, exact=args.exact,
                                                           clients=clients, allow_lockout=args.allow_lockout,
                                                           control=control)))
    problems = any(advice.problems for _, advice in results)
    if args.write and not problems:  # written whether or not stdout's reader stays
        _write_configs(output_dir(args.write, "--write"), results, ctx, args.json)
    code = ExitCode.UNVERIFIED if problems else ExitCode.LOCKOUT if any(
        advice.dropin_withheld for _, advice in results) else ExitCode.EXPOSED if any(
        advice.rec.exposure for _, advice in results) else ExitCode.OK
    ctx.code_if_closed = code  # the verdict stands whether or not the reader stays (`| head -1` with pipefail)
    if args.json:
        print(recommend_document(results), end="", flush=True)
    for report, advice in results if not args.json else []:
        if len(runs) > 1:
            ctx.out.print(host_rule(report))
        print_recommendation(ctx.out, advice, clients_table=True)
    return int(code)


def _write_configs(directory: str, results: list[tuple[Report, CheckedRecommendation]], ctx: Context,
                   json_out: bool) -> None:
    """One client file with every host's block; one drop-in per host whose server reads sshd_config (each goes to
    its own server). Blocks for one Host pattern (the servers of a --server a,b run: one client, several servers
    it could be talking to) cannot share a file, where only the first would apply: each gets its own. With
    --json, stdout is the document alone: the files written are said on stderr."""
    labels = unique_names([safe_name(report.label) for report, _ in results])
    patterns = [advice.host for _, advice in results if advice.host]
    files = {"ssh_config.sshbench": "\n".join(advice.client_text for _, advice in results)} \
        if len(set(patterns)) == len(patterns) else \
        {f"ssh_config.sshbench.{label}": advice.client_text for label, (_, advice) in zip(labels, results, strict=True)}
    names = iter(labels)
    for report, advice in results:
        host_file = next(names)
        if advice.server_text is None:
            continue
        if advice.dropin_withheld:
            ctx.say(f"sshbench: {report.label}: server drop-in not written: it would shut out clients that log in "
                    "today (the table above); --allow-lockout writes it anyway")
            continue
        name = "50-sshbench.conf" if len(results) == 1 else f"50-sshbench.{host_file}.conf"
        files[name] = advice.server_text
    outputs = [file_in(directory, name, "--write") for name in files]
    for output, text in zip(outputs, files.values(), strict=True):
        output.write(text)
        (ctx.say if json_out else ctx.line)(f"wrote {output.path}")
