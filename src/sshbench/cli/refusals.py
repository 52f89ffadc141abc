"""The run options that would be ignored, or could not work, together: each refused before anything runs.

An option that needs another, or a combination that cannot be measured, is a
usage error (exit 2) in one line that names both options and the fix, never
an option silently dropped or a run that fails its cases after measuring
them. `ignored` reads the arguments alone (cli/parser.py calls it before the
options are built), `unapplied` the options built from them, `for_hosts`
the options against the destinations and embedded servers (cli/run.py).
"""

from __future__ import annotations

import argparse

from sshbench.axes import DECLARED
from sshbench.axes.client import CLIENT
from sshbench.axes.reuse import REUSE, REUSED
from sshbench.axes.userkey import USER_KEY
from sshbench.clientparts import client_part
from sshbench.options import RunOptions
from sshbench.targets.servers import DEFAULT as DEFAULT_SERVER
from sshbench.targets.servers import launcher, takes_sshd
from sshbench.vocabulary.case_terms import PIPE, CaseKind
from sshbench.vocabulary.errors import MissingToolError, UsageError

# What a declared axis crosses, in words, and the option that adds such cases (axes/base.py: `kinds`)
_MEASURES = {CaseKind.COMMAND: ("short commands", "--commands (e.g. --commands true)"),
             CaseKind.CIPHER: ("the cipher sweep", "--ciphers (e.g. --ciphers default)"),
             CaseKind.MAC: ("the MAC sweep", "--macs (e.g. --macs default)")}


def ignored(args: argparse.Namespace, methods: tuple[str, ...]) -> None:
    """An option that would have no effect in this combination is an error, never silently dropped."""
    if args.runs is not None:
        for option, value in (("--precision", args.precision), ("--min-runs", args.min_runs),
                              ("--max-runs", args.max_runs), ("--tie-margin", args.tie_margin)):
            if value is not None:
                raise UsageError(f"{option} sets when sampling stops, and --runs is fixed mode: drop one of them")
    elif args.setup_runs is not None:
        raise UsageError("--setup-runs applies to fixed mode: add --runs N, or drop it")
    if args.precision is not None and args.tie_margin is not None:
        raise UsageError("--tie-margin settles rankings in decision mode, and --precision is precision mode: drop "
                         "one of them")
    if args.size and args.sample_seconds is not None:
        raise UsageError("--sample-seconds sizes samples when --size is not given: drop one of them")
    if args.placement is not None and args.destination:
        raise UsageError("--placement splits this machine's CPUs between sshbench's client side and its embedded "
                         "server; a real host's server runs on that host: drop --placement")
    if args.ssh_config and not args.destination:
        raise UsageError("--ssh-config is for real hosts: give a destination (sshbench run HOST --ssh-config FILE), "
                         "or drop it")
    if args.logins_seconds is not None and not args.logins:
        raise UsageError("--logins-seconds applies to --logins: add --logins (e.g. --logins 1,4,16,64), or drop it")
    if all(m == PIPE for m in methods):
        for option, given in (("--workdir", args.workdir), ("--sink", args.sink), ("--verify", args.verify)):
            if given:
                raise UsageError(f"{option} applies to the file methods: add --method scp,sftp,rsync (or all), "
                                 "or drop it")
    if args.verify and args.sink == "null":
        raise UsageError("--verify hashes the received files, and --sink null keeps none: drop one of them")


def unapplied(options: RunOptions) -> None:
    """A declared axis with no case of its kinds to cross (--reuse without --commands: the cipher sweep ran,
    the option dropped), and a user key compared over reused connections."""
    measured = {kind for kind, there in ((CaseKind.COMMAND, bool(options.commands)),
                                         (CaseKind.CIPHER, options.ciphers != "none"),
                                         (CaseKind.MAC, options.macs != "none")) if there}
    for axis in DECLARED:
        if options.dim_values(axis.name) and not axis.kinds & measured:
            kinds = [kind for kind in _MEASURES if kind in axis.kinds]
            raise UsageError(f"{axis.option} applies to {' and '.join(_MEASURES[k][0] for k in kinds)}: add "
                             f"{' or '.join(_MEASURES[k][1] for k in kinds)}, or drop {axis.option}")
    keys = [key for key in options.dim_values(USER_KEY.name) if key != USER_KEY.plain]
    if keys and REUSED in options.dim_values(REUSE.name):
        raise UsageError(f"{USER_KEY.option} {keys[0]} with {REUSE.option} {REUSED}: a reused connection keeps the "
                         "key of the login that opened it, so comparing keys means fresh logins: drop "
                         f"{REUSED} from {REUSE.option}, or measure {REUSE.option} in a run of its own")


