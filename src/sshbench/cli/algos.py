"""`sshbench algos [DESTINATION]`: what this client and a server support, with grades and Terrapin verdicts.

Without a destination the server is the embedded one (every algorithm its
sshd supports enabled). With one, like ssh-audit, the server's offer is its
first KEXINIT, read without logging in (so it also works for hosts you have
no key for); behind a ProxyJump/ProxyCommand it cannot be read and the
command says so. `--json` prints one JSON document instead of tables.

Like ssh-audit, the exit status says what a real server's offer holds
(analysis/security/audit.py): 0 clean, 12 weak names offered, 13 broken ones or
Terrapin on the server's side; `--fail-on` chooses from which level on it
fails (weak by default, `broken`, or `never` to only report). The embedded
server enables everything on purpose and is never judged.
"""

from __future__ import annotations

import argparse
import dataclasses
import json

# Not a run's conclusion (those come from analysis/conclude.py alone): a live server's offer, judged as ssh-audit
# judges it, with no results file and nothing measured; pyproject.toml's contract names this import.
from sshbench.analysis.security.audit import Audit, Severity, audit
from sshbench.cli.context import Context
from sshbench.orchestrate.session import embedded_terrapin
from sshbench.render.config import print_terrapin
from sshbench.render.terminal import algorithms_tables
from sshbench.results.environment import TerrapinFacts
from sshbench.targets.discovery import ClientInfo, discover_client
from sshbench.targets.remote import offers, resolve
from sshbench.targets.servers import DEFAULT as DEFAULT_SERVER
from sshbench.targets.servers import embedded_server
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, AlgorithmLists, lookup
from sshbench.vocabulary.errors import ExitCode, ServerError, UsageError

OFFER_TIMEOUT = 15.0
SCHEMA_VERSION = 1  # of the --json document ("schema": "sshbench/algos"); docs/reports.md
EXIT_FOR = {Severity.CLEAN: ExitCode.OK, Severity.WEAK: ExitCode.OFFERS_WEAK, Severity.BROKEN: ExitCode.OFFERS_BROKEN,
            Severity.UNUSABLE: ExitCode.OFFERS_NOTHING}


def _remote(client: ClientInfo, destination: str, ssh_config: str | None) -> tuple[str, AlgorithmLists, TerrapinFacts]:
    dest = resolve(client.path, destination, ssh_config)
    if dest.proxied:
        raise ServerError(f"{destination} is reached through a proxy (ProxyJump/ProxyCommand), so its offer cannot "
                          "be read directly; run sshbench algos on a machine that reaches it without one")
    offer, terrapin = offers(client, dest, OFFER_TIMEOUT)
    if offer is None:
        raise ServerError(f"could not read the SSH offer of {destination} ({dest.hostname} port {dest.port}); "
                          "check the host name, port and network")
    return offer.banner, offer.lists, terrapin


def _document(client: ClientInfo, label: str, offered: AlgorithmLists, terrapin: TerrapinFacts,
              verdict: Audit | None) -> str:
    rows = []
    for kind in ALGORITHM_KINDS:
        for name in dict.fromkeys((*client.supported.of(kind), *offered.of(kind))):
            alg = lookup(name, kind)
            rows.append({"kind": kind.value, "name": name, "grade": alg.grade.value, "reason": alg.reason,
                         "client": name in client.supported.of(kind),
                         "client_default": name in client.defaults.of(kind), "server": name in offered.of(kind)})
    judged = None if verdict is None else {"severity": verdict.severity.value, "findings": list(verdict.findings)}
    return json.dumps({"schema": "sshbench/algos", "schema_version": SCHEMA_VERSION,
                       "client": {"path": client.path, "version": client.version, "openssl": client.openssl},
                       "server": label, "algorithms": rows, "terrapin": dataclasses.asdict(terrapin),
                       "verdict": judged}, indent=2)


def _status(verdict: Audit | None, fail_on: str) -> int:
    """The exit status for this verdict: its level's code once it reaches --fail-on, else 0."""
    if verdict is None or fail_on == "never" or verdict.severity.order < Severity(fail_on).order:
        return int(ExitCode.OK)
    return int(EXIT_FOR[verdict.severity])


def cmd_algos(args: argparse.Namespace, ctx: Context) -> int:
    client = discover_client(args.ssh)
    if args.destination and args.server != DEFAULT_SERVER:
        raise UsageError("--server chooses the embedded server; with a destination its own offer is read, so "
                         "leave --server out")
    verdict: Audit | None = None
    if args.destination:
        banner, offered, terrapin = _remote(client, args.destination, args.ssh_config)
        label = f"{args.destination}: {banner} (its first KEXINIT, read without logging in)"
        verdict = audit(offered, terrapin)
    else:
        with embedded_server(args.server, client, args.sshd if args.server == DEFAULT_SERVER else None) as server:
            info = server.info
            offered, terrapin = info.enabled, embedded_terrapin(client, server)
            label = (f"{info.path}  {info.version}{', ' + info.openssl if info.openssl else ''} (embedded "
                     f"{server.name}, every algorithm it supports enabled)")
    ctx.code_if_closed = ExitCode(_status(verdict, args.fail_on))  # the verdict stands if the reader goes away
    if args.json:
        print(_document(client, label, offered, terrapin, verdict), flush=True)
        return _status(verdict, args.fail_on)
    ctx.out.print(f"client: {client.path}  {client.version}, {client.openssl}", highlight=False, markup=False,
                  soft_wrap=True)
    ctx.out.print(f"server: {label}", highlight=False, markup=False, soft_wrap=True)
    for table in algorithms_tables(client.supported, client.defaults, offered):
        ctx.out.print(table)
    print_terrapin(ctx.out, terrapin)
    if verdict is None:
        ctx.out.print("verdict: not judged (the embedded server enables every algorithm it supports on purpose; "
                      "give a destination to judge a real server)", highlight=False, markup=False, soft_wrap=True)
    else:
        ctx.out.print(f"verdict: {verdict.severity.value}" + "".join(f"\n  {line}" for line in verdict.findings),
                      style=None if verdict.severity is Severity.CLEAN else "red" if verdict.severity in
                      (Severity.BROKEN, Severity.UNUSABLE) else "yellow", highlight=False, markup=False, soft_wrap=True)
    return _status(verdict, args.fail_on)
