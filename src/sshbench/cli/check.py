"""`sshbench clients check FILE`: who a server config that already exists would shut out.

The config is read, never applied: an sshd_config or a drop-in goes through
this machine's own `sshd -T` (with a throwaway host key in a private dir,
so nothing of the system's is needed), which prints the effective lists
exactly as that sshd would use them; a file that already holds a server's
`sshd -T` output (a running server's, copied here) is read as it is. Each
known client (and recordings of your own, `--clients`) is then negotiated
against a stock server (this sshd's compiled-in defaults) and against the
config (analysis/security/lockout.py): the table says who logs in to each, with what,
and the exit code is 11 when a client that logs in to a stock server would
be shut out.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat

# Not a run's conclusion (those come from analysis/conclude.py alone): a server config's lists, read with this
# machine's sshd -T, negotiated against the known clients, with no results file; pyproject.toml names these imports.
from sshbench.analysis.config.configtext import outcome_rows
from sshbench.analysis.security.lockout import NEGOTIATED, ServerLists, check
from sshbench.cli.context import Context
from sshbench.clients import select_clients
from sshbench.plumbing.runs import private_dir
from sshbench.render.lockout import outcome_table
from sshbench.render.terminal import rich_table
from sshbench.targets.discovery import dump_server_config, find_tool, lists_from_dump, parse_dump, run_tool
from sshbench.targets.servers.privsep import PrivsepDir
from sshbench.vocabulary.algorithms import AlgorithmLists
from sshbench.vocabulary.errors import ExitCode, ServerError, UsageError
from sshbench.vocabulary.untrusted import read_bounded, shown

MAX_CONFIG_BYTES = 1 << 20
DEBIAN_HOST_KEYS = ("ssh-rsa", "ecdsa-sha2-nistp256", "ssh-ed25519")  # what a stock Debian sshd generates
SIGNATURES = {"ssh-rsa": ("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"), "ecdsa-sha2-nistp256": ("ecdsa-sha2-nistp256",),
              "ecdsa-sha2-nistp384": ("ecdsa-sha2-nistp384",), "ecdsa-sha2-nistp521": ("ecdsa-sha2-nistp521",),
              "ssh-ed25519": ("ssh-ed25519",), "ssh-dss": ("ssh-dss",)}


def _is_dump(text: str) -> bool:
    """`sshd -T` output: lowercase keyword lines, with the algorithm lists among them."""
    keys = {line.split(" ", 1)[0] for line in text.splitlines() if line.strip()}
    return {"kexalgorithms", "ciphers", "macs"} <= keys and all(k == k.lower() for k in keys)


def _public_key_type(path: str) -> str | None:
    """The key type a .pub file starts with: opened without blocking (a FIFO planted there hung the check
    forever), regular files only; None where it is not readable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        word = os.read(fd, 200).decode("ascii", errors="replace").split(" ", 1)[0].strip()
        return word or None
    except OSError:
        return None
    finally:
        os.close(fd)


def _key_types(dump: dict[str, list[str]], ours: str) -> tuple[tuple[str, ...], str]:
    """The host key types the config's server has (from its keys' .pub files), or Debian's, and what was used."""
    named = [path for path in dump.get("hostkey", []) if path != ours]
    found = [kind for path in named if (kind := _public_key_type(path + ".pub")) is not None]
    if found:
        return tuple(found), "host keys: the config's own (their .pub files)"
    if not named:
        return DEBIAN_HOST_KEYS, ("host keys: the config names no HostKey, so sshd's defaults apply (a stock Debian "
                                  "server's RSA, ECDSA P-256 and Ed25519 keys)")
    return DEBIAN_HOST_KEYS, "host keys: not readable here, so a stock Debian server's (RSA, ECDSA P-256, Ed25519)"


def _empty_lists(dump: dict[str, list[str]]) -> list[str]:
    """The algorithm lists a saved `sshd -T` output gives with no names at all: no sshd runs with one (it
    refuses to start), and no client could have anything in common with it."""
    return [key for key in ("kexalgorithms", "ciphers", "macs", "hostkeyalgorithms")
            if key in dump and not any(n for n in dump[key][0].split(",") if n)]


def _offer(lists: AlgorithmLists, types: tuple[str, ...]) -> AlgorithmLists:
    signatures = {sig for t in types for sig in SIGNATURES.get(t, (t,))}
    return AlgorithmLists(cipher=lists.cipher, mac=lists.mac, kex=lists.kex,
                          hostkey=tuple(a for a in lists.hostkey if a in signatures))


def cmd_check(args: argparse.Namespace, ctx: Context) -> int:
    clients = select_clients(args.clients, warn=ctx.say)
    raw = read_bounded(args.config, MAX_CONFIG_BYTES, "clients check: ", "1 MiB: not a config")
    text = raw.decode("utf-8", errors="replace")
    sshd = find_tool("sshd", args.sshd)
    work = private_dir("sshbench-check-")
    try:
        key = os.path.join(work, "host_ed25519")
        made = run_tool([find_tool("ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-f", key])
        if made.returncode != 0:
            raise ServerError(f"ssh-keygen could not make a throwaway host key: {made.stderr.strip()[-200:]}")
        extra = ["-o", f"HostKey={key}", "-o", "PidFile=none"]
        with PrivsepDir() as privsep:  # sshd -T as root wants /run/sshd (servers/privsep.py: where it runs)
            stock = dump_server_config(privsep.wrap([sshd]), "/dev/null", extra)
            if stock.returncode != 0:
                raise ServerError(f"{sshd} -T of its own defaults failed: {stock.stderr.strip()[-200:]}")
            if _is_dump(text):
                dump, how = parse_dump(text), "read as a saved `sshd -T` output"
            else:
                # absolute: sshd runs in the private /run/sshd namespace, whose working directory is not ours
                done = dump_server_config(privsep.wrap([sshd]), os.path.abspath(args.config), extra)
                if done.returncode != 0:
                    said = (done.stderr.strip().splitlines() or ["no message"])[-1]
                    raise UsageError(f"clients check: {sshd} -T refuses {args.config}: {said}")
                dump, how = parse_dump(done.stdout), f"read with {sshd} -T"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    types, keys_said = _key_types(dump, key)
    today = _offer(lists_from_dump(parse_dump(stock.stdout)), types)
    after = _offer(lists_from_dump(dump), types)
    empty = _empty_lists(dump)
    if empty:
        ctx.out.print(f"{shown(args.config)}: its {', '.join(empty)} list{'s are' if len(empty) > 1 else ' is'} empty: "
                      "sshd refuses to start with such a config, and no client could log in to it (nothing in "
                      "common); every client is shut out", highlight=False, markup=False, soft_wrap=True)
        return int(ExitCode.LOCKOUT)
    result: ServerLists = check(clients, today, {kind: after.of(kind) for kind in NEGOTIATED if after.of(kind)})
    for table in rich_table(outcome_table(outcome_rows(result), f"Who can log in with {shown(args.config)}",
                                          "a stock server (this sshd's defaults)", "with this config")):
        ctx.out.print(table)
    shut = result.shut_out()
    ctx.out.print(f"{shown(args.config)}: {how}; {keys_said}; checked against {len(clients)} clients: "
                  + ("each of them that logs in to a stock server still can (clients sshbench does not know were "
                     "not checked)" if not shut else
                     f"SHUTS OUT {len(shut)}: " + ", ".join(o.client.name for o in shut) + " (the table says why)"),
                  highlight=False, markup=False, soft_wrap=True)
    return int(ExitCode.LOCKOUT if shut else ExitCode.OK)

