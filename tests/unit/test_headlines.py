"""An answer's headline is made in two parts, where it holds and what it says (render/labels.Headline): the
answer's lines print them joined, the facts list (HTML) labels by the one and states the other, and no renderer
splits the joined line on ": " to get them back."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path

from sshbench.analysis.answers.answer import answers
from sshbench.analysis.answers.remedies import path_answers
from sshbench.analysis.conclude import conclude
from sshbench.render.remedies import headline
from sshbench.render.verdict import _cipher_fact, answer_lines, place, verdict
from sshbench.results.model import Report
from sshbench.results.store import read_results

DATA = Path(__file__).resolve().parents[1] / "data"


def _report(tmp_path: Path) -> Report:
    path = tmp_path / "r.json"
    path.write_bytes(gzip.decompress((DATA / "results-rtt40-loss1-streams-1-4-8.json.gz").read_bytes()))
    return read_results(str(path))[0]


def test_the_facts_are_the_headlines_parts_as_made_and_the_lines_print_them_joined(tmp_path: Path) -> None:
    report = _report(tmp_path)
    found = conclude(report)
    (link,) = path_answers(report)
    (cipher,) = answers(report)
    facts = {fact.label: fact.text for fact in verdict(found)}
    made = headline(link)
    assert made.where == "upload across rtt=40ms,loss=1%" and facts[made.where] == made.says
    assert made.says.startswith("aes128-gcm@openssh.com + 8 streams moved the most: ")
    assert facts[place(cipher)].startswith("chacha20-poly1305@openssh.com, ")
    assert f"{place(cipher)}: {facts[place(cipher)]}".startswith(answer_lines(found)[0])


def test_a_place_with_a_colon_in_it_stays_whole_in_its_label(tmp_path: Path) -> None:
    """Joined and split again, "upload a: b" would have labelled the fact "upload a" and begun its text "b: "."""
    (cipher,) = answers(_report(tmp_path))
    odd = dataclasses.replace(cipher, link="a: b")
    fact = _cipher_fact(odd, 0.05)
    assert fact.label == "upload a: b" and fact.text.startswith("chacha20-poly1305@openssh.com, ")
