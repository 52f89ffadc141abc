"""One paramiko connection, for any paramiko release: 2.4 and later on this Python, and 1.x on Python 2.7 with
pycrypto (as Fabric 1.x and Python 2 era Ansible ran it), so no f-strings or annotations here.
Args: HOST PORT [USER KEYFILE COMMAND].

Without a key it connects and stops once the key exchange has begun (what `sshbench clients record` reads);
with one it logs in, runs COMMAND, prints its output and exits 0 (1, with the error, on any failure).
"""

import sys

import paramiko


def _start(transport):
    """Begin the key exchange, bounded in time where the release can be told (paramiko 1.x has no timeout)."""
    transport.banner_timeout = 20
    try:
        transport.start_client(timeout=20)
    except TypeError:
        transport.start_client()


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    if len(sys.argv) < 6:
        transport = paramiko.Transport((host, port))
        try:
            _start(transport)
        except Exception as exc:  # the recorder hangs up after reading the offer
            sys.stderr.write(str(exc) + "\n")
        return 0
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect(host, port=port, username=sys.argv[3], key_filename=sys.argv[4], allow_agent=False,
                       look_for_keys=False, timeout=20, banner_timeout=20)
        sys.stdout.write(client.exec_command(sys.argv[5])[1].read().decode().strip() + "\n")
    except Exception as exc:
        sys.stderr.write(type(exc).__name__ + ": " + str(exc) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
