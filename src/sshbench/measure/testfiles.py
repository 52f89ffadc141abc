"""The real files the file methods move: made once per run, checked, and timed as a disk.

Zero data is a sparse file, so a 4 GiB test costs no disk and reads at
memory speed; random and text data are written out from the same pattern the
pipe uses. A many-small-files set is a directory of N such files.

The disk check answers "was it SSH or the disk?": the source is read and a
sink-sized file written once, before any case runs, without fsync, because
scp, sftp and rsync do not fsync either (they measure what the tools see:
page cache first, the device once the dirty limit is reached).
"""

from __future__ import annotations

import os
import shutil
import time

from sshbench.measure.datapath import Payload
from sshbench.options import FileShape
from sshbench.plumbing.trees import remove_tree, tree_files
from sshbench.results.environment import DiskFacts
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.units import MiB, format_bytes

CHUNK = 1 * MiB
TINY_BYTES = 1  # the overhead transfer: same tool and algorithms, one byte
SPACE_MARGIN = 64 * MiB
DISK_CHECK_LIMIT = 1024 * MiB  # bytes read and written by the disk check at most


def write_file(path: str, size: int, payload: Payload) -> None:
    """A test file: sparse for zero data (content does not matter), else the payload's pattern."""
    with open(path, "wb") as fh:
        if payload.kind == "zero":
            fh.truncate(size)
            return
        pattern = _pattern(payload)
        left = size
        while left > 0:
            chunk = pattern[: min(left, len(pattern))]
            fh.write(chunk)
            left -= len(chunk)


def _pattern(payload: Payload) -> bytes:
    assert payload.path is not None, "random and text payloads have a pattern file"
    with open(payload.path, "rb") as fh:
        return fh.read()


def tiny_shape(shape: FileShape) -> FileShape:
    """The overhead transfer's shape: one byte, in a directory when the real one is a directory."""
    return FileShape(TINY_BYTES, 1, shape.directory)


def make_source(path: str, shape: FileShape, payload: Payload) -> None:
    """The source file, or a directory of `files` files named f000001... for a set."""
    if not shape.is_set:
        write_file(path, shape.file_bytes, payload)
        return
    os.mkdir(path, 0o700)
    for index in range(1, shape.files + 1):
        write_file(os.path.join(path, f"f{index:06d}"), shape.file_bytes, payload)


def space_margin(data_bytes: int) -> int:
    """Head room on top of the test's own bytes: a tenth of them, at least 1 MiB, at most SPACE_MARGIN.

    Proportional, so that a smaller --size always fits on a small disk eventually (a fixed 64 MiB made
    the "use a smaller --size" advice impossible to follow below 64 MiB free).
    """
    return min(SPACE_MARGIN, max(MiB, data_bytes // 10))


def _copies(shape: FileShape, payload: Payload, sink_file: bool) -> int:
    """How many times the test's bytes land on the workdir's disk: the source (unless sparse), one received copy."""
    return (0 if payload.kind == "zero" and not shape.is_set else 1) + (1 if sink_file else 0)


def space_needed(shape: FileShape, payload: Payload, sink_file: bool) -> int:
    """Bytes the test needs on the workdir's filesystem: the source (unless sparse) and one received copy."""
    data = shape.total_bytes * _copies(shape, payload, sink_file)
    return data + space_margin(data)


def check_free_space(directory: str, shape: FileShape, payload: Payload, sink_file: bool) -> None:
    needed = space_needed(shape, payload, sink_file)
    free = shutil.disk_usage(directory).free
    if free >= needed:
        return
    copies = _copies(shape, payload, sink_file)
    fits = int(free / 1.1 / max(1, copies)) // MiB * MiB  # the biggest test that would pass this check
    if shape.is_set:
        advice = f"fewer or smaller --files (at most {format_bytes(fits)} in all fits here)"
    else:
        advice = f"--size {fits // MiB}MiB or less" if fits >= MiB else "a smaller --size"
    raise UsageError(
        f"not enough free space in {directory}: the file test needs {format_bytes(needed)} "
        f"({shape.describe()}{' and one received copy' if sink_file else ''}), {format_bytes(free)} is free; "
        f"use --workdir on a larger filesystem, {advice}, or --sink null")


def measure_disk(source: str, sink_dir: str, payload: Payload, limit: int = DISK_CHECK_LIMIT) -> DiskFacts:
    """Two passes of `one_disk_pass`: cold, then warm (the figure that counts)."""
    cold = one_disk_pass(source, sink_dir, payload, limit)
    warm = one_disk_pass(source, sink_dir, payload, limit)
    return DiskFacts(warm.read_bytes_per_second, warm.write_bytes_per_second, warm.bytes_read, warm.bytes_written,
                     cold.read_bytes_per_second, cold.write_bytes_per_second)


def one_disk_pass(source: str, sink_dir: str, payload: Payload, limit: int = DISK_CHECK_LIMIT) -> DiskFacts:
    """Read the source (up to `limit` bytes, a set's files in turn), then write as much into sink_dir."""
    read = 0
    t0 = time.perf_counter()
    names = tree_files(source)
    for name in names:
        with open(os.path.join(source, name) if name else source, "rb", buffering=0) as fh:
            buffer = bytearray(CHUNK)
            while read < limit and (n := fh.readinto(buffer)):
                read += n
    read_seconds = time.perf_counter() - t0
    probe = os.path.join(sink_dir, "sshbench-disk-check")
    written = 0
    pattern = _pattern(payload)[:CHUNK] if payload.kind != "zero" else bytes(CHUNK)
    t0 = time.perf_counter()
    try:
        with open(probe, "wb", buffering=0) as fh:
            while written < max(read, CHUNK):
                written += fh.write(pattern)
        write_seconds = time.perf_counter() - t0
    finally:
        remove_tree(probe)
    return DiskFacts(read / max(read_seconds, 1e-9), written / max(write_seconds, 1e-9), read, written)
