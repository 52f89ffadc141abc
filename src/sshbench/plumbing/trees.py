"""A file or a directory tree: its files, size and digest, removed or hard-linked; no sshbench types."""

from __future__ import annotations

import hashlib
import os
import shutil

CHUNK = 1024 * 1024


def tree_files(path: str) -> list[str]:
    """Regular files under `path` (itself, if it is one), as sorted relative names."""
    if os.path.isfile(path):
        return [""]
    found = []
    for root, _, names in os.walk(path):
        found += [os.path.relpath(os.path.join(root, name), path) for name in names]
    return sorted(found)


def tree_size(path: str) -> tuple[int, int] | None:
    """(total bytes, file count) of a file or a directory tree; None when nothing is there."""
    if not os.path.exists(path):
        return None
    names = tree_files(path)
    return sum(os.path.getsize(os.path.join(path, n) if n else path) for n in names), len(names)


def tree_sha256(path: str) -> str:
    """SHA-256 of one file, or of a tree as "name NUL sha256" lines in name order (names matter too)."""
    names = tree_files(path)
    if names == [""]:
        return _file_sha256(path)
    outer = hashlib.sha256()
    for name in names:
        outer.update(f"{name}\0{_file_sha256(os.path.join(path, name))}\n".encode())
    return outer.hexdigest()


def _file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def remove_tree(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.unlink(path)


def link_tree(source: str, dest: str) -> None:
    """`dest` as a hard-linked copy of `source` (a real copy across filesystems): no extra disk."""
    try:
        shutil.copytree(source, dest, copy_function=os.link) if os.path.isdir(source) else os.link(source, dest)
    except OSError:
        remove_tree(dest)
        shutil.copytree(source, dest) if os.path.isdir(source) else shutil.copyfile(source, dest)
