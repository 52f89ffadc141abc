"""The lines around the tables, for every output: what ran where, how the run stopped, what went wrong.

A Fact is a label ("machine", "client", "limit" ...) and a sentence; the
terminal aligns them under the title, Markdown and HTML list them. The same
facts, in the same words, everywhere.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from sshbench.analysis.findings import MIN_FOR_INTERVAL, RELIABLE, Findings
from sshbench.compressors import OFF, choice
from sshbench.render.table_model import Style
from sshbench.results.design import Noise
from sshbench.results.environment import FilesFacts, ServerFacts, ServerKind
from sshbench.results.model import CaseStatus, Report
from sshbench.results.views import compares_servers
from sshbench.vocabulary.case_terms import CaseKind, Relation
from sshbench.vocabulary.units import format_bytes

REFERENCES = (CaseKind.CONTROL, CaseKind.CEILING)


@dataclass(frozen=True)
class Fact:
    label: str  # "" continues the fact above
    text: str
    style: Style = ""


def title(report: Report) -> str:
    return f"{report.tool_version}  {report.started_at}  seed {report.seed}"


def iperf_fact(server: ServerFacts) -> str | None:
    """The raw-TCP ceiling of a real host: iperf3's figures, or why there are none."""
    iperf = server.iperf
    if server.kind is not ServerKind.REMOTE or iperf is None:
        return None
    figures = ", ".join(f"{rate / 1e6:,.0f} MB/s {d}" for d in ("upload", "download") if (rate := iperf.rate(d)))
    if figures:
        return f"raw TCP to this host (iperf3, {iperf.version or 'version unknown'}): {figures}" + (
            f"; {iperf.skipped}" if iperf.skipped else "")
    return f"raw TCP to this host: not measured ({iperf.skipped})"


def files_fact(files: FilesFacts) -> str:
    """What the file methods moved, where to, how it was checked, and how fast the disk was."""
    checked = ("exit status and ssh's byte count" if files.sink == "null" else
               "size and SHA-256" if files.verify else "size")
    return (f"file methods: {files.describe} per transfer in {files.workdir}, receiver writes "
            f"{'a real file' if files.sink == 'file' else '/dev/null'}, {checked} checked; disk (warm): source "
            f"read {files.disk.read_bytes_per_second / 1e6:,.0f} MB/s, sink write "
            f"{files.disk.write_bytes_per_second / 1e6:,.0f} MB/s")


def _compression(choices: tuple[str, ...]) -> str:
    """`SSH compression off` (as before compression was a dimension), or each choice as tables name it."""
    if choices == (OFF,):
        return "SSH compression off"
    return "compression: " + ", ".join(choice(c).label for c in choices)


def _streams(counts: tuple[int, ...]) -> str:
    return "" if counts == (1,) else f"; {', '.join(map(str, counts))} parallel connections per transfer"


def _placement(report: Report) -> str:
    """The placement the run measured in, and how it was set (asked, or chosen by the trial)."""
    asked = report.options.placement
    trial = report.placement_trial
    if asked == "auto" and trial is not None:
        return f"{trial.chosen} ({'chosen by the trial' if trial.split else 'auto, not tried'})"
    return f"{asked}, as asked" if asked != "auto" else "auto"


def _congestion(report: Report) -> str | None:
    """The TCP congestion control the run's connections used: this machine's, and each link's where it differs
    (None for files from before it was recorded)."""
    host = report.environment.host.tcp_congestion
    links = [(link.label, link.congestion) for link in report.environment.links if link.congestion]
    if host is None and not links:
        return None
    said = [f"congestion control {host} on this machine" if host else "congestion control not recorded here"]
    said += [f"{name} across {label}" for label, name in links if name != host or "cc=" in label]
    return "; ".join(said)


