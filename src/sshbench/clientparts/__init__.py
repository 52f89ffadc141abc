"""The SSH clients sshbench can measure (clientparts/base.py says what each declares), by name: one module each,
one line in CLIENTS.

Who reads it: the `--client` option and its validation (axes/client.py, cli/refusals.py), the plan (which cases a
client can take), the measuring code (measure/drivers.py: a client's driver instead of ssh), the results (each
client's facts) and docs/clients.md. This package runs nothing; it sits low in the layers (below the declared
axes, above the vocabulary) because the `--client` axis parses its values against this registry.
"""

from __future__ import annotations

from sshbench.clientparts.asyncssh import ASYNCSSH
from sshbench.clientparts.base import (
    FAILED,
    MARK,
    Can,
    Cited,
    ClientPart,
    DriverLine,
    DriverRequest,
    Knob,
    failure,
)
from sshbench.clientparts.dbclient import DBCLIENT
from sshbench.clientparts.goxcrypto import GOXCRYPTO
from sshbench.clientparts.openssh import OPENSSH_CLIENT
from sshbench.clientparts.paramiko import PARAMIKO
from sshbench.clientparts.plink import PLINK

CLIENTS: dict[str, ClientPart] = {part.name: part
                                  for part in (OPENSSH_CLIENT, PARAMIKO, ASYNCSSH, DBCLIENT, PLINK, GOXCRYPTO)}
DEFAULT = OPENSSH_CLIENT.name
__all__ = ["CLIENTS", "DEFAULT", "FAILED", "MARK", "Can", "Cited", "ClientPart", "DriverLine", "DriverRequest",
           "Knob", "client_part", "failure"]


def client_part(name: str) -> ClientPart | None:
    """The client called `name` (None: one this sshbench does not know, which a results file may name)."""
    return CLIENTS.get(name)
