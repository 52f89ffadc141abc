"""What limited a report's fastest transfers, as the Findings hold it: the facts' `limit:` lines and each host's.

analysis/physics/advice.py judges one direction's fastest pipe cipher (limit_of: a
CPU at a full core, SSH's window per round trip, a small window on
loopback, a full link). The facts around the tables said that verdict for
every direction, every --client and, in a run of several servers, every
server's own view with what its window variants moved beside it; the
hosts table judged each host again. Those were drawn where they were
shown (render/facts.py, render/hosts.py); here they are drawn once per
report, for analysis/conclude.py, and every output lays out the same
values. So is each emulated link's SSH window (whose receiver, how large:
analysis/physics/windows.py), which the links overview divides by the link's RTT.
"""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.analysis.physics.advice import Limit, limit_of
from sshbench.analysis.physics.windows import receive_window, variant_ratios
from sshbench.results.model import Report
from sshbench.results.views import builds_of, compares_servers, per_server

DIRECTIONS = ("upload", "download")


@dataclass(frozen=True)
class LimitFinding:
    """What limited one direction's fastest pipe cipher (of the run's ssh, or of one --client's cases)."""

    limit: Limit
    server: str = ""  # --server a,b: the server side whose own view it was judged in ("": the run's one server)
    beside: tuple[str, ...] = ()  # ... and what each window variant of that server moved in the same case

    @property
    def text(self) -> str:
        """The verdict's sentence, with what the variants moved beside it (the words are
        analysis/physics/advice.py's)."""
        return "; ".join([self.limit.text, *self.beside])


def _of(report: Report, whole: Report | None = None) -> list[LimitFinding]:
    """Per direction the run's ssh's, then each --client's per direction; `report` a server side's view of `whole`
    (--server a,b): each of the former with what that server's window variants moved in its case."""
    side = report.environment.builds[0].name if report.environment.builds and whole is not None else ""
    found = [LimitFinding(limit, side, tuple(variant_ratios(whole, side, limit.case_id)) if whole is not None and side
                          else ()) for direction in DIRECTIONS if (limit := limit_of(report, direction)) is not None]
    return found + [LimitFinding(limit, side) for c in report.environment.clients for direction in DIRECTIONS
                    if (limit := limit_of(report, direction, c.name)) is not None]


def limit_findings(report: Report) -> tuple[LimitFinding, ...]:
    """What limited the fastest transfers, in the order the facts say it: the run's (one server), or each server's
    from its own view (--server a,b)."""
    if not compares_servers(report):
        return tuple(_of(report))
    return tuple(found for view in per_server(report) for found in _of(view, report))



@dataclass(frozen=True)
class LinkWindow:
    """One emulated link's SSH window per direction: what one channel of the run's first side has in flight there
    (bytes; None where the window is not known), which per round trip is all it can carry."""

    link: str
    upload: int | None
    download: int | None


def link_windows(report: Report) -> tuple[LinkWindow, ...]:
    """Each emulated link's window for the pipe, as the links overview shows it (the run's first side's)."""
    build = next(iter(builds_of(report)), "")
    return tuple(LinkWindow(link.label, *(receive_window(report, direction, build=build, link=link.label)
                                          for direction in DIRECTIONS)) for link in report.environment.links)
