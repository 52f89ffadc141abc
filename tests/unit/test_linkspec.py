"""--link parsing: the grammar, its limits, and labels that parse back to the same link."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.analysis.physics.links import Bound
from sshbench.cli.parser import options_from_args, parse
from sshbench.results.model import Stat
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.linkspec import LinkSpec, parse_label, parse_links


def test_a_list_sweeps_and_keys_combine() -> None:
    assert [link.label for link in parse_links("rtt=0,20ms,80ms")] == ["rtt=0", "rtt=20ms", "rtt=80ms"]
    both = parse_links("rtt=5ms,rate=100mbit,1gbit,loss=0.1%")
    assert [link.label for link in both] == ["rtt=5ms,rate=100mbit,loss=0.1%", "rtt=5ms,rate=1gbit,loss=0.1%"]
    assert both[0].rate_bits == 100e6 and both[0].loss == pytest.approx(0.001)
    assert parse_links("rtt=200us")[0].rtt_seconds == pytest.approx(200e-6)
    assert parse_links("rtt=0")[0].plain and not parse_links("rtt=0,rate=10mbit")[0].plain


@pytest.mark.parametrize("text, said", [
    ("rtt=20", "give a number and a unit"), ("rate=1gbit", "say the round-trip time"),
    ("rtt=1ms,rtt=2ms", "given twice"),
    ("speed=1", "use rtt, rate, loss, jitter"), ("rtt=20ms,,", "an empty item"), ("20ms", "start with a key"),
    ("rtt=11s", "at most 10s"), ("rtt=1ms,loss=60%", "up to 50%"), ("rtt=1ms,jitter=2ms", "keep jitter"),
    ("rtt=1ms,rate=10", "use kbit, mbit or gbit"), ("rtt=" + ",".join(f"{n}ms" for n in range(13)), "at most 12"),
    ("rtt=1ms;reboot", "give a number and a unit"), ("rtt=-5ms", "cannot be negative"),
    ("rtt=0.00001ms", "whole microseconds"), ("rtt=20.00001ms,20.00002ms", "whole microseconds"),
    ("rtt=1ms,rate=64.0000001kbit", "whole bits"), ("rtt=1ms,loss=0.00001%", "at most 4 decimals"),
])
def test_bad_links_are_one_clear_error(text: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_links(text)


times = st.integers(0, 10_000).map(lambda us: us / 1e6) | st.integers(1, 9000).map(lambda ms: ms / 1e3)


@given(rtt=times, rate=st.none() | st.integers(64, 400_000).map(lambda k: k * 1000.0),
       loss=st.integers(0, 500).map(lambda p: p / 1000), jitter_share=st.integers(0, 100))
def test_labels_parse_back_to_the_same_link(rtt: float, rate: float | None, loss: float, jitter_share: int) -> None:
    jitter = round(rtt * jitter_share / 100 * 1e3) / 1e3 if rtt >= 1e-3 else 0.0
    link = LinkSpec(rtt, rate, loss, min(jitter, rtt))
    again = parse_label(link.label)
    assert again.label == link.label
    assert again.rtt_seconds == pytest.approx(link.rtt_seconds) and again.loss == pytest.approx(link.loss)
    assert (again.rate_bits is None) == (link.rate_bits is None)


@given(rtt_us=st.integers(0, 10_000_000), rate=st.none() | st.integers(64_000, 400_000_000_000),
       loss=st.integers(0, 500_000), jitter_us=st.integers(0, 10_000_000))
def test_every_valid_link_has_an_exact_label_of_its_own(rtt_us: int, rate: int | None, loss: int,
                                                        jitter_us: int) -> None:
    """Whole microseconds, whole bits, 4 decimals of a percent: the label is exact, so two links never share
    one (a results file with two cases of one id would not load) and it parses back to the very same link."""
    link = LinkSpec(rtt_us / 1e6, float(rate) if rate else None, loss / 1e6, min(jitter_us, rtt_us) / 1e6)
    again = parse_label(link.label)
    assert again == link, link.label
    neighbour = LinkSpec((rtt_us + 1) / 1e6, link.rate_bits, link.loss, link.jitter_seconds)
    assert neighbour.label != link.label


def test_a_stored_label_must_name_one_link() -> None:
    with pytest.raises(UsageError, match="names 2 links"):
        parse_label("rtt=1ms,2ms")


def _bound(rate: float, tcp: float | None = 130e6, shares: dict[str, float] | None = None) -> Bound:
    return Bound("c", "rtt=20ms", "pipe", "aes128-ctr", "upload", "", Stat(rate, rate, rate, rate, 0.0, 6), 0.020,
                 2 * 1024 * 1024, tcp,
                 shares or {"client": 0.3, "server": 0.4})


def test_verdicts_name_the_ceiling_reached() -> None:
    assert _bound(85e6).verdict == "window"  # 81% of 2 MiB / 20 ms, raw TCP 130 MB/s: the window
    assert _bound(85e6, tcp=90e6).verdict == "link"  # raw TCP is the tighter ceiling it reached
    assert _bound(30e6).verdict == "none"
    assert _bound(85e6, shares={"client": 0.3, "server": 0.95}).verdict == "cpu"
    assert _bound(85e6).short == "window 81%"


def test_a_case_below_every_limit_says_how_busy_the_emulator_found_its_line() -> None:
    import dataclasses

    idle = dataclasses.replace(_bound(30e6), line_full=0.8)
    assert idle.verdict == "none" and idle.short == "below limits, line busy 80%"
    assert "line busy 80% of the time (the emulator's count)" in idle.text
    assert _bound(30e6).short == "below limits", "no emulated line with a rate: nothing said of it"


def test_a_failed_echo_session_is_listed_with_its_error() -> None:
    from sshbench.analysis.conclude import conclude
    from sshbench.render.facts import problems
    from sshbench.results.model import EchoResult, Report

    report = Report("0.1.0", "", 1, echoes=[EchoResult("aes128-ctr", link="rtt=20ms", error="no readiness line"),
                                           EchoResult("aes128-ctr", ok=True, echo_seconds=[0.001])])
    found = [fact.text for fact in problems(conclude(report))]
    assert found == ["keystroke echo aes128-ctr @rtt=20ms: no readiness line"]


def test_repeated_link_options_add_up_in_order_each_link_once() -> None:
    """`--link A --link B` is both (it kept only the last, silently); the same link twice is measured once."""
    given = ["--link", "rtt=20ms", "--link", "rtt=80ms,rate=100mbit", "--link", "rtt=20ms"]
    options = options_from_args(parse(["run", *given]))
    assert [link.label for link in options.links] == ["rtt=20ms", "rtt=80ms,rate=100mbit"]
    with pytest.raises(UsageError, match="13 links in all; at most 12"):
        options_from_args(parse(["run", "--link", "rtt=1ms,2ms,3ms,4ms,5ms,6ms,7ms",
                                 "--link", "rtt=8ms,9ms,10ms,11ms,12ms,13ms"]))
