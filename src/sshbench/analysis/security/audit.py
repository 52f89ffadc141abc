"""A server's offer judged as a whole, as ssh-audit does: clean, weak, or broken, and why.

`sshbench algos HOST` is the check people script ("does this server still
offer anything broken?"), so its exit status says what it found: 0 for a
clean offer, one code for weak names, another for broken ones or a
connection Terrapin can attack (cli/algos.py, --fail-on). Only the
server's offer counts: the client's list is what this machine's ssh
supports, not a configuration anyone chose. The embedded server enables
every algorithm on purpose, so it is shown but never judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sshbench.results.environment import TerrapinFacts
from sshbench.vocabulary.algorithms import ALGORITHM_KINDS, AlgorithmLists, Grade, lookup


class Severity(StrEnum):
    CLEAN = "clean"
    WEAK = "weak"  # a weak name offered (SHA-1, small groups, CBC ...): a warning
    BROKEN = "broken"  # a broken name offered, or the server open to Terrapin: a failure
    UNUSABLE = "unusable"  # a list with no name in it: no client can connect at all

    @property
    def order(self) -> int:
        return (Severity.CLEAN, Severity.WEAK, Severity.BROKEN, Severity.UNUSABLE).index(self)


@dataclass(frozen=True)
class Audit:
    severity: Severity
    findings: tuple[str, ...]  # one line per problem, worst first


def audit(offered: AlgorithmLists, terrapin: TerrapinFacts) -> Audit:
    """The verdict on a server's offer (module docstring)."""
    broken: list[str] = []
    weak: list[str] = []
    for kind in ALGORITHM_KINDS:
        for name in offered.of(kind):
            grade = lookup(name, kind).grade
            if grade is Grade.BROKEN:
                broken.append(f"{name} ({kind.value})")
            elif grade is Grade.WEAK:
                weak.append(f"{name} ({kind.value})")
    findings = []
    empty = [kind.value for kind in ALGORITHM_KINDS if not offered.of(kind)]
    if empty:  # RFC 4253 7.1: each name-list must hold at least one name; with none, nothing can be agreed
        findings.append(f"offers no {', no '.join(empty)}: no client can connect (RFC 4253 7.1 requires at least "
                        "one name in each list)")
    if terrapin.server is not None and terrapin.server.exploitable:
        findings.append(f"Terrapin (CVE-2023-48795): {terrapin.server.reason}")
    if broken:
        findings.append("broken, offered: " + ", ".join(broken))
    if weak:
        findings.append("weak, offered: " + ", ".join(weak))
    severity = Severity.UNUSABLE if empty else \
        Severity.BROKEN if broken or (terrapin.server is not None and terrapin.server.exploitable) else \
        Severity.WEAK if weak else Severity.CLEAN
    return Audit(severity, tuple(findings))
