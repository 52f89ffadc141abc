"""A full link is measured, not rejected: SSH filling rate-limited links with incompressible data.

SSH filling the line is the commonest outcome on a slow link, and the check
that sets aside figures above what a path can carry (measure/physics.py)
once rejected every such sample: it read the links' MTU from facts written
only at the end of the run and fell back to 1500 bytes on 9000-byte links,
so 6.21 MB/s of payload through 50 Mbit/s was "above the 6.03 MB/s the path
carries". Here four links (two rates, each at MTU 1500 and 9000) carry random
data; every sample must count, read within 2% of the line's payload
capacity, and the link answer must say the link is full.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sshbench.vocabulary.linkspec import TCP_HEADER_BYTES, parse_label
from tests.integration.cli_helpers import sshbench
from tests.integration.processes import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.skipif(not ROOT, reason="--link makes network namespaces")]

LINKS = "rtt=2ms,rate=100mbit,200mbit,mtu=1500,9000"


@pytest.fixture(scope="module")
def full(module_tmpdir: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = module_tmpdir / "full.json"
    done = sshbench("--link", LINKS, "--data", "random", "--compression", "off,zstd", "--ciphers",
                    "aes128-gcm@openssh.com", "--macs", "none", "--kex", "none", "--hostkeys", "none", "--directions",
                    "upload", "--runs", "5", "--echo", "0", "--no-controls", "--output", str(out),
                    tmpdir=module_tmpdir, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done, json.loads(out.read_text())


def ceiling(label: str) -> float:
    """The TCP payload a link of that label carries per second: its rate less IP and TCP headers at its MTU."""
    link = parse_label(label)
    assert link.rate_bits is not None
    return link.rate_bits / 8 * (link.mtu - TCP_HEADER_BYTES) / link.mtu


def test_every_sample_that_fills_the_link_counts_and_reads_its_ceiling(full: Any) -> None:
    _, data = full
    cases = {r["case"]["id"]: r["case"] for r in data["cases"]}
    facts = {link["label"]: link for link in data["environment"]["links"]}
    assert sorted(facts) == sorted(f"rtt=2ms,rate={r}mbit,mtu={m}" for r in (100, 200) for m in (1500, 9000))
    for label, link in facts.items():
        assert link["mtu"] == parse_label(label).mtu, "the link was built at the MTU it was asked for"
    measured = [s for s in data["samples"] if s["ok"] and not s["warmup"] and cases[s["case_id"]]["kind"] == "cipher"]
    assert len(measured) >= 4 * 3 * 5, "three cases a link, five samples each"
    set_aside = [(s["case_id"], s["unusable"]) for s in measured if s["unusable"] is not None]
    assert not set_aside, set_aside
    shares: dict[str, list[float]] = {}
    for sample in measured:
        case = cases[sample["case_id"]]
        wire = sample["wire_bytes_sent"] / sample["bytes_received"]
        on_wire = sample["steady_bytes"] / sample["steady_seconds"] * wire
        shares.setdefault(sample["case_id"], []).append(on_wire / ceiling(case["link"]))
    # each case's best sample within 2% of the line (of five: the best of three read 0.9796 for zstd at 200 Mbit, MTU
    # 1500, in a fresh-clone CI whose other worker ran beside it): a sample may dip where other work took the CPU of the
    # link's emulator or of zstd (0.96-0.98 beside three other test runs, 0.99-1.00 alone, 0.82 beside two CPU hogs and
    # another sshbench run: how far is the machine's, not ours), but none may rise past what the physics check forgives
    # (1%, and a decompressor's blocks)
    for case_id, found in shares.items():
        assert 0.98 <= max(found) <= 1.02, (case_id, found)
        assert all(share <= 1.04 for share in found), (case_id, found)


def test_the_answer_says_each_link_is_full(full: Any) -> None:
    done, _ = full
    for rate in (100, 200):
        for mtu in (1500, 9000):
            label = f"rtt=2ms,rate={rate}mbit,mtu={mtu}"
            line = next((ln for ln in done.stdout.splitlines() if ln.startswith(f"upload across {label}:")), "")
            paragraph = done.stdout.split(line, 1)[1].split("\n    ", 1)[0] if line else ""
            said = line + paragraph
            assert "the link is full at " in said or "already fills the link at " in said, (label, said)
            assert "of the line's payload capacity)" in said, "no raw TCP ran: the line's capacity is the reference"
