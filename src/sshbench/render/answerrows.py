"""The answers with the ranked rows they were chosen from: what the answer chart draws and the line under it says.

The chart (answerchart.py, matplotlib) and its one line of verdict (here, no matplotlib) read the same rows
(the page shows the line under the chart only: without a chart, the answer's full text stands alone), so
the picture and the words cannot disagree. Everything comes from the Findings (analysis/findings.py): each
answer with the ranked rows it was chosen from, as the tables rank them; nothing is concluded here.
"""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.analysis.findings import Answer, Findings
from sshbench.render.cells import rank_cell
from sshbench.render.labels import mbps
from sshbench.render.verdict import place, verdict_words
from sshbench.results.model import Stat

NAME = "answer"  # the answer chart's file stem (--charts DIR) and, as chart-answer, its element id in the HTML page


@dataclass(frozen=True)
class AnswerRows:
    """One answer and the ranked cipher cases of its table: names, throughput, rank marks, this client's default."""

    answer: Answer
    names: tuple[str, ...]
    stats: tuple[Stat, ...]
    marks: tuple[str, ...]  # each row's rank cell as the tables write it: "1", "≈", "?"
    default: str | None  # this client's default cipher, where the run measured it


def answer_rows(found: Findings) -> list[AnswerRows]:
    """Every answer with its rows, in the answers' order (a run of several servers: each server's rows and default
    are its own, as conclude() read them from that server's view)."""
    out = []
    for cipher in found.ciphers:
        rows = [(name, s, stat) for name, s in cipher.ranked if (stat := s.throughput_bytes_per_second) is not None]
        out.append(AnswerRows(cipher.answer, tuple(name for name, _, _ in rows), tuple(stat for _, _, stat in rows),
                              tuple("".join(span.text for span in rank_cell(s)) for _, s, _ in rows), cipher.default))
    return out


def short_line(rows: AnswerRows, margin: float) -> str:
    """One answer in one line, under its chart: the pick, its rate, and each comparison's ratio and verdict (the
    note where there is nothing to compare it with: the only safe cipher measured)."""
    answer = rows.answer
    pick = f"{place(answer)}: {answer.best}, {mbps(answer.rate)} MB/s"
    if not answer.comparisons:
        return "; ".join([pick, *([answer.note] if answer.note else [])])
    default = ", this client's default already" if answer.best == rows.default else ""
    return "; ".join([pick + default, *(f"{c.ratio:.2f}x {c.role} ({c.other}): {verdict_words(c, margin)}"
                                        for c in answer.comparisons)])


def short_lines(found: list[AnswerRows], margin: float) -> list[str]:
    return [short_line(rows, margin) for rows in found]
