"""Check generated configs with the real tools before anyone sees them.

The client block must pass `ssh -G -F FILE` and the drop-in (OpenSSH servers
only) must pass `sshd -t` when Included into a real config, and both must
read back the lists that were written (a silently ignored line would be a
lie): exactly, or for a `^` list with ours leading. Where a config is
written (a run, `recommend --write`), this machine is asked whether its
ControlMaster lines can be used here (control_dir): analysis never reads
the machine.
"""

from __future__ import annotations

import os
import tempfile

from sshbench.analysis.config.configtext import CheckedRecommendation, block_host, checked, client_block, server_dropin
from sshbench.analysis.config.recommend import KEYWORDS, Recommendation, build, prediction
from sshbench.analysis.config.reuse_advice import ControlDir
from sshbench.analysis.security.policy import Policy
from sshbench.clients import ClientOffer
from sshbench.results.model import Report
from sshbench.targets.base import EmbeddedServer
from sshbench.targets.discovery import ClientInfo, lists_from_dump, parse_dump, run_tool
from sshbench.vocabulary.algorithms import Kind
from sshbench.vocabulary.commands import control_socket, socket_path_fits


def _mismatches(rec: Recommendation, dump_text: str, who: str, client: bool) -> list[str]:
    """Lists read back that differ from what was written; with `^`, ours must lead the resolved list."""
    lists = lists_from_dump(parse_dump(dump_text))
    wanted: dict[Kind, tuple[list[str], int]] = {}  # kind -> (the list, how much of what is read back counts)
    if client:
        for line in rec.client_lines():  # with `^` the defaults after ours are the validating client's own
            want = line.names if rec.prepend else rec.client_list(line)
            wanted[line.kind] = (want, len(want) if rec.prepend else len(lists.of(line.kind)))
    else:
        server = rec.dropin.lists if rec.dropin is not None else {ln.kind: ln.names for ln in rec.written_lines()}
        wanted = {kind: (names, len(lists.of(kind))) for kind, names in server.items()}
    return [f"{who} read back {KEYWORDS[kind]} as {','.join(lists.of(kind)) or 'nothing'}"
            for kind, (want, count) in wanted.items() if list(lists.of(kind))[:count] != want]


def matching_host(pattern: str) -> str:
    """A host name the Host pattern list matches (first positive pattern, wildcards filled in)."""
    positive = next((p for p in pattern.split() if not p.startswith("!")), "*")
    return positive.replace("*", "sshbench-validate").replace("?", "x")


def validate_client_block(ssh: str, text: str, rec: Recommendation, host: str = "*") -> list[str]:
    """Problems with the client block, empty when `ssh -G -F` accepts it and reads it back as written."""
    with tempfile.TemporaryDirectory(prefix="sshbench-validate-") as tmp:
        path = os.path.join(tmp, "ssh_config")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        done = run_tool([ssh, "-G", "-F", path, matching_host(host)])
    if done.returncode != 0:
        return [f"ssh -G rejects the client block: {done.stderr.strip().splitlines()[-1:]}"]
    return _mismatches(rec, done.stdout, "ssh -G", client=True) + _reuse_mismatches(rec, done.stdout)


def _reuse_mismatches(rec: Recommendation, dump_text: str) -> list[str]:
    """The ControlMaster lines read back as written (ssh -G prints ControlPersist in seconds)."""
    if not rec.reuse:
        return []
    dump = parse_dump(dump_text)
    wanted = {"controlmaster": "auto", "controlpersist": "60"}
    found = [f"ssh -G read back {key} as {','.join(dump.get(key, [])) or 'nothing'}" for key, value in wanted.items()
             if dump.get(key, [])[:1] != [value]]
    return found + ([] if dump.get("controlpath") else ["ssh -G read back no controlpath"])


def validate_server_dropin(server: EmbeddedServer, text: str, rec: Recommendation) -> list[str]:
    """Problems with the drop-in, empty when `sshd -t` accepts it and `sshd -T` reads it back unchanged."""
    done = server.check_dropin(text)
    if done.returncode != 0:
        return [f"sshd -t rejects the drop-in: {done.stderr.strip().splitlines()[-1:]}"]
    return _mismatches(rec, done.stdout, "sshd -T", client=False)


def control_dir(home: str | None = None) -> ControlDir:
    """Whether this machine's user can use the ControlMaster lines: their ~/.ssh a directory they can write (ssh
    makes the socket there), and ~/.ssh/cm-%C short enough for a Unix socket with their home."""
    home = os.path.expanduser("~") if home is None else home
    directory = os.path.join(home, ".ssh")
    return ControlDir(writable=os.path.isdir(directory) and os.access(directory, os.W_OK | os.X_OK),
                      fits=socket_path_fits(control_socket(home)))


def checked_recommendation(report: Report, client: ClientInfo, server: EmbeddedServer, policy: Policy | str,
                           host: str, *, host_keys: bool = False, exact: bool = False,
                           clients: list[ClientOffer] | None = None, allow_lockout: bool = False,
                           control: ControlDir | None = None) -> CheckedRecommendation:
    """Build and validate with the real ssh and sshd; the texts are only shown when validation passes. `control`:
    the machine the config is written on (control_dir()); None: the results' answer, for no machine in particular."""
    rec = build(report, policy, host_keys=host_keys, exact=exact, clients=clients, allow_lockout=allow_lockout,
                control=control)
    client_text, server_text = client_block(rec, host), server_dropin(rec)
    problems = validate_client_block(client.path, client_text, rec, host)
    if server_text is not None:
        problems += validate_server_dropin(server, server_text, rec)
    return checked(rec, client_text, server_text, problems, prediction(report, rec), report.environment.terrapin,
                   block_host(rec, host))
