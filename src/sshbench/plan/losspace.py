"""What a loss-based congestion control lets a lossy path carry, known before anything is measured.

Why: a link with loss and no `rate=` gave the plan no pace at all, so its warm-ups moved the fixed 64 MiB and
its budget guess assumed loopback speed. Over `rtt=20ms,loss=0.5%,mtu=1500,cc=cubic` one stream moves about
1.1 MB/s (by hand from one shell, AMD EPYC: 1.12 MB/s; raw TCP in sshbench's warm-up 1.05), so the raw TCP
warm-up took 63 s, one stream's 61 s, and a 90-s run measured nothing in 140 s. A loss-based control's pace is
known from the path alone: Mathis, Semke, Mahdavi and Ott, "The macroscopic behavior of the TCP congestion
avoidance algorithm" (ACM CCR 27(3), 1997) give a stream's rate as MSS / RTT x C / sqrt(p), C = sqrt(3/2) for
periodic loss. That is 1.21 MB/s there and 7.5 MB/s at MTU 9000 (the hand: 6.77). CUBIC is at most that much
faster on such short paths (its gain over Reno is in the BDP it can reach between losses). BBR does not back off
on loss (the hand: 44.7 MB/s at MTU 1500), so it gets no estimate, nor does a control sshbench does not know.

The estimate only sizes and times (the warm-up, the guess, how long a sample may take): it is never a ceiling a
sample is judged against, and what the run measures replaces it after the first sample.
"""

from __future__ import annotations

import functools
import math

from sshbench.plumbing.tcpinfo import default_congestion
from sshbench.vocabulary.linkspec import LOSS_BASED, TCP_HEADER_BYTES, LinkSpec

MATHIS_C = math.sqrt(1.5)  # periodic loss, delayed ACKs off (Mathis et al. 1997, eq. 3)


@functools.cache
def _host_default() -> str | None:
    """The congestion control the links get where `cc=` names none: the host's (a new namespace starts with it)."""
    return default_congestion()


def loss_paced(link: LinkSpec, streams: int = 1) -> float | None:
    """Payload bytes/s that `streams` streams carry over `link` under a loss-based congestion control (Mathis et
    al.), where the link loses packets and has a round trip; None where no such estimate holds (no loss, a
    model-based or unknown control)."""
    if not link.loss or link.rtt_seconds <= 0 or (link.congestion or _host_default()) not in LOSS_BASED:
        return None
    mss = link.mtu - TCP_HEADER_BYTES
    return streams * mss / link.rtt_seconds * MATHIS_C / math.sqrt(link.loss)