def for_hosts(options: RunOptions, destinations: list[str], servers: list[str]) -> None:
    """What the real hosts or the embedded servers named cannot take: --sshd with no OpenSSH server, a slow
    login on a real server or a build's, a client key a server does not accept or sshbench cannot choose, a client
    that is not installed or cannot go where the run goes."""
    _clients(options, destinations, servers)
    if options.sshd is not None and not any(map(takes_sshd, servers)):
        raise UsageError(f"--sshd names the OpenSSH sshd of the embedded server, and --server {','.join(servers)} runs "
                         f"none: add {DEFAULT_SERVER} to --server (e.g. --server {DEFAULT_SERVER},{servers[0]}), or "
                         "drop --sshd")
    if options.slow_login is not None and destinations:
        raise UsageError(f"--slow-login {options.slow_login} is reproduced in sshbench's own embedded OpenSSH server, "
                         "and sshbench never changes a real server: drop --slow-login, or the destination")
    if options.slow_login is not None and options.builds:
        raise UsageError(f"--slow-login {options.slow_login} is reproduced in the embedded OpenSSH server alone, not "
                         "in the servers of --build: drop one of them")
    if options.slow_login is not None and not options.builds:
        cannot = [name for name in servers if options.slow_login not in launcher(name).slow_logins]
        if cannot:  # refused here, before the client or any host is looked at (it was, after them)
            raise UsageError(f"--slow-login {options.slow_login}: reproduced in the embedded OpenSSH server only, "
                             f"not in {cannot[0]}: leave {cannot[0]} out of --server (e.g. --server "
                             f"{DEFAULT_SERVER}), or drop --slow-login")
    keys = options.dim_values(USER_KEY.name)
    if keys and destinations:
        raise UsageError(f"{USER_KEY.option} chooses among the client keys sshbench's embedded server makes and "
                         "authorizes; a real host is logged in with your own keys, which sshbench never chooses "
                         f"among: drop {USER_KEY.option}, or the destination")
    for name in () if options.builds else servers:
        refused = [key for key in keys if key not in launcher(name).user_keys]
        if refused:
            able = [other for other in servers if set(keys) <= launcher(other).user_keys]
            instead = f" (e.g. --server {','.join(able)})" if able else ""
            raise UsageError(f"{USER_KEY.option} {refused[0]}: --server {name} accepts "
                             f"{', '.join(sorted(launcher(name).user_keys))} client keys only: drop {refused[0]}, or "
                             f"leave {name} out of --server{instead}")


def _clients(options: RunOptions, destinations: list[str], servers: list[str]) -> None:
    """--client: a library client not installed (exit 3, with the command that installs it), or asked for where its
    driver does not go yet: a real host, an emulated link, a build, a reproduced slow login; a client that says
    nothing of what it negotiated (dbclient) against an embedded server whose log cannot say it either."""
    parts = [part for name in options.dim_values(CLIENT.name) if (part := client_part(name)) and not part.is_program]
    for part in parts:
        if (why := part.unavailable()) is not None:
            raise MissingToolError(f"{CLIENT.option} {part.name}: {why}")
    if not parts:
        return
    name = parts[0].name
    for given, why in ((destinations, "a real host is reached through your own ssh setup only, and a client driver "
                                      "connects on its own to sshbench's embedded servers"),
                       (options.links, "its driver's connections do not cross sshbench's emulated links yet"),
                       (options.builds, "--build compares the ssh and sshd of SSH builds; a client driver is none"),
                       (options.slow_login, "--slow-login reproduces a stall in OpenSSH's own client and server")):
        if given:
            raise UsageError(f"{CLIENT.option} {name}: {why}: drop {name} from {CLIENT.option}, or measure it in a "
                             "run of its own")
    for part in parts:
        silent = [] if part.says_negotiation else [s for s in servers if not launcher(s).logs_negotiation]
        if silent:
            raise UsageError(f"{CLIENT.option} {part.name}: {part.title} says nothing of what it negotiated, and "
                             f"--server {silent[0]} logs none of it, so nothing would prove a sample's cipher: leave "
                             f"{silent[0]} out of --server (e.g. --server {DEFAULT_SERVER}), or drop {part.name} from "
                             f"{CLIENT.option}")
