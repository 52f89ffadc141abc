"""Over emulated links: what limited each case - a CPU, the link, or SSH's own flow-control window.

One SSH channel carries at most its receiver's window per round trip,
whatever the cipher (OpenSSH: channels.h, CHAN_SES_WINDOW_DEFAULT = 64 x
32 KiB = 2 MiB; sftp also keeps at most -R requests of -B bytes in flight,
64 x 32 KiB by default). So each case has three ceilings measured or
computed in the same run: a full core on either side (CPU s/GiB x rate),
raw TCP through the very same link (the control case of that link), and
window / measured RTT. The verdict names the one the case reached (80% of
it or more); a case that reached none is "below every limit" (its tool's
own round trips, or CPUs shared with other work) - never guessed.

analysis/views.py restricts a report to one link's cases, so every table
sshbench already draws can be drawn per link.
"""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.analysis.advice import (
    CPU_BOUND_SHARE,
    LINK_FULL_SHARE,
    WINDOW_BOUND_SHARE,
    core_shares,
    receive_window,
)
from sshbench.analysis.references import raw_tcp
from sshbench.results.environment import LinkFacts
from sshbench.results.model import CaseKind, Report, Stat


@dataclass(frozen=True)
class Bound:
    """What limited one case over one link, with the three ceilings it is compared with."""

    case_id: str
    link: str
    method: str
    cipher: str
    direction: str
    build: str  # "" without --build
    stat: Stat  # bytes/s of the data phase: median and its interval
    rtt: float | None  # measured on the link (median TCP connect time)
    window: int | None  # bytes one channel (or sftp's requests) may have in flight; None: not known
    tcp: float | None  # raw TCP through the same link, bytes/s (None: no control measured)
    shares: dict[str, float]  # side -> share of one core used while the data moved

    @property
    def rate(self) -> float:
        return self.stat.median

    @property
    def window_limit(self) -> float | None:
        return self.window / self.rtt if self.window and self.rtt else None

    @property
    def busy(self) -> list[str]:
        return [side for side, share in self.shares.items() if share >= CPU_BOUND_SHARE]

    @property
    def verdict(self) -> str:
        """cpu, window, link or none: the ceiling this case reached."""
        if self.busy:
            return "cpu"
        limits = {"window": self.window_limit, "link": self.tcp}
        reached = {name: limit for name, limit in limits.items()
                   if limit and self.rate >= (WINDOW_BOUND_SHARE if name == "window" else LINK_FULL_SHARE) * limit}
        if not reached:
            return "none"
        return min(reached, key=lambda name: reached[name] or 0.0)  # the tighter of the two it reached

    @property
    def short(self) -> str:
        """The cell text: the verdict with how close the case came to that ceiling."""
        if self.verdict == "cpu":
            return f"CPU ({'+'.join(self.busy)})"
        if self.verdict == "window" and self.window_limit:
            return f"window {self.rate / self.window_limit:.0%}"
        if self.verdict == "link" and self.tcp:
            return f"link {self.rate / self.tcp:.0%}"
        return "below limits"

    @property
    def text(self) -> str:
        said = [f"{self.rate / 1e6:,.1f} MB/s"]
        if self.window_limit and self.window:
            said.append(f"window limit {self.window // 1024} KiB / {self.rtt * 1000:.1f} ms = "  # type: ignore[operator]
                        f"{self.window_limit / 1e6:,.1f} MB/s ({self.rate / self.window_limit:.0%})")
        if self.tcp:
            said.append(f"raw TCP {self.tcp / 1e6:,.1f} MB/s ({self.rate / self.tcp:.0%})")
        said += [f"{side} {share:.0%} of a core" for side, share in self.shares.items()]
        verdict = {"cpu": f"CPU-bound on the {' and '.join(self.busy)}",
                   "window": "window-bound: SSH's flow control, not the cipher or the link, set the pace",
                   "link": "link-bound: SSH carried nearly what raw TCP did",
                   "none": "below every limit measured: the tool's own round trips, or CPUs shared with other work"}
        return f"{', '.join(said)}: {verdict[self.verdict]}"


def link_facts(report: Report, label: str) -> LinkFacts | None:
    return next((link for link in report.environment.links if link.label == label), None)


def bounds(report: Report) -> list[Bound]:
    """A Bound for every measured throughput case that crossed an emulated link."""
    tcp = raw_tcp(report)
    found = []
    views = report.joined()
    for summary in report.summaries:
        case = views[summary.case_id].case
        stat = summary.throughput_bytes_per_second
        if not case.link or stat is None or case.kind not in (CaseKind.CIPHER, CaseKind.MAC):
            continue
        facts = link_facts(report, case.link)
        subject = case.subject if case.kind is CaseKind.CIPHER else f"{case.cipher} + {case.mac}"
        link_tcp = tcp.get(case.link)
        window = receive_window(report, case.direction.value, case.method, case.build, case.link)
        found.append(Bound(case.id, case.link, case.method, subject, case.direction.value, case.build, stat,
                           facts.rtt_seconds if facts else None, window, link_tcp.median if link_tcp else None,
                           core_shares(summary, stat.median)))
    return found
