"""A phase far beyond its round trips is named with where it waited (analysis/connections/stalls.py): within
authentication by ssh -v's own marks around the wait, never below the slack a busy machine's CPU adds."""

from __future__ import annotations

from sshbench.analysis.connections.phases import Phase, PhaseName, PhaseSplit
from sshbench.analysis.connections.stalls import AUTH_ANY, STALL_SECONDS, stalls

# a recorded shape: loopback, the embedded sshd with --slow-login dns (the first authentication request waited)
MARKS = {"banner_sent": 0.10, "banner_received": 0.11, "newkeys_received": 0.25, "service_accepted": 0.25,
         "methods_listed": 2.61, "key_accepted": 2.62, "authenticated": 2.62, "session_open": 2.62}


def _split(auth: float, rtt: float | None = None, marks: dict[str, float] | None = None) -> PhaseSplit:
    phases = (Phase((PhaseName.START,), 0.10), Phase((PhaseName.VERSION,), 0.01), Phase((PhaseName.KEX,), 0.14),
              Phase((PhaseName.AUTH,), auth), Phase((PhaseName.SESSION,), 0.001), Phase((PhaseName.COMMAND,), 0.01))
    return PhaseSplit("command:true:setup", sum(p.seconds for p in phases), phases, 3, rtt,
                      MARKS if marks is None else marks)


def test_a_wait_before_the_first_authentication_answer_is_named_reverse_dns_on_the_server() -> None:
    (found,) = stalls(_split(2.37))
    assert found.names == (PhaseName.AUTH,) and found.phase == "auth" and found.expected == 4
    assert found.trips is None  # loopback: no round trips said
    assert found.causes.startswith("on the server, before it answered the first authentication request")
    assert "reverse DNS" in found.causes and "UseDNS yes" in found.causes


def test_a_wait_between_the_methods_points_at_the_client_s_gssapi_and_without_marks_both_sides_are_named() -> None:
    gssapi = {**MARKS, "methods_listed": 0.26, "key_accepted": 3.1, "authenticated": 3.1}
    (found,) = stalls(_split(2.85, marks=gssapi))
    assert "GSSAPI" in found.causes and found.causes.startswith("between the methods")
    (unmarked,) = stalls(_split(2.85, marks={}))
    assert unmarked.causes == AUTH_ANY


def test_round_trips_and_the_slack_are_allowed_before_anything_is_named() -> None:
    assert stalls(_split(STALL_SECONDS * 0.9)) == []  # loopback: under the slack
    assert stalls(_split(4 * 0.080 + STALL_SECONDS * 0.9, rtt=0.080)) == []  # 4 round trips of 80 ms, plus slack
    (slow,) = stalls(_split(4 * 0.080 + STALL_SECONDS * 1.5, rtt=0.080))
    assert slow.trips is not None and round(slow.trips, 1) == round(slow.seconds / 0.080, 1)


def test_a_merged_phase_counts_the_round_trips_of_both_and_takes_the_causes_of_its_last() -> None:
    """Behind a ProxyCommand ssh prints no `Connection established.`: start and version are one phase, read as
    its names, never by taking apart the joined "start+version" the outputs write."""
    merged = Phase((PhaseName.START, PhaseName.VERSION), 1.2)
    found = PhaseSplit("command:true:setup", 1.2, (merged,), 3, 0.080, {})
    (stall,) = stalls(found)
    assert stall.names == merged.names and stall.expected == 2 and stall.phase == merged.name == "start+version"
    assert stall.causes.startswith("on the server, before its banner")
    assert merged.last is PhaseName.VERSION and merged.words == "ssh start-up and TCP connect + version exchange"
