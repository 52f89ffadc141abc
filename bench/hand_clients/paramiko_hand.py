"""One transfer with paramiko the way its users' scripts do it: the oracle of bench/clients_vs_hand.py, written
without sshbench's driver (clientparts/drivers/paramiko_pipe.py), so a mistake there cannot hide here too.

    paramiko_hand.py HOST PORT USER KEY KNOWN_HOSTS CIPHER MAC upload|download FILE [nodelay]

SSHClient with the known_hosts file loaded and unknown keys rejected, `connect` with the key file (no agent, no
~/.ssh keys) and `disabled_algorithms` leaving only CIPHER (and MAC; "none" under an AEAD cipher, where paramiko
still needs one in common and uses none), then `open_session` and `exec_command`: an upload sends FILE in 64 KiB
`sendall`s into `cat >/dev/null` and shuts its side; a download reads `cat < FILE` (the server's file) to EOF in
64 KiB `recv`s and drops it. Exits with the remote command's status.

SSHClient's own socket sets no TCP_NODELAY (paramiko sets it nowhere; asyncssh, Go's net, dbclient, plink and
ssh through sshbench's fdpass all do), and sshbench's driver sets it. `nodelay` connects the socket here with it
and hands it over (`connect(sock=...)`, paramiko's documented way to bring a socket), so a run can time both.
"""

from __future__ import annotations

import shlex
import socket
import sys

import paramiko  # type: ignore[import-untyped]

CHUNK = 65536


def main(argv: list[str]) -> int:
    host, port, user, key, known_hosts, cipher, mac, direction, path = argv[:9]
    sock = None
    if argv[9:] == ["nodelay"]:
        sock = socket.create_connection((host, int(port)), timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    client = paramiko.SSHClient()
    client.load_host_keys(known_hosts)
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    disabled = {"ciphers": [c for c in paramiko.Transport._preferred_ciphers if c != cipher]}
    if mac != "none":
        disabled["macs"] = [m for m in paramiko.Transport._preferred_macs if m != mac]
    client.connect(host, int(port), username=user, key_filename=key, look_for_keys=False, allow_agent=False,
                   disabled_algorithms=disabled, sock=sock)
    try:
        transport = client.get_transport()
        assert transport is not None
        chan = transport.open_session()
        if direction == "upload":
            chan.exec_command("cat >/dev/null")
            with open(path, "rb") as source:
                while chunk := source.read(CHUNK):
                    chan.sendall(chunk)
            chan.shutdown_write()
        else:
            chan.exec_command(f"cat < {shlex.quote(path)}")
            while chan.recv(CHUNK):
                pass
        return int(chan.recv_exit_status())
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