def facts(found: Findings) -> list[Fact]:
    """The machine, both sides' software, the data, and what limited the run (Findings.limits), one line each."""
    report = found.report
    env, opts = report.environment, report.options
    host, client, server = env.host, env.client, env.server
    flags = ", ".join(host.crypto_flags) or "no AES/SHA instructions"
    out = [Fact("machine", f"{host.cpu_model} x{host.cpu_count} ({flags}), {host.os}, kernel {host.kernel}"),
           Fact("client", f"{client.version}, {client.openssl}"),
           *([] if compares_servers(report) else  # --server a,b: a line per server below
             [Fact("server", f"{server.label} {server.version}{', ' + server.openssl if server.openssl else ''}")]),
           Fact("data", f"{opts.data} bytes, {_compression(opts.compression)}{_streams(opts.streams)}; throughput "
                        "excludes the handshake")]
    if host.placement:  # embedded runs that recorded it (plumbing/placement.py)
        out.insert(1, Fact("placement", host.placement.removeprefix("split: ") if host.placement_fallback is not None
                           else host.placement.removeprefix("split: ") + ", as on two machines"
                           if host.placement.startswith("split") else
                           "free: client and server shared every CPU, wherever the scheduler put them"))
        if report.placement_trial is not None:  # --placement auto: the trial that chose it (analysis/stats/placing.py)
            trial = report.placement_trial
            out.insert(2, Fact("", f"{trial.reason}{f' ({trial.seconds:.0f} s trial)' if trial.split else ''}"))
    for build in env.builds:  # --build: each build's two programs, and the switches they declared
        if build.own is not None:  # --server a,b: each server as run
            own = build.own.server
            out.append(Fact("server", f"{build.name}: {own.version}" + (f", {own.openssl}" if own.openssl else "")))
            continue
        said = "; ".join(f"{side} {', '.join(f'{k} {v}' for k, v in switches.items())}" for side, switches in
                         (("client", build.client_settings), ("server", build.server_settings)) if switches)
        same = build.client.version == build.server.version
        versions = (f"client and server {build.client.version}" if same else
                    f"client {build.client.version}, server {build.server.version}")
        out.append(Fact("build", f"{build.name}: {versions}{f' ({said})' if said else ''}"))
    for other in env.clients:  # --client: each library client as its driver said, its window as its source says
        out.append(Fact("client", f"{other.name} {other.version} (its driver; window {format_bytes(other.window)}, "
                        f"packets {format_bytes(other.max_packet)}: {other.window_source})"
                        if other.window and other.max_packet else f"{other.name} {other.version} (its driver)"))
    if env.crypto is not None and env.crypto.aesni_masked:
        check = env.crypto.mask_check
        out.append(Fact("crypto", "AES-NI, VAES and PCLMULQDQ masked in OpenSSL for client, server and ceilings "
                        f"(verified: aes-128-gcm {check.unmasked_bytes_per_second / 1e6 if check else 0:,.0f} -> "
                        f"{check.masked_bytes_per_second / 1e6 if check else 0:,.0f} MB/s)", "warn"))
    if env.files is not None:
        out.append(Fact("files", files_fact(env.files)))
    if server.remote is not None:
        remote, rtt = server.remote, server.remote.round_trip_seconds
        out.append(Fact("remote", f"{remote.destination} = {remote.user}@{remote.hostname} port {remote.port}, "
                                  f"{remote.system}; round trip "
                                  f"{'unknown (via proxy)' if rtt is None else f'{rtt * 1000:.2f} ms (TCP connect)'}"))
    if tcp := iperf_fact(server):
        out.append(Fact("network", tcp))
    if congestion := _congestion(report):
        out.append(Fact("tcp", congestion))
    # --server a,b: what limited each server's fastest cipher, in its own words, with what each window variant of
    # that server measured beside it
    out += [Fact("limit", f"[server {limit.server}] {limit.text}" if limit.server else limit.text)
            for limit in found.limits]
    if host.cpu_mhz:
        out.append(Fact("clock", f"{host.cpu_mhz:,.0f} MHz as reported by /proc/cpuinfo (for cycles per byte)"))
    return out


def mode(report: Report) -> list[Fact]:
    """How the run decided when to stop, what each case got, and whether the rankings settled."""
    opts = report.options
    budget = "none" if opts.time_budget_seconds is None else f"{opts.time_budget_seconds:.0f} s"
    if opts.mode == "fixed":
        out = [Fact("mode", f"fixed, {opts.runs} measured samples per throughput case, {opts.setup_runs} per "
                            f"set-up case, time budget {budget}")]
    elif opts.mode == "precision":
        out = [Fact("mode", f"precision, target ±{(opts.precision or 0) * 100:g}% (95% interval of each median), "
                            f"at least {opts.min_runs} and at most {opts.max_runs} samples per case, time budget "
                            f"{budget}")]
        short = [s for s in report.summaries if s.precise is False]
        if short:
            out.append(Fact("", f"{len(short)} of {len(report.summaries)} cases did not reach the target; their "
                                "achieved interval is shown in yellow", "warn"))
    else:
        out = [Fact("mode", f"decision: {opts.min_runs} samples of every case, then more only where neighbours "
                            f"are not yet settled (different, or equivalent within ±{opts.tie_margin * 100:g}%), "
                            f"at most {opts.max_runs}, time budget {budget}")]
    out += [Fact("", line, style) for line, style in _outcome(report)]
    if report.design is not None:
        design = report.design
        out.append(Fact("noise", f"measured after {design.at_samples} throughput samples: {noise_line(design.noise)}"))
        out.append(Fact("design", f"{design.reason}; placement {_placement(report)}"))
    if report.partner_kex:
        out.append(Fact("kex", f"{report.partner_kex} for every throughput and host key case (fixed for the run; "
                               "only the key exchange table varies it)"))
    if report.stop_reason:
        out.append(Fact("", f"stopped early: {report.stop_reason}", "warn"))
    return out


