"""A --client's own window receives its downloads (analysis/physics/windows.py), and the limit names it with its knob:
on a recorded real run of OpenSSH's ssh beside Dropbear's dbclient on loopback (tests/data/README.md)."""

from __future__ import annotations

import copy
import gzip
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sshbench.analysis.conclude import conclude
from sshbench.analysis.physics.advice import Limit, limit_of
from sshbench.analysis.physics.limits import limit_findings
from sshbench.analysis.physics.links import bound_of
from sshbench.analysis.physics.windows import client_window, receive_window, receiver
from sshbench.clientparts import CLIENTS
from sshbench.implementations import OPENSSH
from sshbench.render.facts import facts
from sshbench.results.codec import results_from_dict
from sshbench.results.model import Report

DATA = Path(__file__).resolve().parents[1] / "data"
DOWNLOAD = "cipher:aes128-ctr:download^dbclient"
# What the recorded run's report says of dbclient's downloads (its figures are the file's own)
SAID = ("download, Dropbear's dbclient as the client: fastest aes128-ctr at 22 MB/s, client dbclient 20% of a core, "
        "server sshd 10% of a core: no side at a full core (>= 85%), and the receiving dbclient's channel window is "
        "24 KiB: the sender stops for a window adjust every 24 KiB, 890 times a second here, so that window is the "
        "likely limit; a larger one is set with dbclient -W BYTES (up to 10 MiB)")


def _recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress((DATA / "results-client-dbclient.json.gz").read_bytes()))
    return data


def _read(data: dict[str, Any]) -> Report:
    (found,) = results_from_dict(copy.deepcopy(data))
    return found


@pytest.fixture(scope="module")
def run() -> Report:
    return _read(_recorded())


def test_a_download_of_a_clients_case_is_received_in_that_clients_window(run: Report) -> None:
    assert [c.name for c in run.environment.clients] == ["dbclient"]
    assert {s.client_window_bytes for s in run.samples if s.case_id.endswith("^dbclient")} == {24576}
    assert receive_window(run, "download", client="dbclient") == 24576 == CLIENTS["dbclient"].window.value
    assert receive_window(run, "download") == OPENSSH.receive_window, "ssh's own cases: ssh receives"
    assert receive_window(run, "upload", client="dbclient") == OPENSSH.receive_window, "the server receives uploads"
    found = receiver(run, "download", client="dbclient")
    assert (found.title, found.client, found.knob) == ("dbclient", "dbclient", "-W")


def test_the_window_the_server_logged_is_taken_before_the_declared_one() -> None:
    data = _recorded()
    for sample in data["samples"]:
        if sample["client_window_bytes"] is not None:
            sample["client_window_bytes"] = 65536
    assert client_window(_read(data), "dbclient") == 65536, "what the server saw, not what the source says"
    for sample in data["samples"]:
        sample["client_window_bytes"] = None
    assert client_window(_read(data), "dbclient") == 24576, "no sample logged one: the declared window"
    data["environment"]["clients"][0]["window"] = None
    unknown = _read(data)
    assert client_window(unknown, "dbclient") is None and receive_window(unknown, "download", client="dbclient") is None
    limit = limit_of(unknown, "download", "dbclient")
    assert limit is not None and limit.small_window is None, "a window nobody knows is never named"


def test_the_recorded_dbclient_download_names_its_window_as_the_limit(run: Report) -> None:
    limit = limit_of(run, "download", "dbclient")
    assert limit is not None and limit.case_id == DOWNLOAD and not limit.busy
    assert limit.small_window_bound and limit.bound_by == "dbclient's 24 KiB window"
    assert limit.text == SAID
    plain = limit_of(run, "download")
    assert plain is not None and plain.case_id == "cipher:aes128-ctr:download" and not plain.small_window_bound
    upload = limit_of(run, "upload", "dbclient")
    assert upload is not None and upload.small_window is None and "client dbclient" in upload.text, \
        "an upload's receiver is the server's 2 MiB"
    assert limit_findings(run)[-1].text == SAID
    assert SAID in [fact.text for fact in facts(conclude(run)) if fact.label == "limit"]


def test_over_a_round_trip_the_clients_window_is_judged_against_window_per_rtt(run: Report) -> None:
    """The recorded run was on loopback, where the run measured no round trip: its dbclient download's bound has the
    client's 24 KiB and no RTT, so it is judged on the CPUs alone ("below limits"). The TCP round trip its sending
    socket reported (srtt, median 0.50 ms) would put window / RTT at 49 MB/s, of which the recorded 22 MB/s is 45%:
    under the 70% line. Over a round trip the same bound is window-bound where it reaches that line: the window /
    RTT arithmetic the verdict uses, at a 20 ms round trip and a rate set for it (not a measured figure)."""
    summary = next(s for s in run.summaries if s.case_id == DOWNLOAD)
    bound = bound_of(run, summary)
    assert bound is not None
    assert (bound.window, bound.rtt, bound.receiver, bound.knob) == (24576, None, "dbclient", "-W")
    assert bound.verdict == "none" and bound.short == "below limits"
    rtts = sorted(s.tcp.rtt_seconds for s in run.samples if s.case_id == DOWNLOAD and s.tcp and s.tcp.rtt_seconds)
    assert 0.0004 < rtts[len(rtts) // 2] < 0.0006 and bound.rate < 0.7 * 24576 / rtts[len(rtts) // 2]
    linked = replace(bound, rtt=0.020, stat=replace(bound.stat, median=1.0e6))
    assert linked.window_limit == pytest.approx(24576 / 0.020)
    assert linked.verdict == "window" and linked.short == "window 81%"
    assert "window limit dbclient's 24 KiB (-W) / 20.0 ms = 1.2 MB/s (81%)" in linked.text
    assert linked.text.endswith("window-bound: dbclient's receive window (-W), not the cipher or the link, set the "
                                "pace")
    ssh = next(s for s in run.summaries if s.case_id == "cipher:aes128-ctr:download")
    plain = bound_of(run, ssh)
    assert plain is not None and plain.window == OPENSSH.receive_window and not plain.receiver


def test_a_clients_window_bound_over_a_real_hosts_round_trip_is_named_with_its_knob() -> None:
    limit = Limit("download", "aes128-ctr", 1.0e6, {"client": 0.2, "server": 0.1}, [], window=(24576, 0.020),
                  client="dbclient", receiving_client=("-W", "dbclient -W BYTES (up to 10 MiB)"))
    assert limit.window_bound
    assert limit.text == ("download, Dropbear's dbclient as the client: fastest aes128-ctr at 1 MB/s, client dbclient "
                          "20% of a core, server sshd 10% of a core: window-bound: one SSH channel carries at most the "
                          "receiving dbclient's 24 KiB window (-W) per 20 ms round trip, 1.2 MB/s, whatever the cipher "
                          "(more parallel transfers, or a larger window: dbclient -W BYTES (up to 10 MiB), go faster)")
    server = Limit("upload", "aes128-ctr", 1.0e6, {"client": 0.2, "server": 0.1}, [], window=(24576, 0.020))
    assert "the receiver's 24 KiB window per 20 ms round trip" in server.text
    assert "a server with a larger window" in server.text


def test_each_library_and_program_client_names_the_knob_that_sets_its_window() -> None:
    named = {name: [k.name for k in part.knobs if k.window] for name, part in CLIENTS.items()}
    assert named == {"openssh": [], "paramiko": ["window_size"], "asyncssh": ["window"], "dbclient": ["-W"],
                     "plink": [], "goxcrypto": []}, "ssh's, plink's and x/crypto/ssh's are compiled in: no knob"
