"""Measuring one host, start to finish: its facts, its test files, the schedule run, the warnings, the advice.

The CLI runs one session per host. Everything the results file says about
the host is filled in here, into the typed environment, and the report is
saved after every sample (the runner) and at each step (here), so an
interrupt at any point leaves a file that holds what was measured.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sshbench.analysis.config.configtext import CheckedRecommendation
from sshbench.analysis.physics.advice import advise
from sshbench.measure import sysinfo
from sshbench.measure.datapath import Payload
from sshbench.measure.echo import EchoSettings, measure_echo
from sshbench.measure.filetool import TransferFiles, command_templates, prepared_files
from sshbench.measure.iperf import tcp_ceiling
from sshbench.measure.logins import measure_logins
from sshbench.measure.pipe import SampleSettings
from sshbench.measure.runner import execute
from sshbench.measure.testfiles import check_free_space, measure_disk
from sshbench.options import RunOptions
from sshbench.orchestrate.build_sides import build_facts
from sshbench.orchestrate.validate import checked_recommendation, control_dir
from sshbench.plan.schedules import schedule_for
from sshbench.plumbing import placement
from sshbench.plumbing.kexinit import KexinitError, kexinit_over, read_client_kexinit
from sshbench.results.environment import (
    PLACEMENT_FELL_BACK,
    AlgorithmFacts,
    ClientFacts,
    CryptoFacts,
    EmbeddedFacts,
    Environment,
    FilesFacts,
    MaskCheck,
    OwnServer,
    ServerFacts,
    ServerKind,
    StoredRecommendation,
    TerrapinFacts,
    terrapin_report,
)
from sshbench.results.events import Reporter
from sshbench.results.model import Case, CaseKind, CaseStatus, LoginLoad, Report
from sshbench.results.views import per_server
from sshbench.targets.base import EmbeddedServer, Target
from sshbench.targets.discovery import ClientInfo
from sshbench.targets.embedded import BuildSide, BuildsTarget, EmbeddedTarget
from sshbench.targets.link.emulated import LinkPath
from sshbench.targets.remote import RemoteHost, host_pattern
from sshbench.targets.servers.openssh import EmbeddedOpenSSH
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.errors import OutputError, ServerError, UsageError

Advice = tuple[Report, CheckedRecommendation]  # a recommendation and the report (or server's view) it was made from


@dataclass(frozen=True)
class Host:
    """What measuring one host needs; the embedded server and payload are shared by every host of a run."""

    options: RunOptions  # this host's share of the budget and byte cap
    client: ClientInfo
    server: EmbeddedServer  # measured when `remote` is None; validates the recommendation either way
    payload: Payload
    remote: RemoteHost | None
    methods: tuple[str, ...]
    seed: int
    crypto: MaskCheck | None
    links: Mapping[str, LinkPath] = field(default_factory=dict)  # emulated links by label (--link)
    link_port: int = 0  # the server's listener behind the links
    builds: tuple[BuildSide, ...] = ()  # SSH builds compared (--build): each case goes to its own
    # the machine's own ssh, when `client` is a build's: the recommended ~/.ssh/config must pass it too
    system_client: ClientInfo | None = None
    # cases --fit (or the default budget) left out before measuring, once no option was left to: id -> why
    left_out: Mapping[str, str] = field(default_factory=dict)

    @property
    def offered(self) -> AlgorithmLists:
        return self.server.info.enabled if self.remote is None else self.remote.offered


def embedded_environment(client: ClientInfo, server: EmbeddedServer) -> Environment:
    """The machine, both sides' software and what each side offers, before anything is measured."""
    return Environment(
        host=sysinfo.collect(),
        client=ClientFacts(client.path, client.version, client.openssl),
        server=_server_facts(server),
        algorithms=AlgorithmFacts(client.supported, client.defaults, client.aead_ciphers, server.info.enabled,
                                  server.defaults),
    )


def _server_facts(server: EmbeddedServer) -> ServerFacts:
    info = server.info
    return ServerFacts(ServerKind.EMBEDDED, info.version, info.openssl, embedded=EmbeddedFacts(
        server=server.name, path=info.path, listen=f"{server.address}:{server.port}",
        host_key_types=list(info.host_key_types), per_connection=server.per_connection,
        implementation=server.implementation.name, receive_window=server.receive_window,
        command=list(server.command)))


