"""One transfer with asyncssh the way its users' code does it: the oracle of bench/clients_vs_hand.py, written
without sshbench's driver (clientparts/drivers/asyncssh_pipe.py).

    asyncssh_hand.py HOST PORT USER KEY KNOWN_HOSTS CIPHER MAC upload|download FILE

`asyncssh.connect` with the key (`client_keys`), the known_hosts file, no agent and no ~/.ssh/config, the cipher
(and MAC, unless "none": an AEAD cipher needs none) pinned with `encryption_algs`/`mac_algs`; then one
`conn.run`: an upload `run('cat >/dev/null', stdin=FILE)` (asyncssh opens the file and feeds the channel itself),
a download `run('cat < FILE', stdout=DEVNULL)`, bytes both ways (`encoding=None`). Exits with the remote
command's status.
"""

from __future__ import annotations

import asyncio
import shlex
import sys

import asyncssh


async def transfer(argv: list[str]) -> int:
    host, port, user, key, known_hosts, cipher, mac, direction, path = argv
    pinned = {"encryption_algs": [cipher], **({"mac_algs": [mac]} if mac != "none" else {})}
    async with asyncssh.connect(host, int(port), username=user, client_keys=[key], known_hosts=known_hosts,
                                agent_path=None, config=None, preferred_auth="publickey", **pinned) as conn:
        if direction == "upload":
            done = await conn.run("cat >/dev/null", stdin=path, encoding=None)
        else:
            done = await conn.run(f"cat < {shlex.quote(path)}", stdout=asyncssh.DEVNULL, encoding=None)
        return int(done.exit_status or 0)


if __name__ == "__main__":
    sys.exit(asyncio.run(transfer(sys.argv[1:])))
