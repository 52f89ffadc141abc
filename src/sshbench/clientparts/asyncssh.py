"""asyncssh: the asyncio SSH library (Python), under Ansible-free automation, network tools and test rigs that
drive many connections from one event loop.

Measured through its driver (drivers/asyncssh_pipe.py), a program of its own run by the interpreter that runs
sshbench (its asyncssh is this environment's, its version this environment's metadata), so wait4 gives the
driver's whole CPU: the event loop, asyncssh's packet layer and its crypto through `cryptography`, and the
interpreter. Its window and packet size are read in the installed source; tests/unit/test_clientparts.py reads
them again in whatever asyncssh is installed, so an upgrade that changes them fails there instead of leaving
these stale.
"""

from __future__ import annotations

from sshbench.clientparts.base import Can, Cited, ClientPart, Knob

_RELEASE = "asyncssh 2.24.1"  # the release pyproject.toml's dev extra pins (asyncssh>=2.24,<3), read in its wheel

ASYNCSSH = ClientPart(
    name="asyncssh",
    title="asyncssh",
    implementation="asyncssh",
    distribution="asyncssh",
    install=".venv/bin/pip install 'asyncssh>=2.24,<3' (or: pip install -e '.[dev]')",
    can=frozenset({Can.PIPE_UPLOAD, Can.PIPE_DOWNLOAD}),  # its SFTPClient (start_sftp_client): a later driver
    # SSHClientConnectionOptions.prepare(window: int = _DEFAULT_WINDOW, max_pktsize: int = _DEFAULT_MAX_PKTSIZE)
    # holds them; create_session (and open_session, create_process, run) gives every session channel the options'
    window=Cited(2 * 1024 * 1024, "asyncssh/connection.py", _RELEASE, "_DEFAULT_WINDOW = 2*1024*1024       # 2 MiB"),
    max_packet=Cited(32768, "asyncssh/connection.py", _RELEASE, "_DEFAULT_MAX_PKTSIZE = 32768        # 32 kiB"),
    knobs=(Knob("window", "2097152 (_DEFAULT_WINDOW)",
                "asyncssh.connect(..., window=N), or conn.open_session(command, window=N) (create_session alike)",
                window=True),
           Knob("max_pktsize", "32768 (_DEFAULT_MAX_PKTSIZE)",
                "asyncssh.connect(..., max_pktsize=N), or conn.open_session(command, max_pktsize=N)"),
           Knob("write_buffer_limits", "65536 high, 16384 low (channel.py set_write_buffer_limits)",
                "writer.channel.set_write_buffer_limits(high=N, low=M): how much drain() lets it buffer")),
    driver="asyncssh_pipe.py",
)