def _side_facts(host: Host, env: Environment) -> None:
    """Each side's facts; a server side (--server a,b) with its own server's, read as the run's own are."""
    env.builds = build_facts(list(host.builds))
    for facts, side in zip(env.builds, host.builds, strict=True):
        if side.axis == "server":
            facts.own = OwnServer(_server_facts(side.server), side.server.info.enabled, side.server.defaults,
                                  embedded_terrapin(host.client, side.server))


def measure_host(host: Host, report: Report, save: Callable[[Report], None],
                 reporter: Reporter) -> list[Advice]:
    """One host from first sample to validated recommendation (one per server of a --server a,b run, with the
    view of the report it was made from), saving after every sample."""
    with _interrupts_marked(report):
        return _measured(host, report, save, reporter)


@contextlib.contextmanager
def _interrupts_marked(report: Report) -> Iterator[None]:
    """An interrupt after the sample loop said "complete" (in the echoes, the logins, the recommendation) still
    ends the run as interrupted, as one inside the loop does (measure/loop.py); the CLI saves it so."""
    try:
        yield
    except KeyboardInterrupt:
        if report.status == "complete":
            report.status = "interrupted"
            report.finished_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        raise


def _measured(host: Host, report: Report, save: Callable[[Report], None], reporter: Reporter) -> list[Advice]:
    options, server, remote = host.options, host.server, host.remote
    env = report.environment
    machine_before = sysinfo.cpu_snapshot()
    env.crypto = CryptoFacts(options.no_aesni, options.crypto_env() or None, host.crypto)
    if remote is None:
        env.terrapin = embedded_terrapin(host.client, server)
    else:
        env.server = remote.facts
        env.algorithms.server_enabled = remote.offered
        env.algorithms.server_defaults = AlgorithmLists()  # unknown for a real host: only its offer is seen
        env.terrapin = remote.terrapin
        if options.controls and env.server.remote is not None:  # the link's own ceiling, when iperf3 is on both ends
            env.server.remote.iperf3 = tcp_ceiling(remote.target, remote.dest.hostname, remote.dest.proxied,
                                                   capped=options.max_bytes is not None, port=options.iperf3_port)
    live = [r.case for r in report.cases if r.status is not CaseStatus.SKIPPED]
    # the links as built, before the first sample: the physics check reads each one's MTU from here (it fell back
    # to 1500 while this was written only at the end, and set aside every sample that filled a 9000-byte link)
    env.links = [path.facts() for path in host.links.values()]
    target: Target = remote.target if remote is not None else BuildsTarget(list(host.builds), host.links) \
        if host.builds else EmbeddedTarget(server, host.links, host.link_port)
    if host.builds:
        _side_facts(host, env)
    with contextlib.ExitStack() as stack:
        files = None
        if any(not c.is_pipe for c in live):
            files = stack.enter_context(_test_files(options, target, host.payload))
            env.files = _files_facts(options, files, host.payload)
            env.files.commands = command_templates(target, files, host.methods)
        plan = schedule_for(options, live, host.seed)
        place = stack.enter_context(_placed(host, env))
        save(report)
        execute(report, plan, target, options, save, reporter,
                SampleSettings(host.payload, options.crypto_env()), files, place)
        if options.echo_count:
            clients = {build.name: build.client.version for build in env.builds}
            for case in echo_cases(report):
                client = clients.get(case.build) or host.client.version  # ObscureKeystrokeTiming is the client's
                report.echoes.append(measure_echo(target, case, EchoSettings(options.echo_count, client)))
                save(report)
        if options.logins and isinstance(server, EmbeddedOpenSSH) and remote is None:
            kexes = [r.case.kex for r in report.cases if r.case.kind is CaseKind.KEX
                     and r.status is not CaseStatus.SKIPPED] or [None]

            def kept(stage: LoginLoad) -> None:  # each stage saved as it ends: an interrupt keeps the finished
                report.logins.append(stage)
                save(report)

            measure_logins(server, options.logins, kexes, options.logins_seconds, kept)
    env.links = [path.facts() for path in host.links.values()]  # again: the wires' CPU as they ended
    if remote is None and env.server.embedded is not None:
        env.server.embedded.refused_connections = server.strangers
    env.host.load_average_end = sysinfo.load_average()
    env.host.during_run = sysinfo.usage_since(machine_before)
    report.warnings = [w.stored() for w in advise(report)]
    save(report)
    out = _recommendations(host, report)
    save(report)
    return out


