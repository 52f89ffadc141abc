"""The Terrapin verdicts and the recommended configs on the terminal (texts come ready-made)."""

from __future__ import annotations

from rich.console import Console

from sshbench.analysis.findings import CheckedRecommendation
from sshbench.implementations import implementation
from sshbench.render.lockout import lockout_table
from sshbench.render.terminal import rich_table
from sshbench.results.environment import TerrapinFacts


def print_terrapin(out: Console, terrapin: TerrapinFacts | None) -> None:
    if terrapin is None:
        return
    _verbatim(out, "Terrapin (CVE-2023-48795), from each side's first KEXINIT:", "bold")
    for side, t in (("client", terrapin.client), ("server", terrapin.server)):
        if t is None:  # behind a proxy the server's KEXINIT cannot be read
            _verbatim(out, f"  {side}: unknown ({terrapin.note or 'its KEXINIT was not read'})", "yellow")
            continue
        style = "red" if t.exploitable else "green" if t.strict_kex else "yellow"
        _verbatim(out, f"  {side}: {t.banner}: {t.reason}", style)
    verdict = ("protected (both ends strict)" if terrapin.protected else
               "unknown" if terrapin.server is None else "NOT protected")
    _verbatim(out, f"  connection {verdict}")


def _verbatim(out: Console, text: str, style: str | None = None) -> None:
    """Config text exactly as written: never wrapped or cropped at the terminal's width, piped or not.

    A hard line break inside `KexAlgorithms a,b` makes a broken config for
    whoever copies it (issue: ssh -G "no argument after keyword").
    """
    out.print(text, style=style, soft_wrap=True, highlight=False, markup=False, emoji=False)


def print_recommendation(out: Console, advice: CheckedRecommendation, clients_table: bool = False) -> None:
    print_terrapin(out, advice.terrapin)
    if advice.problems:
        for problem in advice.problems:
            _verbatim(out, f"recommendation withheld: {problem}", "red")
        return
    rec = advice.rec
    if rec.exposure:
        _verbatim(out, rec.exposure, "bold red")
    _verbatim(out, f"\nRecommended client config (policy {rec.policy.name}; add at the END of ~/.ssh/config):",
              "bold")
    _verbatim(out, advice.client_text)
    if advice.server_text is not None and advice.dropin_withheld:
        _verbatim(out, "Server drop-in withheld: it would shut out clients that log in to this server today "
                  "(below); keep them with the default rule, leave them out with --clients, or write it anyway "
                  "with --allow-lockout", "bold red")
    elif advice.server_text is not None:
        place = implementation(rec.software)  # where its drop-in goes, and what else that needs, as it declares
        _verbatim(out, f"Recommended server drop-in ({place.dropin_path}), validated with its sshd -t:", "bold")
        if place.dropin_note:
            _verbatim(out, f"# {place.dropin_note}")
        directives = "\n".join(advice.server_directives)
        notes = "\n".join(f"# {note}" for note in advice.lockout_notes)
        _verbatim(out, "# (the same comment header as above; `sshbench recommend --write DIR` saves both files "
                  f"in full)\n{notes}\n{directives}\n")
    table = lockout_table(advice.lockout)
    if table is not None and clients_table:
        for part in rich_table(table, out.width):
            out.print(part)
    elif advice.server_advice:
        _verbatim(out, f"Server ({rec.software}): {advice.server_advice}", "bold")
    for line in advice.prediction:
        _verbatim(out, f"Effect (this client's defaults against what the server offers): {line}")
