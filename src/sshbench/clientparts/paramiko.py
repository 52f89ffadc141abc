"""paramiko: the pure-Python SSH library under Ansible's paramiko connection, Fabric and Netmiko.

Measured through its driver (drivers/paramiko_pipe.py), a program of its own run by the interpreter that runs
sshbench (its paramiko is this environment's, its version this environment's metadata), so wait4 gives the
driver's whole CPU: paramiko's transport thread, its crypto through `cryptography`, and the interpreter. Its
window and packet size are read in the installed source; tests/unit/test_clientparts.py reads them again in
whatever paramiko is installed, so an upgrade that changes them fails there instead of leaving these stale.
"""

from __future__ import annotations

from sshbench.clientparts.base import Can, Cited, ClientPart, Knob

_RELEASE = "paramiko 5.1.0"  # the release pyproject.toml's dev extra pins (paramiko>=5.1,<6), read in its wheel

PARAMIKO = ClientPart(
    name="paramiko",
    title="paramiko",
    implementation="paramiko",
    distribution="paramiko",
    install=".venv/bin/pip install 'paramiko>=5.1,<6' (or: pip install -e '.[dev]')",
    can=frozenset({Can.PIPE_UPLOAD, Can.PIPE_DOWNLOAD}),  # its SFTPClient: a later driver
    # Transport.__init__(default_window_size=DEFAULT_WINDOW_SIZE, ...) gives every channel this window
    window=Cited(64 * 2**15, "paramiko/common.py", _RELEASE, "DEFAULT_WINDOW_SIZE = 64 * 2**15"),
    max_packet=Cited(2**15, "paramiko/common.py", _RELEASE, "DEFAULT_MAX_PACKET_SIZE = 2**15"),
    knobs=(Knob("window_size", "2097152 (DEFAULT_WINDOW_SIZE)",
                "paramiko.Transport(sock, default_window_size=N), or open_session(window_size=N)", window=True),
           Knob("max_packet_size", "32768 (DEFAULT_MAX_PACKET_SIZE)",
                "paramiko.Transport(sock, default_max_packet_size=N), or open_session(max_packet_size=N)")),
    driver="paramiko_pipe.py",
)
