"""The budget's guess before measuring knows each upload's receiver window (issue 65): Dropbear's 24 KiB over a
long round trip moves a fraction of the line rate, and a budget the line rate let through ran out in the
warm-up, after measuring, with "nothing was measured"."""

from __future__ import annotations

from sshbench.implementations import DROPBEAR
from sshbench.options import RunOptions
from sshbench.plan.budget import minimum_before
from sshbench.results.model import Case, CaseKind, Direction
from sshbench.vocabulary.linkspec import parse_label

LINK = parse_label("rtt=77ms,rate=56mbit,loss=1.96%,mtu=1500")
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
