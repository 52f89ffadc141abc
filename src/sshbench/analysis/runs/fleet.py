"""Many machines' results as one fleet: normalised figures, outliers and one recommendation.

Seed study 004 ran one benchmark on five platforms and normalised by hand;
this does it from the results files, and says what each normalisation
assumes (NORMALISATIONS). Figures are the pipe's steady state per cipher
and direction: the one thing every host measures the same way (file
methods also measure each host's disks).

The fleet recommendation is the single-run rule applied across hosts:
only algorithms measured on every host and allowed by the policy on every
host (Terrapin included) are listed, security first, and one goes before
another only where it is proven faster on every host (each host and
direction is a separate piece of evidence, analysis/security/ordering.py). Hosts
whose own recommendation starts differently are named.

All of it is drawn once for the runs a command shows side by side
(analysis/conclude.conclude_fleet, into a Fleet), and the hosts tables of
every output lay that out.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sshbench.analysis.config.recommend import build, measured_candidates
from sshbench.analysis.physics.advice import Limit, limit_of
from sshbench.analysis.physics.references import ceilings, pipe_ciphers
from sshbench.analysis.security.ordering import Candidate, order
from sshbench.analysis.security.policy import built_in
from sshbench.analysis.security.safety import safe_cipher
from sshbench.analysis.stats.robust import outliers as robust_outliers
from sshbench.results.model import Report, Summary
from sshbench.vocabulary.algorithms import Kind

CHACHA = "chacha20-poly1305@openssh.com"
MIN_HOSTS_FOR_OUTLIERS = 4  # a robust z-score (median absolute deviation) means little with fewer hosts
DIRECTIONS = ("upload", "download")
NORMALISATIONS = {
    "chacha20": ("each cipher as a multiple of the same host's chacha20-poly1305 (seed study 004's way: chacha20 "
                 "uses no AES or carry-less-multiply instructions, so it stands for the CPU's general speed, and a "
                 "ratio above 1 is what the AES hardware buys on that host; assumes chacha20 runs the same code "
                 "everywhere)"),
    "ceiling": ("each cipher as a share of the same host's crypto ceiling for it (openssl speed -evp, one core): "
                "how much of the primitive's speed SSH keeps on that host; assumes one core's openssl speed is "
                "what ssh's libcrypto gets"),
}


@dataclass
class FleetRecommendation:
    """What the fleet as a whole should use, per algorithm kind, and where hosts differ."""

    lines: dict[str, list[str]] = field(default_factory=dict)  # keyword -> names, security first
    figures: dict[str, dict[str, str]] = field(default_factory=dict)  # keyword -> name -> "proven faster ..." notes
    left_out: dict[str, list[str]] = field(default_factory=dict)  # keyword -> "name: why"
    differs: list[str] = field(default_factory=list)  # "host: starts with X (fleet: Y)"


def pipe_rates(report: Report, direction: str) -> dict[str, float]:
    """Cipher -> median steady-state bytes/s of the pipe, loopback or real host (no emulated links)."""
    return {cipher: s.throughput_bytes_per_second.median for cipher, s in pipe_ciphers(report, direction).items()
            if s.throughput_bytes_per_second}


def normalised(report: Report, direction: str, by: str) -> dict[str, float]:
    """Cipher -> its figure divided by the host's reference (NORMALISATIONS); ciphers without one are left out."""
    rates = pipe_rates(report, direction)
    if by == "chacha20":
        base = rates.get(CHACHA)
        return {c: r / base for c, r in rates.items()} if base else {}
    tops = ceilings(report)
    return {c: r / tops[c].median for c, r in rates.items() if c in tops and tops[c].median}


def outlier_hosts(runs: Sequence[Report]) -> list[str]:
    """Hosts whose figure for a cipher lies far from the fleet's (modified z-score over hosts), as sentences."""
    found: list[str] = []
    if len(runs) < MIN_HOSTS_FOR_OUTLIERS:
        return found
    for direction in DIRECTIONS:
        per_host = [pipe_rates(r, direction) for r in runs]
        ciphers = sorted({c for rates in per_host for c in rates})
        for cipher in ciphers:
            pairs = [(r.label, rates[cipher]) for r, rates in zip(runs, per_host, strict=True) if cipher in rates]
            if len(pairs) < MIN_HOSTS_FOR_OUTLIERS:
                continue
            flags = robust_outliers([v for _, v in pairs])
            middle = statistics.median(v for _, v in pairs)
            found += [f"{label}: {cipher} {direction} {value / 1e6:,.0f} MB/s against the fleet's median "
                      f"{middle / 1e6:,.0f} MB/s ({value / middle:.2f}x)" for (label, value), flag
                      in zip(pairs, flags, strict=True) if flag]
    return found


