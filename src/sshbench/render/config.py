"""The Terrapin verdicts and the recommended configs on the terminal (texts come ready-made)."""

from __future__ import annotations

from rich.console import Console

from sshbench.analysis.validate import CheckedRecommendation
from sshbench.results.environment import TerrapinFacts


def print_terrapin(out: Console, terrapin: TerrapinFacts | None) -> None:
    if terrapin is None:
        return
    out.print("Terrapin (CVE-2023-48795), from each side's first KEXINIT:", style="bold", highlight=False)
    for side, t in (("client", terrapin.client), ("server", terrapin.server)):
        if t is None:  # behind a proxy the server's KEXINIT cannot be read
            out.print(f"  {side}: unknown ({terrapin.note or 'its KEXINIT was not read'})", style="yellow",
                      highlight=False, markup=False)
            continue
        style = "red" if t.exploitable else "green" if t.strict_kex else "yellow"
        out.print(f"  {side}: {t.banner}: {t.reason}", style=style, highlight=False, markup=False)
    verdict = ("protected (both ends strict)" if terrapin.protected else
               "unknown" if terrapin.server is None else "NOT protected")
    out.print(f"  connection {verdict}", highlight=False)


def print_recommendation(out: Console, advice: CheckedRecommendation) -> None:
    print_terrapin(out, advice.terrapin)
    if advice.problems:
        for problem in advice.problems:
            out.print(f"recommendation withheld: {problem}", style="red", highlight=False, markup=False)
        return
    out.print(f"\nRecommended client config (policy {advice.rec.policy}; add at the END of ~/.ssh/config):",
              style="bold", highlight=False)
    out.print(advice.client_text, highlight=False, markup=False)
    out.print("Recommended server drop-in (/etc/ssh/sshd_config.d/50-sshbench.conf), validated with sshd -t:",
              style="bold", highlight=False)
    directives = "\n".join(line for line in advice.server_text.splitlines() if not line.startswith("#"))
    out.print(f"# (the same comment header as above; `sshbench recommend --write DIR` saves both files in full)\n"
              f"{directives}\n", highlight=False, markup=False)
    for line in advice.prediction:
        out.print(f"Effect with OpenSSH's defaults on both ends: {line}", highlight=False, markup=False)
