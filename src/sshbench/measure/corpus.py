"""Compressible payloads that do not flatter a compressor: text, and a mixed corpus like a real tree of files.

A payload is a pattern file streamed round and round (measure/datapath.py).
Its period must be longer than every compressor's window, or a compressor
with a long window (zstd's is 2-8 MiB at the levels used here) finds the
previous copy and "compresses" the repeat to almost nothing, which no real
file set does. So both payloads here are 16 MiB with no repeat inside.

- text: log- and prose-like lines of a small vocabulary (zlib about 3:1).
- mixed: a tar archive, as `tar cf - DIR` of a project would stream it:
  sshbench's own source code (each file once), generated documents, CSV
  tables and logs, packed binary records, and incompressible "media" (a
  quarter of the bytes, like the JPEGs and archives every real tree has).
  Made from a fixed seed, so every run and machine of one sshbench version
  streams the same bytes; docs/compression.md gives its measured ratios.
"""

from __future__ import annotations

import io
import random
import struct
import tarfile

PATTERN_BYTES = 16 * 1024 * 1024
MIXED_SEED = 20261125  # fixed: the corpus is the same for every run (the ratios in the docs hold)
_WORDS = (  # noqa: SIM905 (a sentence reads better than 80 quoted words)
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an "
    "they you were her she there been one all we their has would when if so no will can more other its into "
    "data server client session cipher packet window channel buffer kernel network transfer benchmark secure "
    "shell key exchange host file stream block byte time rate median sample round report config"
).split()
_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")
# The mixed corpus, by share of its bytes (the source code fills what it can, generated code-like lines the rest)
_SHARES = {"docs": 0.30, "code": 0.15, "tables": 0.12, "logs": 0.12, "binary": 0.06, "media": 0.25}


def text(rng: random.Random, size: int) -> bytes:
    """Log- and prose-like lines, `size` bytes with no repeat: compresses about 3:1 with zlib, like real text."""
    out, total = [], 0
    while total < size:
        words = rng.choices(_WORDS, k=4096)
        cut, lines = 0, []
        while cut < len(words) - 14:
            step = rng.randint(6, 14)
            lines.append(f"{rng.randint(0, 99999):05d} {' '.join(words[cut:cut + step])}\n")
            cut += step
        block = "".join(lines).encode()
        out.append(block)
        total += len(block)
    return b"".join(out)[:size]


def _documents(rng: random.Random, size: int) -> list[tuple[str, bytes]]:
    files, total, index = [], 0, 0
    while total < size:
        body = text(rng, rng.randint(16, 256) * 1024).replace(b"\n", b" ", 3).replace(b"\n", b".\n", 7)
        files.append((f"docs/notes-{index:03d}.txt", body))
        total, index = total + len(body), index + 1
    return files


def _code(rng: random.Random, size: int) -> list[tuple[str, bytes]]:
    """Generated code-like lines up to `size` (not sshbench's own sources, as before 0.4: the payload then changed
    with every release, and runs of two versions did not move the same bytes)."""
    files: list[tuple[str, bytes]] = []
    total = index = 0
    while total < size:
        lines = []
        for _ in range(rng.randint(200, 800)):
            name, other = rng.choice(_WORDS), rng.choice(_WORDS)
            indent = "    " * rng.randint(0, 3)
            lines.append(f"{indent}{name}_{rng.randint(0, 999)} = {other}({rng.randint(0, 10**6)}, "
                         f"'{rng.choice(_WORDS)}')\n")
        body = "".join(lines).encode()
        files.append((f"src/generated/module_{index:03d}.py", body))
        total, index = total + len(body), index + 1
    return files


def _tables(rng: random.Random, size: int) -> list[tuple[str, bytes]]:
    rows, total = ["date,host,bytes,seconds,rate_mbps\n"], 0
    while total < size:
        row = (f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},host{rng.randint(1, 64)},"
               f"{rng.randint(1, 10**10)},{rng.uniform(0.1, 900):.3f},{rng.uniform(1, 10000):.2f}\n")
        rows.append(row)
        total += len(row)
    return [("data/transfers.csv", "".join(rows).encode())]


def _logs(rng: random.Random, size: int) -> list[tuple[str, bytes]]:
    lines, total, clock = [], 0, 1_700_000_000.0
    while total < size:
        clock += rng.expovariate(20)
        line = (f"{clock:.6f} {rng.choice(_LEVELS):5s} [{rng.choice(_WORDS)}] "
                f"{' '.join(rng.choices(_WORDS, k=rng.randint(4, 12)))} id={rng.randint(0, 10**8)}\n")
        lines.append(line)
        total += len(line)
    return [("logs/app.log", "".join(lines).encode())]


def _binary(rng: random.Random, size: int) -> list[tuple[str, bytes]]:
    """Packed records with slowly changing fields, as databases and executables hold."""
    values, counter = [], 0
    for _ in range(size // 16):
        counter += rng.randint(1, 50)
        values.append(struct.pack("<QIhH", counter, rng.randint(0, 1000), rng.randint(-5, 5), rng.randint(0, 3)))
    return [("data/records.bin", b"".join(values))]


def _media(rng: random.Random, size: int) -> list[tuple[str, bytes]]:
    """Already-compressed files (photos, archives): bytes no compressor shrinks."""
    files, total, index = [], 0, 0
    while total < size:
        body = rng.randbytes(rng.randint(64, 768) * 1024)
        files.append((f"media/photo-{index:03d}.jpg", body))
        total, index = total + len(body), index + 1
    return files


def mixed(size: int = PATTERN_BYTES) -> bytes:
    """The mixed corpus: a tar of a project-like tree, `size` bytes (cut at the end: it is streamed in a loop)."""
    rng = random.Random(MIXED_SEED)
    makers = {"docs": _documents, "code": _code, "tables": _tables, "logs": _logs, "binary": _binary,
              "media": _media}
    members = [m for part, share in _SHARES.items() for m in makers[part](rng, int(size * share * 0.9))]
    rng.shuffle(members)  # a tree's kinds of file are interleaved, as directories list them
    used = sum(len(body) + 1024 for _, body in members)  # with each member's header and padding
    members.append(("media/archive.zip", rng.randbytes(max(0, size - used) + 65536)))  # fills it: no repeat
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name, body in members:
            info = tarfile.TarInfo(f"corpus/{name}")
            info.size, info.mtime, info.mode = len(body), 1_764_000_000, 0o644
            archive.addfile(info, io.BytesIO(body))
    return buffer.getvalue()[:size]
