"""Check generated configs with the real tools before anyone sees them.

The client block must pass `ssh -G -F FILE` and the drop-in must pass
`sshd -t` when Included into a real config, and both must read back exactly
the lists that were written (a silently ignored line would be a lie).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from sshbench.algorithms import ALGORITHM_KINDS
from sshbench.analysis.recommend import KEYWORDS, Recommendation, build, client_block, prediction, server_dropin
from sshbench.results.environment import ServerKind, TerrapinFacts
from sshbench.results.model import Report
from sshbench.targets.base import EmbeddedServer
from sshbench.targets.discovery import ClientInfo, lists_from_dump, parse_dump, run_tool


def _mismatches(rec: Recommendation, dump_text: str, who: str) -> list[str]:
    lists = lists_from_dump(parse_dump(dump_text))
    problems = []
    for kind, keyword in KEYWORDS.items():
        line = next((ln for ln in rec.lines if ln.keyword == keyword and ln.names), None)
        if line is not None and list(lists.of(kind)) != line.names:
            problems.append(f"{who} read back {keyword} as {','.join(lists.of(kind)) or 'nothing'}")
    return problems


def matching_host(pattern: str) -> str:
    """A host name the Host pattern list matches (first positive pattern, wildcards filled in)."""
    positive = next((p for p in pattern.split() if not p.startswith("!")), "*")
    return positive.replace("*", "sshbench-validate").replace("?", "x")


def validate_client_block(ssh: str, text: str, rec: Recommendation, host: str = "*") -> list[str]:
    """Problems with the client block, empty when `ssh -G -F` accepts it and reads it back unchanged."""
    with tempfile.TemporaryDirectory(prefix="sshbench-validate-") as tmp:
        path = os.path.join(tmp, "ssh_config")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        done = run_tool([ssh, "-G", "-F", path, matching_host(host)])
    if done.returncode != 0:
        return [f"ssh -G rejects the client block: {done.stderr.strip().splitlines()[-1:]}"]
    return _mismatches(rec, done.stdout, "ssh -G")


def validate_server_dropin(server: EmbeddedServer, text: str, rec: Recommendation) -> list[str]:
    """Problems with the drop-in, empty when `sshd -t` accepts it and `sshd -T` reads it back unchanged."""
    done = server.check_dropin(text)
    if done.returncode != 0:
        return [f"sshd -t rejects the drop-in: {done.stderr.strip().splitlines()[-1:]}"]
    return _mismatches(rec, done.stdout, "sshd -T")


@dataclass
class CheckedRecommendation:
    """A recommendation with its texts and what validation found; show the texts only without problems."""

    rec: Recommendation
    client_text: str
    server_text: str
    problems: list[str]
    prediction: list[str]
    terrapin: TerrapinFacts | None


def checked_recommendation(report: Report, client: ClientInfo, server: EmbeddedServer, policy: str,
                    host: str) -> CheckedRecommendation:
    """Build and validate; the texts are only shown when both validations pass."""
    terrapin = report.environment.terrapin
    rec = build(report, policy, strict_both=terrapin.protected if terrapin else None)
    client_text, server_text = client_block(rec, host), server_dropin(rec)
    problems = (validate_client_block(client.path, client_text, rec, host)
                + validate_server_dropin(server, server_text, rec))
    defaults = server.defaults if any(server.defaults.of(k) for k in ALGORITHM_KINDS) else None
    if report.environment.server.kind is ServerKind.REMOTE:  # what that server offers, from its KEXINIT
        defaults = report.environment.algorithms.server_enabled
    return CheckedRecommendation(rec, client_text, server_text, problems, prediction(report, rec, defaults), terrapin)
