"""A whole run: every host prepared, measured in turn within one budget, and concluded.

`prepare` starts what the request needs (the client checked, real hosts
logged into and their offer read, embedded servers, emulated links, the
payload, each host's cases) inside the caller's ExitStack, so everything is
gone when the stack closes, whatever happens. `measure_all` then gives each
host its share of what is left of the budget and byte cap and measures it
(session.py), saving as it goes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sshbench import __version__
from sshbench.compressors import choice
from sshbench.measure.accounting import bytes_moved
from sshbench.measure.controls import verify_aesni_mask
from sshbench.measure.datapath import make_payload
from sshbench.options import RunOptions
from sshbench.orchestrate.build_sides import (
    check_names,
    merged,
    offered,
    server_sides,
    side_options,
    start_builds,
    with_none,
)
from sshbench.orchestrate.client_sides import client_facts, client_options, probed, with_clients
from sshbench.orchestrate.session import Advice, Host, embedded_environment, measure_host
from sshbench.plan.budget import (
    BUSY,
    FIT_MARGIN,
    LEAVE_OUT,
    LOGIN_ROUND_TRIPS,
    LOSSY_STEADY_RTTS,
    duration,
    host_share,
    leave_out_slowest,
    minimum_before,
    option_to_leave_out,
    runs_cap,
    steady_seconds,
    too_long,
)
from sshbench.plan.cases import HostPlan, check_compressors, expand_methods, plan_host
from sshbench.results.events import Reporter
from sshbench.results.model import Case, CaseStatus, Report
from sshbench.results.store import ResultsWriter
from sshbench.targets.base import EmbeddedServer
from sshbench.targets.clientprobe import ClientProbe
from sshbench.targets.discovery import ClientInfo, discover_client
from sshbench.targets.link import netns
from sshbench.targets.link.emulated import RTT_PROBES, EmulatedLinks
from sshbench.targets.remote import RemoteHost, open_remote
from sshbench.targets.servers import DEFAULT as DEFAULT_SERVER
from sshbench.targets.servers import embedded_server, takes_sshd
from sshbench.vocabulary.case_terms import Direction
from sshbench.vocabulary.errors import BudgetTooSmall, MissingToolError, ServerError, UsageError

Say = Callable[[str], None]


@dataclass(frozen=True)
class RunRequest:
    """What the user asked for, checked (cli/parser.py builds it)."""

    options: RunOptions
    destinations: tuple[str, ...] = ()
    servers: tuple[str, ...] = (DEFAULT_SERVER,)
    all_servers: bool = False  # --server all: a server this machine lacks is skipped, not an error
    all_methods: bool = False  # --method all: a tool this machine lacks is skipped, not an error
    label: str = ""
    ssh_config: str | None = None
    # Leave out what the budget cannot hold (largest first) instead of refusing: --fit, or (`budget_chosen`) a
    # budget sshbench chose itself, none given: a run is not refused for a budget the user never set.
    fit: bool = False
    budget_chosen: bool = False
    plan_only: bool = False  # --plan: prepare and say what would be measured, then stop


@dataclass
class Prepared:
    """What a run measures: each host with its cases, ready."""

    client: ClientInfo
    hosts: list[Host]
    plans: list[HostPlan]
    seed: int
    notes: list[str] = field(default_factory=list)
    # per host: the seconds its minimum needs, guessed before measuring: at least (a quiet machine), and on a busy one
    minimum: list[tuple[float, float]] = field(default_factory=list)
    clients: list[ClientProbe] = field(default_factory=list)  # --client: each library client, as its driver said


def prepare(request: RunRequest, stack: contextlib.ExitStack, say: Say, note: Say) -> Prepared:
    """Everything before the first sample; what it starts is entered into `stack`."""
    options = request.options
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    say("checking the local ssh client")
    client = discover_client(options.ssh)
    probes = probed(options, say)
    crypto = verify_aesni_mask() if options.no_aesni else None
    methods, missing = expand_methods(options, request.all_methods)
    check_compressors(options)
    _check_logins(request)
    # Every host is checked (login, offer) before the first is measured: no half-run for a typo in the third.
    remotes: list[RemoteHost | None] = []
    for destination in request.destinations:
        say(f"checking {destination}: login, its SSH offer, round-trip time")
        remote = open_remote(destination, request.ssh_config, client, options.timeout_seconds,
                             options.remote_workdir)
        _check_remote_compressors(remote, options)
        remotes.append(remote)
    # The embedded server also runs for remote hosts: its private dir holds the payload, and it validates the
    # recommended server drop-in without touching any real server. With --build, the builds bring their servers.
    servers = []
    for name in () if options.builds else request.servers:
        say(f"starting the private {name} on 127.0.0.1 (keys, config, what it supports)")
        server = _start(stack, name, client, options, request.all_servers, note)
        if server is not None:
            servers.append(server)
    links: EmulatedLinks | None = None
    if options.links:
        _check_link_floor(options)  # from the round trips alone, before minutes go into building and timing them
        say("making the emulated links (network namespaces, devices) and measuring their round trips")
        links = stack.enter_context(EmulatedLinks(list(options.links), seed,
                                                  tuned=options.link_tcp == "tuned"))
    ports = {server.name: links.serve(server) if links else 0 for server in servers}
    # Sides of one report: the builds, or (--server a,b without destinations) the embedded servers
    sides = start_builds(stack, options, say, links) if options.builds else \
        server_sides(servers, client, ports) if len(servers) > 1 and not remotes else []
    say("making the test data and planning the cases")
    payload = make_payload(options.data, (sides[0].server if sides else servers[0]).workdir, seed)
    hosts = ([Host(options, client, servers[0], payload, remote, methods, seed, crypto) for remote in remotes]
             if remotes else
             [Host(options, sides[0].client, sides[0].server, payload, None, methods, seed, crypto,
                   links.paths if links else {}, sides[0].link_port, tuple(sides), client)] if sides else
             [Host(options, client, server, payload, None, methods, seed, crypto, links.paths if links else {},
                   ports[server.name]) for server in servers])

    def plan(host: Host, opts: RunOptions) -> HostPlan:
        made = _plan(host, opts)
        for record in made.records:
            if record.case.id in host.left_out:
                record.status = CaseStatus.SKIPPED
                record.set_reason(host.left_out[record.case.id])
        return made

    def _plan(host: Host, opts: RunOptions) -> HostPlan:
        if host.builds:
            check_names(opts, host.builds)
            return merged([(side.name, with_clients(with_none(plan_host(
                client_options(side_options(opts, side, host.builds), side.client, offered(side), probes),
                side.client, offered(side), methods, missing, f"{side.axis} {side.name}", embedded=True,
                lenient=True), side, opts), probes, offered(side))) for side in host.builds])
        return with_clients(plan_host(client_options(opts, client, host.offered, probes), client, host.offered,
                                      methods, missing,
                                      "the server" if host.remote is None else host.remote.facts.destination or "",
                                      embedded=host.remote is None,
                                      hostkey_skip=None if host.remote is None else host.remote.hostkey_skip,
                                      compression=None if host.remote is None else host.remote.compression), probes,
                            host.offered)

    said = ("--fit: {} to fit the time budget" if request.fit else
            "{} to fit the default time budget (give --time-budget to choose)" if request.budget_chosen else None)
    fitted = [_fitted(h, plan, len(hosts), said, note) for h in hosts]
    fitted = [(dataclasses.replace(h, options=dataclasses.replace(h.options, fit=said is not None)), m)
              for h, m in fitted]
    hosts = [host for host, _ in fitted]
    return Prepared(client, hosts, [plan(h, h.options) for h in hosts], seed, minimum=[m for _, m in fitted],
                    clients=probes)


def _check_link_floor(options: RunOptions) -> None:
    """Refuse a budget that the links' round trips alone cannot fit: timing each link's RTT (RTT_PROBES + 1
    connects) and one case's warm-up and minimum over it (a login's round trips, then steady_seconds of data
    each). `--link rtt=10s --time-budget 60s` took 4 minutes to be refused, after the links were built."""
    budget = options.time_budget_seconds
    if budget is None or options.mode == "fixed":
        return
    each = {link: (RTT_PROBES + 1 + (options.min_runs + 1) * LOGIN_ROUND_TRIPS) * link.rtt_seconds
            + (options.min_runs + 1) * steady_seconds(link, min(options.streams)) for link in options.links}
    floor = sum(each.values())
    if floor > budget:
        worst = max(each, key=lambda link: each[link])
        least = steady_seconds(worst, min(options.streams))
        floored = worst.loss and least > LOSSY_STEADY_RTTS * worst.rtt_seconds  # a floor's doing, not the rtt's
        who = "one stream's samples" if min(options.streams) == 1 else "with --streams their samples"
        why, cure = (f"with loss ({who} last {least:g} s or more)", "") if floored else \
            ("at its round trips", ", or give a shorter rtt")
        raise BudgetTooSmall(f"--link {worst.label}: {why}, timing the links and one case's warm-up and "
                             f"minimum over each take at least {duration(floor)}, and the time budget is "
                             f"{duration(budget)}: raise --time-budget to {math.ceil(floor * FIT_MARGIN / 60)}m or "
                             f"more{cure}")


def _check_remote_compressors(remote: RemoteHost, options: RunOptions) -> None:
    """An external compressor runs on the server too: one line naming what that host lacks (exit 3)."""
    tools = {c.compressor.program: c.compressor.package for c in map(choice, options.compression)
             if c.compressor.program}
    if not tools:
        return
    said = remote.target.run_command("for t in " + " ".join(tools) +  # our registry's names: plain words
                                     '; do command -v "$t" >/dev/null 2>&1 || echo "$t"; done')
    lacking = [word for word in said.split() if word in tools]
    if lacking:
        raise MissingToolError(f"{remote.facts.destination}: {', '.join(lacking)} not installed there, and "
                               f"--compression {lacking[0]} runs it on the server too: install it there (Debian "
                               f"package {tools[lacking[0]]}) or leave {lacking[0]} out")


def _fitted(host: Host, plan: Callable[[Host, RunOptions], HostPlan], hosts: int, fit: str | None,
            note: Say) -> tuple[Host, tuple[float, float]]:
    """The host, checked before anything is measured, and the least seconds its minimum needs (guessed,
    plan/budget.py): the minimum must fit its share of the budget. Too big: refused at once (BudgetTooSmall), or
    where it may be fitted (`fit`: the line that says what was left out, "{}" for the option), the largest part
    left out until it fits, each saying so: the options --fit may drop first, then the slowest cases (changes
    before plain ones), as after the warm-up. It refused once its options were spent ("needs about 39 s more"),
    where leaving out a case would have fitted."""
    options = host.options
    budget = options.time_budget_seconds
    # fixed mode promises no minimum: its budget only cuts it short (measure/loop.py checks the same way)
    share = math.inf if budget is None or options.mode == "fixed" else budget / hosts
    rtt = {label: statistics.median(path.connect_seconds) for label, path in host.links.items()
           if path.connect_seconds}
    remote = host.remote.facts.remote if host.remote is not None else None
    if remote is not None and remote.round_trip_seconds:
        rtt[""] = remote.round_trip_seconds
    windows = _receive_windows(host)
    left_out: dict[str, str] = {}
    reference = next((name for name in host.client.defaults.cipher if name in set(host.offered.cipher)), None)
    passes = len(LEAVE_OUT) + len(plan(host, options).records) + 1  # each fits, refuses, or leaves one out
    for _ in range(passes):
        records = {r.case.id: r for r in plan(dataclasses.replace(host, left_out=left_out), options).records}
        cases = [r.case for r in records.values() if r.status is not CaseStatus.SKIPPED]
        # with the margin the warm-up's check keeps (FIT_MARGIN): a guess within it started, and was then refused
        # after a minute of warm-up (rtt=20ms,loss=0.5%,cc=cubic,mtu=1500: guessed 9 min 6 s, measured 10 min 29)
        guessed = minimum_before(cases, options, rtt, options.file_shape.total_bytes, windows=windows)
        needed = {case: seconds * FIT_MARGIN for case, seconds in guessed.items()}
        if sum(needed.values()) <= share:
            if left_out and fit is not None:
                note("sshbench: " + fit.format(_cases_left_out(list(left_out))))
            busy = minimum_before(cases, options, rtt, options.file_shape.total_bytes, BUSY, windows)
            options = dataclasses.replace(options, max_runs=runs_cap(cases, options, rtt, share))
            return (dataclasses.replace(host, options=options, left_out=left_out),
                    (sum(guessed.values()), sum(busy.values())))
        message = too_long(needed, 0.0, share, dataclasses.replace(options, budget_shared_by=hosts), before=True)
        drop = option_to_leave_out(needed, options)
        if fit is None:
            raise BudgetTooSmall(message)
        if drop is not None:
            note("sshbench: " + fit.format(drop))
            options = dataclasses.replace(options, **LEAVE_OUT[drop])  # type: ignore[arg-type]
            continue
        # no option left to leave out: the slowest case goes, as after the warm-up (measure/loop.py)
        kept = leave_out_slowest(records, needed, message, reference)
        if not kept:
            raise BudgetTooSmall(f"{message} (fitting left out all it could: one case is the smallest run, and "
                                 "its minimum does not fit)")
        gone = next(case for case in needed if case not in kept)
        left_out[gone.id] = records[gone.id].reason or ""
    raise BudgetTooSmall("--fit could not make the minimum fit: raise --time-budget")


def _receive_windows(host: Host) -> Callable[[Case], int | None]:
    """Each upload's receiver's fixed channel window (the embedded server it goes to: a window variant's, or its
    implementation's), for the budget's guess before measuring; None (OpenSSH's 2 MiB) for downloads, whose
    receiver is our ssh, and for a real host, whose window the banner alone does not prove."""
    servers = {side.name: side.server for side in host.builds}

    def window(case: Case) -> int | None:
        if case.direction is not Direction.UPLOAD or host.remote is not None:
            return None
        server = servers.get(case.build, host.server)
        return server.receive_window or server.implementation.receive_window
    return window


def _cases_left_out(ids: list[str], named: int = 3) -> str:
    """"3 cases left out, in the order they went: a, b, c" (and how many more): one line for what may be dozens
    (the order: what sshbench added, then changes, then the slowest; plan/budget.leave_out_slowest); each
    case's own reason is in the results."""
    shown = ", ".join(ids[:named]) + (f" and {len(ids) - named} more" if len(ids) > named else "")
    return f"{len(ids)} case{'s' * (len(ids) != 1)} left out, in the order they went ({shown})"


def measure_all(prepared: Prepared, request: RunRequest, writer: ResultsWriter, reporter: Reporter,
                note: Say) -> list[tuple[Report, list[Advice]]]:
    """Each host in turn, with its share of what is left of the budget and byte cap; saved as it goes."""
    runs: list[tuple[Report, list[Advice]]] = []
    started = time.monotonic()
    for index, (host, plan) in enumerate(zip(prepared.hosts, prepared.plans, strict=True)):
        spent = (time.monotonic() - started, sum(bytes_moved(r) for r, _ in runs))
        share = host_share(host.options, spent, len(prepared.hosts) - index)
        share = dataclasses.replace(share, cipher_mac=plan.cipher_mac, mac_cipher=plan.mac_cipher)
        for line in plan.notes:
            note(f"sshbench: {_label(host)}{line}")
        report = Report(tool_version=__version__, seed=prepared.seed, options=share, cases=plan.records,
                        started_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
                        environment=embedded_environment(prepared.client, host.server), partner_kex=plan.partner_kex)
        report.environment.host.label = request.label
        report.environment.clients = client_facts(prepared.clients)
        runs.append((report, measure_host(dataclasses.replace(host, options=share), report, writer.save, reporter)))
        writer.host_done(report)
    return runs


def _check_logins(request: RunRequest) -> None:
    """--logins loads sshbench's own listening sshd, before anything is started: never a real host or a build."""
    options = request.options
    if not options.logins:
        return
    if request.destinations or options.builds or options.links or list(request.servers) != [DEFAULT_SERVER]:
        raise UsageError("--logins loads sshbench's own OpenSSH server as a listening sshd on its own loopback: give "
                         "no host, --link, --build or --server with it (a real server is never loaded)")
    netns.check_can_emulate()  # root: its sshd listens in a network namespace of sshbench's own


def _start(stack: contextlib.ExitStack, name: str, client: ClientInfo, options: RunOptions, asked_all: bool,
           note: Say) -> EmbeddedServer | None:
    """One embedded server, started; with `all`, a server this machine cannot run is skipped, saying why."""
    try:
        return stack.enter_context(embedded_server(name, client, options.sshd if takes_sshd(name) else None,
                                                   env=options.crypto_env(), slow_login=options.slow_login))
    except (MissingToolError, ServerError) as exc:
        if name == DEFAULT_SERVER:
            raise
        if not asked_all:
            if isinstance(exc, ServerError):
                raise
            raise MissingToolError(f"--server {name}: {exc}") from None
        note(f"sshbench: --server all: {name} skipped: {exc}")
        return None


def _label(host: Host) -> str:
    """"HOST: " before a note about one host of several (nothing for the embedded server)."""
    return "" if host.remote is None else f"{host.remote.facts.destination}: "
