"""One paramiko connection, for any paramiko release (2.4 and later). Args: HOST PORT [USER KEYFILE COMMAND].

Without a key it connects and stops once the key exchange has begun (what `sshbench clients record` reads);
with one it logs in, runs COMMAND, prints its output and exits 0 (1, with the error, on any failure).
"""

import sys

import paramiko


def main() -> int:
    host, port = sys.argv[1], int(sys.argv[2])
    if len(sys.argv) < 6:
        transport = paramiko.Transport((host, port))
        transport.banner_timeout = 20
        try:
            transport.start_client(timeout=20)
        except Exception as exc:  # the recorder hangs up after reading the offer
            print(exc, file=sys.stderr)
        return 0
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect(host, port=port, username=sys.argv[3], key_filename=sys.argv[4], allow_agent=False,
                       look_for_keys=False, timeout=20, banner_timeout=20)
        print(client.exec_command(sys.argv[5])[1].read().decode().strip())
    except Exception as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
