"""Fleet analysis on runs with known figures: names, normalisations, outliers and the fleet recommendation."""

from __future__ import annotations

import random

from sshbench.analysis.conclude import conclude_fleet
from sshbench.analysis.runs.fleet import fleet_recommendation, normalised, outlier_hosts
from sshbench.analysis.stats.stats import summarize
from sshbench.render.fleet import fleet_tables
from sshbench.render.labels import FLEET_NOTE, HOSTS_NOTE, hosts_note
from sshbench.results.environment import TerrapinFacts, TerrapinSide
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.results.store import merge

GCM, CTR, CHACHA = "aes128-gcm@openssh.com", "aes128-ctr", "chacha20-poly1305@openssh.com"
BYTES = 100_000_000


def host(name: str, rates: dict[str, float], seed: int = 1, label: str = "", hostname: str = "vm") -> Report:
    """A finished run of pipe upload cases with 8 samples each around the given rates (1% spread)."""
    rng = random.Random(seed)
    etm = "hmac-sha2-256-etm@openssh.com"
    cases = [Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=c, mac=etm if c == CTR else None) for c in rates]
    samples = [Sample(c.id, n, n == 0, True, "", BYTES, bytes_received=BYTES,
                      data_seconds=BYTES / (rates[c.cipher or ""] * rng.uniform(0.99, 1.01)), total_seconds=1.0)
               for c in cases for n in range(9)]
    report = Report("0.1.0", "2026-11-22T00:00:00", seed, cases=[CaseRecord(c) for c in cases], samples=samples)
    report.summaries = summarize(report.cases, samples)
    report.environment.host.label, report.environment.host.hostname = label, hostname
    report.environment.terrapin = TerrapinFacts(TerrapinSide(strict_kex=True), TerrapinSide(strict_kex=True), True)
    report.status = "complete"
    del name
    return report


def test_unlabelled_machines_get_unique_names_from_host_name_then_file() -> None:
    a, b, c = host("a", {GCM: 1e9}), host("b", {GCM: 1e9}, hostname="db1"), host("c", {GCM: 1e9}, label="web1")
    runs = merge([("results/a.json", [a]), ("x/b.json", [b]), ("y/c.json", [c])])
    assert [r.label for r in runs] == ["vm", "db1", "web1"]
    again = merge([("one.json", [host("a", {GCM: 1e9})]), ("two.json", [host("b", {GCM: 1e9})])])
    assert [r.label for r in again] == ["vm", "two"], "the same host name twice: the file names it"


def test_normalisations_divide_by_the_host_s_own_reference() -> None:
    report = host("a", {GCM: 600e6, CHACHA: 300e6, CTR: 450e6})
    ratios = normalised(report, "upload", "chacha20")
    assert round(ratios[GCM], 1) == 2.0 and round(ratios[CTR], 1) == 1.5 and ratios[CHACHA] == 1.0
    assert normalised(report, "upload", "ceiling") == {}, "no ceilings measured: nothing to divide by"
    assert normalised(host("b", {GCM: 1e9}), "upload", "chacha20") == {}


def test_an_outlier_needs_four_hosts_and_a_real_distance() -> None:
    same = [host(str(i), {GCM: 500e6 * (1 + i / 100)}, label=f"h{i}") for i in range(4)]
    assert outlier_hosts(same) == []
    odd = [*same, host("x", {GCM: 100e6}, label="slow")]
    found = outlier_hosts(odd)
    assert len(found) == 1 and found[0].startswith("slow: aes128-gcm@openssh.com upload 100 MB/s")
    assert outlier_hosts(odd[:3]) == []


def test_fleet_order_moves_only_on_proof_from_every_host() -> None:
    everywhere = [host(str(i), {GCM: 600e6, CHACHA: 300e6}, seed=i, label=f"h{i}") for i in range(3)]
    rec = fleet_recommendation(everywhere)
    assert rec.lines["Ciphers"][0] == GCM  # recommended grade, and faster on every host
    mixed = [*everywhere[:2], host("z", {GCM: 300e6, CHACHA: 600e6}, label="arm1")]
    rec = fleet_recommendation(mixed)
    assert rec.lines["Ciphers"] == [GCM, CHACHA], "no proof from every host: the security order stands"
    assert not rec.figures["Ciphers"]
    assert rec.differs == [f"arm1: its own run puts {CHACHA} first (the fleet: {GCM})"]
    partial = [*everywhere[:2], host("w", {GCM: 600e6}, label="old")]
    left = fleet_recommendation(partial).left_out["Ciphers"]
    assert f"{CHACHA}: not measured on old" in left


def test_fleet_tables_and_the_note_say_what_the_runs_are() -> None:
    runs = [host(str(i), {GCM: 600e6, CHACHA: 300e6}, seed=i, label=f"h{i}") for i in range(2)]
    titles = [t.title for t in fleet_tables(conclude_fleet(runs))]
    assert titles[0] == "Platforms" and "Fleet recommendation" in titles
    assert any(t.startswith("Normalised, upload: relative to chacha20") for t in titles)
    assert hosts_note(runs) == FLEET_NOTE
    one_run = [host("a", {GCM: 1e9}, seed=7), host("b", {GCM: 1e9}, seed=7)]
    assert hosts_note(one_run) == HOSTS_NOTE