def noise_line(noise: Noise) -> str:
    """The noise the run measured (analysis/stats/noise.py), in the words the noise line uses: made here, from its
    figures, like every other line of a report."""
    def pct(value: float | None) -> str:
        return "?" if value is None else f"{value * 100:.0f}%"
    parts = [f"per sample {pct(noise.per_sample)} (within a connection {pct(noise.within)}, between "
             f"connections {pct(noise.between)})"]
    if noise.paired is not None:
        parts.append(f"back-to-back pairs spread {noise.paired:.2f}x as much as pairs passes apart")
    if noise.fixed_seconds is not None and noise.steady_seconds is not None:
        parts.append(f"{noise.fixed_seconds:.2f} s per visit beside a {noise.steady_seconds:.2f} s steady state")
    return "; ".join(parts) + f" (n={noise.samples})"


def _span(counts: list[int]) -> str:
    if counts[0] == counts[-1]:
        return str(counts[0])
    return f"{counts[0]}-{counts[-1]}, median {statistics.median(counts):g}"


def _outcome(report: Report) -> list[tuple[str, Style]]:
    """Samples per case as measured, the pairs settled, and the share of time spent moving data."""
    kinds = {r.case.id: r.case.kind for r in report.cases}
    counts = sorted(s.samples_ok for s in report.summaries if s.samples_ok and kinds.get(s.case_id) not in REFERENCES)
    refs = sorted(s.samples_ok for s in report.summaries if s.samples_ok and kinds.get(s.case_id) in REFERENCES)
    if not counts:
        return []
    short = sum(1 for n in counts if n < MIN_FOR_INTERVAL)
    few = f"; {short} of {len(counts)} cases have fewer than {MIN_FOR_INTERVAL}: no interval" if short else ""
    lines: list[tuple[str, Style]] = [(f"samples per case: {_span(counts)}{few}" +
                                       (f"; references {_span(refs)}" if refs else ""), "warn" if short else "")]
    for what, relations in (("neighbour pairs", Counter(s.relation for s in report.summaries if s.relation)),
                            ("cost rankings' pairs", Counter(s.cost_relation for s in report.summaries
                                                               if s.cost_relation))):
        if relations:
            pairs = sum(relations.values())
            unsettled = relations[Relation.UNSETTLED]
            lines.append((f"{what}: {pairs - unsettled} of {pairs} settled ({relations[Relation.DIFFERENT]} "
                          f"different, {relations[Relation.EQUIVALENT]} equivalent), {unsettled} not yet separable",
                          "warn" if unsettled else ""))
    use = report.time_use
    if use is not None and use.data_share is not None:
        tput = use.throughput_data_share
        lines.append((f"time: {use.data_share * 100:.0f}% of {use.wall_seconds:.0f} s in data phases" +
                      (f"; throughput samples {tput * 100:.0f}% data phase, the rest start-up and handshake"
                       if tput is not None else ""), ""))
    return lines


def commands(report: Report) -> list[Fact]:
    """The file methods' commands as run (exports show them; the terminal has no room)."""
    files = report.environment.files
    return [Fact(method, command) for method, command in files.commands.items()] if files else []


def problems(found: Findings) -> list[Fact]:
    """Skipped and failed cases with their reasons, failed echo sessions, the references judged too noisy to
    compare with (Findings.references), and warnings: never silently dropped."""
    report = found.report
    out = [Fact(record.status.value, f"{record.case.id}: {record.reason}",
                "warn" if record.status is CaseStatus.SKIPPED else "bad")
           for record in report.cases if record.status in (CaseStatus.SKIPPED, CaseStatus.FAILED)]
    out += [Fact("failed", f"keystroke echo {echo.cipher}{f' @{echo.link}' if echo.link else ''}: {echo.error}", "bad")
            for echo in report.echoes if not echo.ok]
    for case, stat in found.references.unreliable:
        width = stat.relative_half_width
        spread = f"±{width * 100:.0f}%" if width is not None else f"{stat.min / 1e6:,.0f}-{stat.max / 1e6:,.0f} MB/s"
        out.append(Fact("unreliable", f"reference {case.id}: {stat.median / 1e6:,.0f} MB/s ({spread}, n={stat.count}) "
                                      f"is too noisy to compare SSH with (wider than ±{RELIABLE * 100:g}%): not used "
                                      "for efficiency shares, link verdicts or limits", "warn"))
    return out + [Fact("warning", f"{w.message}; {w.advice}", "warn") for w in report.warnings]
