"""How N parts of one transfer went: whether they shared one bottleneck or each went its own way.

Why it matters (measure/steady.py): the steady window of N streams counts
what the split still had to move when a quarter-sized split would have
ended, and where that split ends depends on the parts. Told from the
transfer's own tail: no setting, no guess from the link's description.
"""

from __future__ import annotations

# The shortest difference between a tail's two forecasts (shared bottleneck, independent parts) that tells them apart:
# a few of the marks' chunks at loopback rates, and a share of the window (independence())
SPREAD_SECONDS = 0.002
SPREAD_SHARE = 0.02
# Where the last arrival fell between the two forecasts, this close to one of them counts as it: a rate read over
# part of a window is noisy, and a regime that is one or the other should not be read as half of each
CLEAR = 0.25


def independence(sizes: list[int], at_open: list[float], at_first: list[float],
                 times: tuple[float, float, float]) -> float:
    """How far N parts went their own way, from how the transfer's tail went: 0 where the parts that ended
    first handed their share to the rest (one bottleneck: a CPU the streams share, one link), 1 where the rest
    kept their own pace (each part limited by itself: its window, its losses), in between by where the last
    arrival fell. `times`: the window's open, the first arrival, the last.

    Why it matters: a hand measurement's quarter-sized split ends when its last part does. Where the parts
    share a bottleneck, the parts done early free it for the laggard, so that split ends about when the bytes
    of a quarter are through, and which part lagged at the window's open is noise the rest of the transfer
    makes up (loopback, 4 streams on one CPU: the equal split read 1.05 of the hand, what was still to come
    1.00). Where the parts are independent, a laggard stays behind and the quarter split ends at the window's
    open (8 streams over 1% loss: what was still to come read 0.85, the equal split 0.92-1.05).

    Predicted from the state at the first arrival and each part's rate while all ran: shared, the rest end
    after their bytes at the rate all had together; independent, the slowest of them at its own rate. A tail
    too short to tell the two apart (under SPREAD_SECONDS or SPREAD_SHARE of the window) says the laggard
    caught up: shared. Within CLEAR of either forecast is that one."""
    opened, first, closed = times
    if len(sizes) < 2 or first <= opened:
        return 1.0
    rates = [(later - then) / (first - opened) for then, later in zip(at_open, at_first, strict=True)]
    rest = [(size - later, rate) for size, later, rate in zip(sizes, at_first, rates, strict=True) if size > later]
    if not rest:
        return 0.0
    if any(rate <= 0 for _, rate in rest) or sum(rates) <= 0:
        return 1.0  # a part that made no progress while all ran goes its own way (a stall)
    shared = first + sum(left for left, _ in rest) / sum(rates)
    alone = first + max(left / rate for left, rate in rest)
    if alone - shared < max(SPREAD_SECONDS, SPREAD_SHARE * (closed - opened)):
        return 0.0
    where = (closed - shared) / (alone - shared)  # 0 at the shared forecast, 1 at the independent one
    return min(1.0, max(0.0, (where - CLEAR) / (1 - 2 * CLEAR)))
