"""The commands beside `run`: recommend, clients, report, compare, algos (their options and help).

Split from cli/parser.py, which keeps the run's many options and the
parsing into RunOptions; these only name what each tool command takes.
"""

from __future__ import annotations

import argparse
from typing import Any

from sshbench.render.exporters import EXPORTERS, DirectoryExporter
from sshbench.targets.servers import DEFAULT as DEFAULT_SERVER
from sshbench.targets.servers import SERVERS


def _json_flag(parser: argparse.ArgumentParser, instead: str, schema: str) -> None:
    """--json: the command's one JSON document (render/jsondoc.py; its JSON Schema ships in sshbench/schemas)."""
    parser.add_argument("--json", "-j", action="store_true",
                        help=f"one JSON document on stdout instead of {instead} (schema: sshbench/{schema})")


def add_tool_commands(sub: Any) -> None:
    """Add the tool commands to the top-level subparsers (argparse's _SubParsersAction)."""
    rec = sub.add_parser("recommend", help="ssh_config and sshd_config lines from a results file, validated")
    rec.add_argument("results", nargs="+", help="a results JSON written by sshbench run (given several, the "
                     "newest run is used and named)")
    rec.add_argument("--policy", default="modern", metavar="modern|compatible|FILE",
                     help="modern: recommended algorithms only; compatible: also acceptable ones older peers need; "
                     "FILE: a TOML policy that forbids or allows names (docs/configs.md)")
    rec.add_argument("--host-key-algorithms", action="store_true", help="also write HostKeyAlgorithms (off by "
                     "default: setting it turns off ssh's use of the host key type already in known_hosts)")
    rec.add_argument("--exact", action="store_true", help="write the lists alone (no '^': servers that support "
                     "none of them are refused) instead of putting them before the client's defaults")
    rec.add_argument("--clients", metavar="all|NAMES|FILE|DIR", action="append",
                     help="whom the server drop-in must keep able to log in: known clients (sshbench clients list) "
                     "by name or family (openssh, paramiko; -NAME leaves one out), recordings made with sshbench "
                     "clients record (added to the known ones; none,FILE for yours alone), or none; repeatable "
                     "(default: all known clients)")
    rec.add_argument("--allow-lockout", action="store_true",
                     help="write the policy's strict server lists even though they shut out clients that log in "
                     "today (the table names them); without it such a drop-in is not written (exit 11)")
    rec.add_argument("--host", help="Host pattern of the client block (default: the measured host, or * for the "
                     "embedded server)")
    rec.add_argument("--write", metavar="DIR", help="also write ssh_config.sshbench and 50-sshbench.conf into DIR")
    rec.add_argument("--sshd", help="sshd binary used to validate the drop-in")
    rec.add_argument("--ssh", help="ssh binary used to validate the client block")
    rec.add_argument("--for-no-aesni", action="store_true", help="accept a --no-aesni run: a config for CPUs "
                     "without AES instructions (refused otherwise on a machine that has them)")
    _json_flag(rec, "the text", "recommend")

    cli = sub.add_parser("clients", help="the SSH clients a server drop-in is checked against; record your own; "
                         "build a measured client's driver (install)")
    cli_sub = cli.add_subparsers(dest="clients_command", metavar="list|show|record|check|install")
    _json_flag(cli_sub.add_parser("list", help="the known clients: recorded offers shipped with sshbench"),
               "the table", "clients")
    show = cli_sub.add_parser("show", help="one known client's recorded offer, as JSON")
    show.add_argument("name", help="a name from `sshbench clients list`")
    record = cli_sub.add_parser("record", help="record a client's offer (its first KEXINIT): run a command with "
                                "{port}, or wait for a client to connect")
    record.add_argument("name", help="a short name for it (lower case, digits, . _ + -), e.g. myapp-2.1")
    record.add_argument("--output", "-o", help="where the recording goes (default: NAME.json; '-' for stdout)")
    record.add_argument("--listen", default="127.0.0.1:0", metavar="ADDRESS[:PORT]",
                        help="where to wait for the client (default: 127.0.0.1, a free port)")
    record.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the client (default 60)")
    record.add_argument("--software", help="how tables name it (default: from its banner)")
    record.add_argument("--source", help="where this client came from, kept in the recording (default: the program's "
                        "name and its banner, never its arguments, which may hold credentials)")
    record.add_argument("--used-by", help="who ships it, shown in the tables (e.g. 'our backup agent')")
    record.add_argument("--aead-without-mac", action="store_true",
                        help="this client connects without a common MAC when an AEAD cipher is chosen (as OpenSSH, "
                        "HPN-SSH and Dropbear do: set by itself for those, from their banner; not paramiko); "
                        "without this the check assumes it needs one")
    record.add_argument("client_command", nargs="*", metavar="-- COMMAND",
                        help="the client to start, after --, with {port} where its port goes")
    check = cli_sub.add_parser("check", help="who would be shut out by a server config that exists: an sshd_config, a "
                               "drop-in, or a saved `sshd -T` of a running server (exit 11 if anyone is)")
    check.add_argument("config", help="the sshd_config or sshd_config.d drop-in to check (read with this machine's "
                       "sshd -T, never applied), or a file holding a server's `sshd -T` output")
    check.add_argument("--clients", metavar="all|NAMES|FILE|DIR", action="append",
                       help="whom to check (as recommend --clients; default: all known clients)")
    check.add_argument("--sshd", help="the sshd that reads the config (default: from PATH or /usr/sbin)")
    install = cli_sub.add_parser("install", help="build a client driver that is compiled (goxcrypto: Go's "
                                 "x/crypto/ssh) into the venv's opt/, once; runs use it offline (make clients)")
    install.add_argument("names", nargs="+", metavar="NAME|all",
                         help="a --client name, or all: every client whose driver is built (one whose toolchain "
                         "is missing is skipped, saying so)")
    cli.set_defaults(clients_command="list")

    rep = sub.add_parser("report", help="re-render a results file: terminal tables, HTML, Markdown, charts")
    rep.add_argument("results", nargs="+", help="a results JSON written by sshbench run; several files or "
                     "directories of them (*.json) make one fleet report: every machine side by side")
    rep.add_argument("--wide", action="store_true", help="every table column, however narrow the terminal")
    for exporter in EXPORTERS:  # render/exporters/: a module and one line there add a format here
        rep.add_argument(exporter.option, metavar="DIR" if isinstance(exporter, DirectoryExporter) else "FILE",
                         help=exporter.help)
    _json_flag(rep, "the tables", "report")

    cmp = sub.add_parser("compare", help="compare runs case by case, with intervals and significance")
    cmp.add_argument("results", nargs="+", help="results files; the first is the baseline (one multi-host file: "
                     "its hosts against the first; files with the same hosts: host by host)")
    cmp.add_argument("--normalize", metavar="REF", help="divide each run by its own reference: 'tcp' (the raw "
                     "TCP control) or a cipher name, to compare machines by shape")
    cmp.add_argument("--fail-above", metavar="PCT", help="exit 7 when any case is significantly slower than the "
                     "baseline by more than this, e.g. 5%%")
    cmp.add_argument("--allow-different", action="store_true", help="--fail-above between runs made with "
                     "different options (--no-aesni, --data, --link ...): refused unless given")
    _json_flag(cmp, "the tables", "compare")

    algos = sub.add_parser("algos", help="what this client and a server (the embedded one, or DESTINATION) "
                           "support, with grades and Terrapin")
    algos.add_argument("destination", nargs="?", help="[user@]host[:port] or a Host alias: read that server's offer "
                       "(its first KEXINIT, no login), like ssh-audit")
    algos.add_argument("--ssh-config", help="with a destination: ssh config file to use instead of ~/.ssh/config")
    _json_flag(algos, "the tables", "algos")
    algos.add_argument("--fail-on", choices=("weak", "broken", "never"), default="weak",
                       help="with a destination: exit 12 when the server offers weak algorithms, 13 when broken ones "
                       "or Terrapin (default: weak; broken: only 13; never: always 0)")
    algos.add_argument("--server", default=DEFAULT_SERVER, help="without a destination: which embedded server "
                       f"({', '.join(SERVERS)})")
    algos.add_argument("--sshd", help="sshd binary for the embedded server")
    algos.add_argument("--ssh", help="ssh client binary")
