"""What a recommendation says of streams and compression: only what the run proved, and how to apply it.

- `Compression yes` goes into a real host's Host block only where SSH's own
  compression was measured significantly faster to that host in every
  direction measured; slower in any, and it stays off (ssh's default), with
  the figure in a comment. ssh_config has no per-link switch, so over
  emulated links the finding is a comment naming the links it held for.
- Parallel streams and external compressors are not ssh_config settings:
  the comments give the measured effect and the invocation that applies it
  (docs/streams.md, docs/compression.md), never a change that was not
  measured.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sshbench.analysis.answers.remedies import PathAnswer, Remedy, path_answers
from sshbench.results.model import Report


@dataclass(frozen=True)
class TransferAdvice:
    compression: bool  # write `Compression yes` (a real host, proven faster in every direction measured)
    notes: tuple[str, ...] = field(default_factory=tuple)  # comment lines


def _figure(remedy: Remedy, answer: PathAnswer) -> str:
    interval = f" [{remedy.low:.2f}, {remedy.high:.2f}]" if remedy.low is not None and remedy.high is not None else ""
    where = f" {answer.direction.value}" + ((f" across {answer.path}" if answer.link else f" to {answer.path}")
                                             if answer.path else " here")
    return f"{remedy.ratio:.2f}x{interval}{where}"


def _single(answers: list[PathAnswer], dimension: str) -> list[tuple[PathAnswer, Remedy]]:
    return [(a, r) for a in answers for r in a.remedies if r.dimensions == (dimension,)]


def transfer_advice(report: Report) -> TransferAdvice:
    answers = path_answers(report)
    remote = report.environment.server.remote is not None
    notes: list[str] = []
    ssh = [(a, r) for a, r in _single(answers, "compression") if r.case.compressor.is_ssh]
    faster = [f"{_figure(r, a)}" for a, r in ssh if r.faster]
    slower = [f"{_figure(r, a)}" for a, r in ssh if r.slower]
    directions = {a.direction for a, _ in ssh}
    write = remote and bool(ssh) and not slower and len(faster) == len(ssh) and len(directions) >= 1
    if write:
        notes.append(f"Compression yes: SSH's own zlib measured faster to this host ({'; '.join(faster)})")
    elif faster:
        notes.append(f"SSH compression (ssh -C, or Compression yes in those hosts' blocks) measured faster: "
                     f"{'; '.join(faster)}" + (f"; slower: {'; '.join(slower)}" if slower else "")
                     + ("" if remote else ": put it only in the Host blocks of hosts behind links like these"))
    elif slower:
        notes.append(f"Compression: left off, SSH's own zlib measured slower ({'; '.join(slower)})")
    for answer, remedy in _single(answers, "streams"):
        if remedy.faster:
            notes.append(f"{remedy.case.streams} parallel connections moved {_figure(remedy, answer)}: ssh_config "
                         f"cannot set this; run {remedy.case.streams} transfers at once (e.g. `xargs -P"
                         f"{remedy.case.streams}` over files with scp or rsync; docs/streams.md)")
    for answer, remedy in _single(answers, "compression"):
        compression = remedy.case.compressor
        if remedy.faster and compression.external and compression.level is not None:
            pack = " ".join(compression.compressor.compress(compression.level))
            notes.append(f"{compression.label} around ssh moved {_figure(remedy, answer)}: e.g. `tar cf - DIR | "
                         f"{pack} | ssh HOST '{' '.join(compression.compressor.decompress())} | tar xf -'` "
                         "(docs/compression.md)")
    return TransferAdvice(write, tuple(notes))
