"""The server side of the file methods when the server is on this machine (the embedded target)."""

from __future__ import annotations

import tempfile

from sshbench.plumbing.trees import link_tree, remove_tree, tree_sha256, tree_size


class LocalFiles:
    """File operations on this machine: the client side always, the server side of the embedded target."""

    def make_dir(self, parent: str, room: int) -> str:
        # same filesystem as the client's files, whose room check_free_space already made sure of
        return tempfile.mkdtemp(prefix="sshbench-server-", dir=parent)

    def size(self, path: str) -> tuple[int, int] | None:
        return tree_size(path)

    def sha256(self, path: str) -> str:
        return tree_sha256(path)

    def remove(self, path: str) -> None:
        remove_tree(path)

    def place(self, local_source: str, path: str) -> None:
        link_tree(local_source, path)
