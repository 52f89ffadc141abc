"""The embedded tinysshd: inetd-native, one process per connection, its own ed25519 key directory."""

from __future__ import annotations

import os

from sshbench.implementations import TINYSSHD
from sshbench.targets.discovery import find_tool, run_tool
from sshbench.targets.servers.namespaced import NamespacedServer
from sshbench.vocabulary.errors import ServerError


class EmbeddedTinysshd(NamespacedServer):
    name = TINYSSHD.name
    implementation = TINYSSHD
    per_connection = ("tinysshd (inetd-native) in a private mount namespace, TCP_NODELAY off as Debian's "
                      "tinysshd.socket serves it, CPU by wait4")
    user_keys = frozenset({"ed25519"})  # it verifies ssh-ed25519 client keys only
    needs_root = ("tinysshd accepts a key only if every directory from ~/.ssh up to / is owned by the user or root "
                  "(its subprocess_auth.c), and in the user namespace a normal user's private server needs, / "
                  "belongs to an unmapped user; run as root, or use --server dropbear")

    def binary(self) -> str:
        self.makekey = find_tool("tinysshd-makekey")
        self.printkey = find_tool("tinysshd-printkey")
        self.tinysshd = find_tool("tinysshd", self._override)
        return self.tinysshd

    def make_host_keys(self, keydir: str) -> list[str]:
        keys = os.path.join(keydir, "sshkeydir")
        made = run_tool([self.makekey, keys])
        shown = run_tool([self.printkey, keys])
        lines = [ln for ln in shown.stdout.splitlines() if ln.startswith("ssh-")]
        if made.returncode != 0 or not lines:
            said = (made.stderr + shown.stderr).strip()[-200:]
            raise ServerError(f"tinysshd-makekey could not make its keys: {said}")
        self.keys = keys
        return lines

    def server_argv(self, keydir: str) -> list[str]:
        return [self.tinysshd, self.keys]  # quiet: its log would go to a socket nobody reads