def fleet_recommendation(runs: Sequence[Report], policy_name: str = "modern") -> FleetRecommendation:
    """The recommendation every host can take (see the module's docstring)."""
    policy = built_in(policy_name)
    rec = FleetRecommendation()
    margin = max(r.options.tie_margin for r in runs)
    for kind, keyword in ((Kind.CIPHER, "Ciphers"), (Kind.MAC, "MACs"), (Kind.KEX, "KexAlgorithms")):
        per_host = [measured_candidates(r, kind) for r in runs]
        names = list(dict.fromkeys(n for c in per_host for n in c))
        if not names:
            continue
        kept, left = [], []
        for name in names:
            missing = [r.label for r, c in zip(runs, per_host, strict=True) if name not in c]
            refused = policy.refuses(name, kind)
            unsafe = [r.label for r in runs if kind is Kind.CIPHER and not safe_cipher(r, name)]
            if refused:
                left.append(f"{name}: {refused}")
            elif missing:
                left.append(f"{name}: not measured on {', '.join(missing)}")
            elif unsafe:
                left.append(f"{name}: not safe on {', '.join(unsafe)} (Terrapin or grade)")
            else:
                merged = Candidate(name, kind)
                for report, candidates in zip(runs, per_host, strict=True):
                    for key, speeds in candidates[name].speeds.items():
                        merged.speeds[key._replace(host=report.label)] = speeds
                kept.append(merged)
        ordered, moves = order(kept, margin)
        rec.lines[keyword] = ordered
        rec.figures[keyword] = {m.name: f"proven faster than {m.over} on every host (at least {m.low:.2f}x)"
                                for m in moves}
        rec.left_out[keyword] = left
    first = next(iter(rec.lines.get("Ciphers", [])), None)
    for report in runs:
        own = next((ln.names for ln in build(report).lines if ln.kind is Kind.CIPHER), [])
        if first and own and own[0] != first:
            rec.differs.append(f"{report.label}: its own run puts {own[0]} first (the fleet: {first})")
    return rec


def versions(runs: Sequence[Report]) -> list[str]:
    """A note when the runs come from different sshbench versions (figures compare only where methods agree)."""
    tools = sorted({r.tool_version for r in runs})
    return [] if len(tools) < 2 else [f"runs from sshbench {', '.join(tools)}: each figure is as its version "
                                      "measured it; compare across versions with care"]


@dataclass(frozen=True)
class HostFigures:
    """One host of several, as the hosts tables compare it."""

    limits: Mapping[str, Limit]  # direction -> what limited its fastest pipe cipher (absent: nothing measured)
    pipe: Mapping[str, Mapping[str, Summary]]  # direction -> cipher -> its pipe case's summary (pipe_ciphers)
    normalised: Mapping[tuple[str, str], Mapping[str, float]]  # (normalisation, direction) -> cipher -> its ratio


@dataclass(frozen=True)
class Fleet:
    """What several runs shown side by side conclude together: each host's figures, and the fleet's."""

    runs: tuple[Report, ...] = field(repr=False)  # the evidence, in the order shown
    hosts: tuple[HostFigures, ...]  # in the runs' order
    recommendation: FleetRecommendation
    outliers: tuple[str, ...]  # hosts far from the fleet for a cipher, as sentences (from MIN_HOSTS_FOR_OUTLIERS)
    versions: tuple[str, ...]  # a note where the runs come from different sshbench versions


def host_figures(report: Report) -> HostFigures:
    """One host's limits, pipe figures and normalised figures, each drawn once."""
    return HostFigures({d: limit for d in DIRECTIONS if (limit := limit_of(report, d)) is not None},
                       {d: pipe_ciphers(report, d) for d in DIRECTIONS},
                       {(by, d): normalised(report, d, by) for by in NORMALISATIONS for d in DIRECTIONS})


def fleet(runs: Sequence[Report]) -> Fleet:
    """Everything the hosts tables show of these runs (analysis/conclude.conclude_fleet calls it once)."""
    return Fleet(tuple(runs), tuple(host_figures(r) for r in runs), fleet_recommendation(runs),
                 tuple(outlier_hosts(runs)), tuple(versions(runs)))
