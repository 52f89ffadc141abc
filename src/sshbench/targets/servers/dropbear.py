"""The embedded Dropbear: `dropbear -i` per connection, ed25519, ECDSA and RSA host keys, key auth only."""

from __future__ import annotations

import os

from sshbench.implementations import DROPBEAR
from sshbench.targets.discovery import find_tool, run_tool
from sshbench.targets.servers.namespaced import NamespacedServer
from sshbench.vocabulary.commands import USER_KEYS
from sshbench.vocabulary.errors import ServerError

# (dropbearkey -t, extra arguments); ed25519 must work, the others are measured where this build has them
_HOST_KEYS = (("ed25519", ()), ("ecdsa", ("-s", "256")), ("rsa", ("-s", "3072")))


class EmbeddedDropbear(NamespacedServer):
    name = DROPBEAR.name
    implementation = DROPBEAR
    per_connection = ("dropbear -i in a private mount namespace, on a TCP_NODELAY socket (as it sets itself), CPU "
                      "by wait4")
    user_keys = frozenset(USER_KEYS)  # ed25519, ECDSA and RSA client keys (rsa-sha2-256 since Dropbear 2020.79)
    window_setting = DROPBEAR.window_setting  # -W: --server dropbear:window=SIZE

    def binary(self) -> str:
        self.keygen = find_tool("dropbearkey")
        self.dropbear = find_tool("dropbear", self._override)
        return self.dropbear

    def make_host_keys(self, keydir: str) -> list[str]:
        public = []
        self.key_files = []
        for kind, extra in _HOST_KEYS:
            path = os.path.join(keydir, kind)
            made = run_tool([self.keygen, "-t", kind, *extra, "-f", path])
            if made.returncode != 0:
                if kind == "ed25519":
                    raise ServerError(f"dropbearkey could not make an ed25519 host key: {made.stderr.strip()[-200:]}")
                continue
            shown = run_tool([self.keygen, "-y", "-f", path])
            line = next((ln for ln in shown.stdout.splitlines() if ln.startswith(("ssh-", "ecdsa-"))), None)
            if line is not None:
                public.append(line)
                self.key_files.append(path)
        return public

    def server_argv(self, keydir: str) -> list[str]:
        # -i inetd mode (which refuses -E: its log goes to syslog), -s no password logins, -r host keys
        # -W the receive window of a window variant (implementations/dropbear.py: window_setting)
        return [self.dropbear, "-i", "-s", *(arg for path in self.key_files for arg in ("-r", path)),
                *self.window_argv()]
