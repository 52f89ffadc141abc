"""How a sample's steady state was timed, and what its sending TCP sockets did meanwhile.

`Basis` names where the bytes of a steady window were counted (measure/
steady.py): DELIVERED, by the receivers (our sink for a download, the
embedded server's `wc -c` for an upload), or SENT, by the writer while
every stream's buffers were full (a real host's upload, whose receiver we
cannot read). Every sample of one path and direction shares a basis.

`TcpFacts` are the sending sockets' own counters over that window, all
streams together (plumbing/tcpinfo.py reads them): how many data segments
went out and how many of them were resent, how long the senders had data
to send and how much of that time the receiver's window or their own
buffer held them back, and the congestion window and RTT at the window's
end. They name a loss limiter from what TCP did, not from the link's
settings (analysis/physics/links.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from sshbench.plumbing.tcpinfo import TcpInfo


class Basis(StrEnum):
    DELIVERED = "delivered"
    SENT = "sent"


@dataclass(frozen=True)
class TcpFacts:
    """The sending sockets of one sample over its steady window (sums over its streams, ends at the close)."""

    congestion: str  # the congestion control the senders used ("bbr", "cubic" ...; "bbr+cubic" if they differed)
    segments: int  # data segments sent in the window, resent ones included
    retransmitted: int  # segments resent in the window
    busy_seconds: float  # time the senders had data to send (summed over streams)
    rwnd_limited_seconds: float  # ... held back by the receiver's TCP window
    sndbuf_limited_seconds: float  # ... held back by their own send buffer
    cwnd_bytes: int  # congestion windows at the close, all streams together (segments x MSS)
    rtt_seconds: float  # smoothed RTT at the close, the streams' mean

    @property
    def loss(self) -> float | None:
        """The share of data segments resent in the window (None: none sent)."""
        return self.retransmitted / self.segments if self.segments else None

    @classmethod
    def between(cls, opened: Sequence[TcpInfo | None], closed: Sequence[TcpInfo | None]) -> TcpFacts | None:
        """The facts from each stream's counters at the window's open and near that stream's end, over the
        streams read both times (a stream whose end came first, or whose socket could not be read, is left
        out: shares such as the loss do not depend on how many streams give them); None where none was."""
        pairs = [(o, c) for o, c in zip(opened, closed, strict=True) if o is not None and c is not None]
        if not pairs:
            return None
        names = sorted({c.congestion for _, c in pairs})
        return cls(congestion="+".join(names),
                   segments=sum(max(0, c.data_segs_out - o.data_segs_out) for o, c in pairs),
                   retransmitted=sum(max(0, c.total_retrans - o.total_retrans) for o, c in pairs),
                   busy_seconds=sum(max(0.0, c.busy - o.busy) for o, c in pairs),
                   rwnd_limited_seconds=sum(max(0.0, c.rwnd_limited - o.rwnd_limited) for o, c in pairs),
                   sndbuf_limited_seconds=sum(max(0.0, c.sndbuf_limited - o.sndbuf_limited) for o, c in pairs),
                   cwnd_bytes=sum(c.cwnd * c.mss for _, c in pairs),
                   rtt_seconds=sum(c.rtt for _, c in pairs) / len(pairs))
