"""One libssh connection through ansible-pylibssh (Ansible's libssh connection). Args: HOST PORT [USER KEYFILE
COMMAND]. Without a key it connects and stops once the key exchange has begun (what `sshbench clients record`
reads); with one it logs in, runs COMMAND, prints its output, exits 0."""

import sys

from pylibsshext.errors import LibsshSessionException
from pylibsshext.session import Session

host, port = sys.argv[1], int(sys.argv[2])
session = Session()
try:
    if len(sys.argv) > 5:
        with open(sys.argv[4], "rb") as fh:
            key = fh.read()
        session.connect(host=host, port=port, user=sys.argv[3], private_key=key, timeout=20,
                        host_key_checking=False, look_for_keys=False)
        channel = session.new_channel()
        result = channel.exec_command(sys.argv[5])
        sys.stdout.write(result.stdout.decode())
        channel.close()
    else:
        session.connect(host=host, port=port, user="x", password="x", timeout=20,
                        host_key_checking=False, look_for_keys=False)
except LibsshSessionException as exc:
    print(exc, file=sys.stderr)
    sys.exit(1)