def _recommendations(host: Host, report: Report) -> list[Advice]:
    """The run's recommendation, checked by the real ssh and sshd, kept in the report; for a --server a,b run one
    per server, made from that server's view and checked by that server (OpenSSH's drop-in by its sshd -t)."""
    servers = {side.name: side.server for side in host.builds}
    control = control_dir()  # the config is for this machine's user: ControlMaster lines only if usable here
    out = []
    for view in per_server(report):
        side = view.environment.builds[0] if view is not report else None
        own = side.own if side is not None else None
        server = servers[side.name] if side is not None and own is not None else host.server
        if own is not None and own.server.embedded is not None:
            own.server.embedded.refused_connections = server.strangers
        advice = checked_recommendation(view, host.system_client or host.client, server, "modern",
                                        host_pattern(report.environment.server.destination),
                                        control=control)
        if not advice.problems:  # kept in the results, so reports can show it without running anything
            stored = StoredRecommendation(advice.rec.policy.name, advice.client_text, advice.server_text or "",
                                          advice.prediction)
            if own is not None:
                own.recommendation = stored
            else:
                report.recommendation = stored
        out.append((view if own is None else dataclasses.replace(view, recommendation=own.recommendation), advice))
    return out


@contextlib.contextmanager
def _placed(host: Host, env: Environment) -> Iterator[Callable[[str], None] | None]:
    """The embedded ends on their own CPUs for the measuring (--placement), recorded; undone after. Yields,
    for --placement auto, what moves both ends to "split" or "free" placement (the trial, measure/placing.py)."""
    allowed = placement.allowed()
    if host.remote is not None:
        env.host.client_cpus = len(allowed) if allowed else env.host.cpu_count
        yield None  # the server is another machine; this one's CPUs are all the client's
        return
    where = placement.split(allowed) if host.options.placement != "free" else None
    servers = [build.server for build in host.builds] or [host.server]

    def use(kind: str) -> None:
        chosen = where if kind == "split" else None
        for server in servers:
            server.place(chosen.server if chosen is not None else None)
        placement.switch(chosen, allowed)
        _record_placement(env, chosen, allowed)

    _record_placement(env, where, allowed)
    for server in servers:
        server.place(where.server if where is not None else None)
    try:
        with placement.client_side(where):
            yield use if host.options.placement == "auto" and where is not None else None
    finally:
        for server in servers:
            server.place(None)
        if env.host.placement != "free" and (why := placement.fell_back()) is not None:
            env.host.placement = f"{env.host.placement}; {PLACEMENT_FELL_BACK}: {why}"
            env.host.placement_fallback = why


def _record_placement(env: Environment, where: placement.Placement | None, allowed: frozenset[int] | None) -> None:
    env.host.placement = where.describe() if where is not None else "free"
    everything = len(allowed) if allowed else env.host.cpu_count
    env.host.client_cpus = len(where.client) if where is not None else everything
    env.host.server_cpus = len(where.server) if where is not None else everything


def echo_cases(report: Report) -> list[Case]:
    """One pipe case per cipher (with its MAC and key exchange), link and build that was measured: the echo
    sessions."""
    chosen: dict[tuple[str | None, str | None, str, str], Case] = {}
    for record in report.cases:
        case = record.case
        if case.kind is CaseKind.CIPHER and case.is_pipe and record.status is CaseStatus.MEASURED:
            chosen.setdefault((case.cipher, case.mac, case.link, case.build), case)
    return list(chosen.values())


@contextlib.contextmanager
def _test_files(options: RunOptions, target: Target, payload: Payload) -> Iterator[TransferFiles]:
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
    return FilesFacts(workdir=os.path.dirname(files.client_dir), file_bytes=shape.file_bytes, files=shape.files,
                      directory=shape.directory, total_bytes=shape.total_bytes, describe=shape.describe(),
                      sparse_source=options.data == "zero" and not shape.directory, sink=options.sink,
                      verify=options.verify, source_sha256=files.source_sha256, disk=disk)


def embedded_terrapin(client: ClientInfo, server: EmbeddedServer) -> TerrapinFacts:
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
