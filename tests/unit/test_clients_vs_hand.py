"""bench/clients_vs_hand.py reads a client's figure from a results file and judges it against the hand's: the
oracle must read the case sshbench reported (the client's, not ssh's beside it), the MAC its samples negotiated
(which the hand then pins), and accept only within 5% or the hand's own range."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).parents[2] / "bench"))

from clients_vs_hand import Ours, Row, acceptance, hand_size, held_mac, read_ours
from sshbench.results.codec import results_from_dict
from sshbench.results.model import Report, Stat
from sshbench.vocabulary.units import MiB

DATA = Path(__file__).parents[1] / "data"


@pytest.fixture(scope="module")
def recorded() -> Report:
    (found,) = results_from_dict(json.loads(gzip.decompress((DATA / "results-client-dbclient.json.gz").read_bytes())))
    return found


def test_reads_the_clients_case_and_its_negotiated_mac(recorded: Report) -> None:
    theirs = read_ours(recorded, "aes128-ctr", "download", "dbclient", "")
    ssh = read_ours(recorded, "aes128-ctr", "download", "openssh", "")
    assert theirs.stat is not None and ssh.stat is not None
    assert theirs.stat.median < ssh.stat.median / 4  # dbclient's 24 KiB window, not ssh's case
    assert theirs.mac == "hmac-sha2-256"  # held for dbclient's run, as its samples negotiated it
    assert theirs.size > 0 and not theirs.note


def test_a_case_the_run_lacks_says_so(recorded: Report) -> None:
    assert read_ours(recorded, "aes256-gcm@openssh.com", "upload", "dbclient", "").note == "no such case in the run"


def _row(ours: float, hand: tuple[float, float, float]) -> Row:
    return Row("paramiko", "upload", Ours(Stat(ours, ours, ours, ours, 0.0, 6)), hand, 64 * MiB, "paramiko")


@pytest.mark.parametrize(("ours", "hand", "said"), [
    (104.0, (100.0, 99.0, 101.0), "within 5%"),
    (112.0, (100.0, 90.0, 115.0), "within the hand's range"),
    (112.0, (100.0, 95.0, 105.0), "OUTSIDE both 5% and the hand's range"),
    (100.0, (float("nan"), float("nan"), float("nan")), "no hand rate (S no slower than S/4)"),
])
def test_acceptance(ours: float, hand: tuple[float, float, float], said: str) -> None:
    assert acceptance(_row(ours, hand)) == said


def test_hand_size_lasts_long_enough_in_whole_mib() -> None:
    fast = Ours(Stat(100e6, 100e6, 100e6, 100e6, 0.0, 6), size=32 * MiB)
    assert hand_size(fast, 4.0) == -(-int(400e6) // MiB) * MiB  # its rate for 4 s beats its own size
    assert hand_size(Ours(), 4.0) == 0  # no figure: the bench probes instead


def test_held_mac() -> None:
    assert held_mac("aes128-gcm@openssh.com", "paramiko") == "none"
    assert held_mac("aes256-ctr", "plink") == "hmac-sha2-256"
    assert held_mac("aes256-ctr", "goxcrypto") == "hmac-sha2-256-etm@openssh.com"
