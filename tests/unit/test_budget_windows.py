"""The budget's guess before measuring knows each upload's receiver window (issue 65): Dropbear's 24 KiB over a
long round trip moves a fraction of the line rate, and a budget the line rate let through ran out in the
warm-up, after measuring, with "nothing was measured"."""

from __future__ import annotations

from typing import Literal

import pytest

from sshbench.implementations import DROPBEAR
from sshbench.options import RunOptions
from sshbench.plan.budget import minimum_before
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.vocabulary.linkspec import parse_label

LINK = parse_label("rtt=77ms,rate=56mbit,loss=1.96%,mtu=1500,cc=bbr")  # BBR: no loss-paced guess (losspace.py)
UP = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="chacha20-poly1305@openssh.com", link=LINK.label, streams=4)


def test_a_small_receive_window_lengthens_the_guess_by_what_it_lets_through() -> None:
    options = RunOptions(links=(LINK,), data="random", time_budget_seconds=90.0)
    rtt = {LINK.label: 0.077}
    window = DROPBEAR.receive_window
    assert window is not None and window < 64 * 1024
    line = minimum_before([UP], options, rtt)[UP]
    windowed = minimum_before([UP], options, rtt, windows=lambda case: window)[UP]
    assert line < 90 < windowed, (line, windowed)  # the line rate fit the budget; the window does not
    # the bytes are the same, so the ratio of the guesses is at most that of the rates
    rate_line, rate_window = LINK.payload_bytes_per_second() or 0, 4 * window / 0.077
    assert windowed / line <= rate_line / rate_window


def test_a_lossy_sample_lasts_long_enough_for_the_long_run_pace_on_a_short_round_trip_too() -> None:
    """One stream over rtt=3ms with 0.04% loss read 0.83 of the hand in 100 round trips (0.3 s): its pace grows
    for seconds. Over 20 ms and more, 100 round trips are already as long; several streams keep their 4 s."""
    from sshbench.plan.budget import LOSSY_ONE_STREAM_SECONDS, LOSSY_STEADY_RTTS, steady_seconds

    short, long_ = parse_label("rtt=3ms,loss=0.04%"), parse_label("rtt=40ms,loss=1%")
    assert steady_seconds(short, 1) == LOSSY_ONE_STREAM_SECONDS > LOSSY_STEADY_RTTS * short.rtt_seconds
    assert steady_seconds(long_, 1) == LOSSY_STEADY_RTTS * long_.rtt_seconds >= LOSSY_ONE_STREAM_SECONDS
    assert steady_seconds(short, 4) >= steady_seconds(short, 1)
    assert steady_seconds(parse_label("rtt=3ms"), 1) < LOSSY_ONE_STREAM_SECONDS  # no loss: no pace to wait for


def test_a_loss_based_control_s_pace_sizes_the_warm_up_and_the_guess_before_any_sample() -> None:
    """rtt=20ms, 0.5% loss, MTU 1500 under CUBIC: one stream by hand 1.12 MB/s, so a 64-MiB warm-up took a minute
    and a 90-s run measured nothing in 140 s. Mathis et al.'s MSS / RTT x sqrt(3/2) / sqrt(p) (1.21 MB/s there)
    sizes the warm-up to about 8 s and makes the guess refuse that budget before anything runs; BBR, which does
    not back off on loss, and a loss-free link get no such estimate."""
    from sshbench.plan.budget import STEADY_AFTER, WARMUP_LINE_SECONDS, known_pace, warmup_bytes
    from sshbench.plan.losspace import loss_paced

    cubic, bbr = parse_label("rtt=20ms,loss=0.5%,mtu=1500,cc=cubic"), parse_label("rtt=20ms,loss=0.5%,cc=bbr")
    one, four = (Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com", link=cubic.label,
                      streams=n) for n in (1, 4))
    options = RunOptions(links=(cubic, bbr))
    pace = loss_paced(cubic)
    assert pace is not None and 1.1e6 < pace < 1.3e6
    assert known_pace(cubic, four, options) == loss_paced(cubic, 4) == 4 * pace
    jumbo = loss_paced(parse_label("rtt=20ms,loss=0.5%,cc=cubic,mtu=9000"))
    assert jumbo is not None and jumbo / pace == pytest.approx((9000 - 52) / (1500 - 52))  # 6x the payload per loss
    assert loss_paced(bbr) is None and loss_paced(parse_label("rtt=20ms,cc=cubic")) is None
    floor = 2 * STEADY_AFTER  # a steady window's: 16 MiB a stream
    assert warmup_bytes(one, options) == max(int(pace * WARMUP_LINE_SECONDS), floor) < options.warmup_bytes
    assert minimum_before([one], RunOptions(links=(cubic,), time_budget_seconds=90.0), {cubic.label: 0.02})[one] > 90


def test_the_window_holds_what_crosses_the_channel_so_an_external_compressor_s_text_is_not_windowed() -> None:
    """A Dropbear lz4 upload of text over rtt=7ms, refused before measuring in a 90-s budget (the scenario sweep,
    seed 2096850650): the guess windowed its payload, but lz4's output is what crosses the 24 KiB window, at a
    ratio nobody knows before measuring. SSH's zlib compresses below the channel, so its payload is windowed;
    random data does not compress, so lz4 over it is windowed too."""
    link = parse_label("rtt=7ms,mtu=1500")
    window = DROPBEAR.receive_window

    def guess(compression: str, data: Literal["text", "random"] = "text") -> float:
        case = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="chacha20-poly1305@openssh.com", link=link.label,
                    compression=compression)
        chosen = RunOptions(links=(link,), data=data, time_budget_seconds=90.0)
        return minimum_before([case], chosen, {link.label: 0.007}, windows=lambda case: window)[case]

    assert guess("lz4:1") < guess("off") / 2  # the window bounds the plain stream, not lz4's unknown ratio
    assert guess("ssh") == pytest.approx(guess("off"))  # SSH's zlib: the channel carries the payload as is
    assert guess("lz4:1", data="random") == pytest.approx(guess("off", data="random"))  # nothing to compress
