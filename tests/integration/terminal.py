"""Running the real command line in a pseudo-terminal of a given width, as a user at a narrow terminal would."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def in_terminal(*args: str, columns: int = 60, timeout: float = 180) -> tuple[str, int]:
    """`sshbench ARGS` on a pty `columns` wide: what it wrote (colours stripped, \\r\\n as \\n), its exit code."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "sshbench", *args], stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    return ANSI.sub("", text), code
