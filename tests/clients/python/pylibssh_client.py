"""One libssh connection through ansible-pylibssh (Ansible's libssh connection). Args: HOST PORT: it connects
and stops once the key exchange has begun (what `sshbench clients record` reads)."""

import sys

from pylibsshext.errors import LibsshSessionException
from pylibsshext.session import Session

try:
    Session().connect(host=sys.argv[1], port=int(sys.argv[2]), user="x", password="x", timeout=20,
                      host_key_checking=False, look_for_keys=False)
except LibsshSessionException as exc:
    print(exc, file=sys.stderr)
