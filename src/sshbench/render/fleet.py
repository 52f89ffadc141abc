"""Tables that compare machines: the platforms, normalised figures, outliers and the fleet recommendation.

They follow the hosts tables (render/hosts.py) wherever several runs are
shown together: a multi-host run, or `sshbench report` over many files
(a fleet, e.g. from the Ansible playbook in fleet/). analysis/runs/fleet.py
computes, once per command (the Fleet of analysis/conclude.conclude_fleet);
this only lays out.
"""

from __future__ import annotations

from sshbench.analysis.findings import DIRECTIONS, MIN_HOSTS_FOR_OUTLIERS, NORMALISATIONS, Fleet
from sshbench.render.labels import flagged_name
from sshbench.render.table_model import Column, Row, Table, cell
from sshbench.vocabulary.algorithms import Kind


def platform_table(fleet: Fleet) -> Table:
    """One row per host: what it is (CPU and its crypto instructions, kernel) and what it runs."""
    rows = []
    for report in fleet.runs:
        env = report.environment
        host = env.host
        cpu = f"{host.cpu_model} x{host.cpu_count}" if host.cpu_count else host.cpu_model
        crypto = ", ".join(host.crypto_flags) or "none"
        rows.append(Row(tuple(cell(text) for text in (
            report.label, cpu, crypto, host.machine, host.kernel, env.client.version, env.client.openssl or "-",
            f"{env.server.software} {env.server.version}".strip(), report.tool_version, report.status))))
    columns = (Column("host"), Column("CPU", wrap=True), Column("crypto instructions", wrap=True),
               Column("arch", priority=3), Column("kernel", wrap=True, priority=2), Column("OpenSSH", wrap=True),
               Column("OpenSSL", wrap=True, priority=2), Column("server", wrap=True, priority=2),
               Column("sshbench", priority=3), Column("status", priority=3))
    return Table("Platforms", columns, tuple(rows), (
        "crypto instructions: x86 aes (AES-NI), vaes, sha_ni; Arm aes, pmull, sha2 (none: ciphers run in "
        "software, where chacha20-poly1305 usually wins)", *fleet.versions), note=True)


def normalised_tables(fleet: Fleet) -> list[Table]:
    """Per normalisation and direction: ciphers by hosts, each figure divided by that host's reference."""
    tables, runs = [], fleet.runs
    for by, meaning in NORMALISATIONS.items():
        for direction in DIRECTIONS:
            per_host = [host.normalised[by, direction] for host in fleet.hosts]
            ciphers = list(dict.fromkeys(c for values in per_host for c in values))
            if not ciphers:
                continue
            rows = tuple(Row((cell(flagged_name(c, Kind.CIPHER)),
                              *(cell(_ratio(values[c], by) if c in values else "-") for values in per_host)))
                         for c in ciphers)
            title = ("relative to chacha20-poly1305" if by == "chacha20" else "share of the crypto ceiling")
            tables.append(Table(f"Normalised, {direction}: {title}", (Column("cipher", code=True),
                                *(Column(r.label, numeric=True) for r in runs)), rows, (meaning,), note=True))
    return tables


def _ratio(value: float, by: str) -> str:
    return f"{value:.2f}x" if by == "chacha20" else f"{value:.0%}"


def recommendation_table(fleet: Fleet) -> Table | None:
    """What every host can use (policy modern), with why names were left out and where hosts differ."""
    rec, runs = fleet.recommendation, fleet.runs
    if not rec.lines:
        return None
    rows = []
    for keyword, names in rec.lines.items():
        shown = "\n".join(f"{n}  ({rec.figures[keyword][n]})" if n in rec.figures[keyword] else n for n in names)
        rows.append(Row((cell(keyword), cell(shown or "none passes on every host: leave at the defaults"),
                         cell("\n".join(rec.left_out.get(keyword, [])) or "-", "dim"))))
    outliers = fleet.outliers
    caption = ["security first, a faster one first only where proven faster on every host and direction; "
               "measured and allowed (policy modern, Terrapin) on every host; `sshbench recommend FILE` writes "
               "and validates a host's own config",
               *(f"differs: {line}" for line in rec.differs),
               *(f"outlier: {line}" for line in outliers),
               *([] if len(runs) >= MIN_HOSTS_FOR_OUTLIERS else
                 [f"outliers among hosts are looked for from {MIN_HOSTS_FOR_OUTLIERS} hosts on"])]
    return Table("Fleet recommendation", (Column("keyword"), Column("in this order", code=True, wrap=True),
                                          Column("left out", wrap=True, priority=2)), tuple(rows),
                 tuple(caption), note=True)


def fleet_tables(fleet: Fleet) -> list[Table]:
    tables = [platform_table(fleet), *normalised_tables(fleet)]
    if (rec := recommendation_table(fleet)) is not None:
        tables.append(rec)
    return tables
