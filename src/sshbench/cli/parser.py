"""The command line: subcommands, options, and the run's options built from them (checked, never ignored)."""

from __future__ import annotations

import argparse
import difflib
import os
from typing import Any, NoReturn

from sshbench import __version__
from sshbench.axes import DECLARED
from sshbench.cli import refusals, values
from sshbench.cli.commands import add_tool_commands
from sshbench.compressors import OFF, compression_help, parse_compression
from sshbench.methods import METHODS, knobs, parse_methods
from sshbench.options import (
    DEFAULT_CIPHER_MAC,
    DEFAULT_ECHOES,
    DEFAULT_MAC_CIPHER,
    RunOptions,
    parse_directions,
    parse_duration,
    parse_fraction,
)
from sshbench.plan.budget import MAX_RUNS_FROM_BUDGET
from sshbench.targets.servers import DEFAULT as DEFAULT_SERVER
from sshbench.targets.servers import SERVERS, window_variants
from sshbench.vocabulary.buildspec import parse_builds
from sshbench.vocabulary.case_terms import PIPE
from sshbench.vocabulary.commands import SLOW_LOGINS
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.linkspec import MAX_LINKS, LinkSpec, parse_links
from sshbench.vocabulary.units import parse_count, parse_size

D = RunOptions()  # the one source of every default: the parser, its help and options_from_args read it
SUBCOMMANDS = ("run", "algos", "recommend", "report", "compare", "clients")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, not argparse's usage dump: the problem and where to look (the subcommand's own help)."""
        raise UsageError(f"{message} (see {self.prog} --help)")


def parse(args: list[str]) -> argparse.Namespace:
    """Parse; an unknown option points to the help of the command it was given to.

    `clients record NAME [options] -- COMMAND...`: everything after the first
    `--` is the client's command line, kept whole (argparse would read its
    options as ours)."""
    command: list[str] = []
    if args[:2] == ["clients", "record"] and "--" in args:
        args, command = args[:args.index("--")], args[args.index("--") + 1:]
    namespace, extra = build_parser().parse_known_args(args)
    if command:
        namespace.client_command = command
    if extra:
        name = getattr(namespace, "command", None)
        raise UsageError(f"unrecognized arguments: {' '.join(extra)} (see sshbench {name + ' ' if name else ''}"
                         "--help)")
    _refuse_blank(args, _valued(build_parser()))
    return namespace


def _valued(parser: argparse.ArgumentParser) -> set[str]:
    """Every option of every subcommand that takes a value (not a switch)."""
    found: set[str] = set()
    for action in parser._actions:  # argparse keeps no public list of them
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _valued(sub)
        elif action.option_strings and action.nargs != 0:
            found |= set(action.option_strings)
    return found


def _refuse_blank(args: list[str], valued: set[str]) -> None:
    """An option given an empty value (`--ciphers ''`, `--size ''`) is an error, never a silent default or an
    empty selection: every list and value option needs something in it. Options are read as given
    (`--opt ''` and `--opt=`); a bare `--compression` (SSH's zlib) has no value at all and is fine."""
    for index, word in enumerate(args):
        if word == "--":
            return
        option, equals, value = word.partition("=")
        if option not in valued or not option.startswith("--"):
            continue
        if not equals:
            following = args[index + 1] if index + 1 < len(args) else None
            if following is None or following.strip() or following.startswith("-"):
                continue
            value = following
        if not value.strip():
            raise UsageError(f"{option} is empty: give it a value (see sshbench --help), or leave {option} out")


def mistyped_command(args: list[str]) -> str | None:
    """A usage error when the first word looks like a misspelt subcommand, not a destination.

    `sshbench WORD` benchmarks the host WORD, so `sshbench reprot A.json` would
    try to reach a host called "reprot" (or, with a matching Host alias,
    benchmark a real server). A word within a small edit of a subcommand, or
    followed by a results file, is refused with "did you mean"; a real host
    of that name is still reachable as `sshbench run WORD`.
    """
    if not args or args[0].startswith("-") or args[0] in SUBCOMMANDS:
        return None
    word = args[0]
    close = difflib.get_close_matches(word.lower(), SUBCOMMANDS, n=1, cutoff=0.7)
    json_after = any(a.endswith(".json") and os.path.isfile(a) for a in args[1:2])
    if not close and not json_after:
        return None
    guess = close[0] if close else "report"
    return (f"{word!r} is not a command: did you mean 'sshbench {guess}'? (a host of that name is measured with "
            f"'sshbench run {word}')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sshbench", description="Measure SSH ciphers, MACs, key exchanges and transfer tools on "
                     "a private loopback OpenSSH server or a real host, and turn the numbers into a safe config. "
                     "Without a command, the arguments go to 'run': 'sshbench' runs the default benchmark, "
                     "'sshbench HOST' measures HOST ([user@]host[:port] or a Host alias); run options are listed by "
                     "'sshbench run --help'. Linux only; Python 3.11+.")
    parser.add_argument("--version", action="version", version=f"sshbench {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    run = sub.add_parser("run", help="the benchmark (default when no command is given)")
    run.add_argument("destination", nargs="*", help="[user@]host[:port] or a Host alias of your ssh config: "
                     "measure that real server with your own ssh setup; several are measured one after another "
                     "into one results file (default: a private loopback sshd)")
    run.add_argument("--ssh-config", help="with a destination: ssh config file to use instead of ~/.ssh/config")
    run.add_argument("--server", default=DEFAULT_SERVER, help=f"the embedded server: {_servers()}, a comma list or "
                     "all: each measured in turn, then compared server by server; a server with its receive window "
                     f"set is a server of its own ({window_variants()})")
    run.add_argument("--label", help="this machine's name in a fleet report (e.g. the inventory name; letters, "
                     "digits and .-_), recorded in the results")
    run.add_argument("--max-bytes", help="stop before sending more than this in total, e.g. 20GB (politeness "
                     "towards real links)")
    sel = run.add_argument_group("what to measure (comma lists; keywords all, default, none; -NAME excludes)")
    sel.add_argument("--ciphers", help="cipher sweep, upload and download (default: all; none with --commands)")
    sel.add_argument("--macs", help="MAC sweep with one non-AEAD cipher, upload (default: all; none with --link "
                     "or --commands)")
    sel.add_argument("--kex", help="key exchange handshake latency (default: all; none with --link or "
                     "--commands)")
    sel.add_argument("--commands", nargs="?", const="true", metavar="LIST",
                     help="short commands, each timed from ssh's start to its exit, phase by phase: true (ssh HOST "
                     "true), output (16 KiB printed), input (64 KiB piped in, an Ansible module), or all; alone "
                     "the option means true, and the sweeps not named are left out (docs/commands.md)")
    sel.add_argument("--logins", metavar="LIST", help="logins per second (root): parallel clients, each running "
                     "ssh HOST true again and again, against the embedded server as a listening sshd (its "
                     "MaxStartups refusals counted), e.g. 1,4,16,64; per --kex named, else the client's default "
                     "(docs/commands.md)")
    sel.add_argument("--logins-seconds", type=float, metavar="S", help="how long each --logins count runs "
                     f"(default {D.logins_seconds:g})")
    sel.add_argument("--slow-login", choices=tuple(SLOW_LOGINS), help="reproduce a classic slow login with the "
                     "embedded OpenSSH server (root): dns, UseDNS yes with a resolver that never answers; gssapi, "
                     "a client that tries GSSAPI first whose Kerberos lookups go unanswered; the phase split then "
                     "shows where it lands and names it (docs/commands.md)")
    sel.add_argument("--hostkeys", help="host key algorithm handshake latency (default: all; none with --link or "
                     "--commands)")
    sel.add_argument("--cipher-mac", default="auto", help="MAC for non-AEAD ciphers in the cipher sweep (auto: "
                     f"{DEFAULT_CIPHER_MAC}, or the next both sides offer)")
    sel.add_argument("--mac-cipher", default="auto", help="non-AEAD cipher for the MAC sweep (auto: "
                     f"{DEFAULT_MAC_CIPHER}, or the next both sides offer)")
    sel.add_argument("--directions", default="both", help="cipher sweep directions: upload, download or both")
    how = run.add_argument_group("how much (default: decision mode: every case to an interval, then samples "
                                 "where the ranking is unsettled)")
    how.add_argument("--time-budget", help="stop starting samples after this long, e.g. 90s, 8m, 1h; 'none' "
                     "for no limit (default: 8m, 8m per link with --link, none with --runs)")
    how.add_argument("--fit", action="store_true", help="when the budget cannot hold every case's minimum, leave "
                     "out the largest part (host keys, key exchanges, MACs, references, a direction) until it can, "
                     "saying what, instead of refusing (always so with the default budget)")
    how.add_argument("--plan", action="store_true", help="check and plan only: start what the run needs (servers, "
                     "links, logins), say what it would measure and the least time its minimum needs, then stop "
                     "without measuring (exit 2 when the budget cannot hold it, as the run would)")
    how.add_argument("--tie-margin", help="neighbours whose ratio's interval lies within 1 +- this are "
                     f"'equivalent', e.g. 5%% or 0.05 (default: {D.tie_margin * 100:g}%%)")
    how.add_argument("--min-runs", type=_count, help=f"measured samples per case at least (default: {D.min_runs}, "
                     "the fewest that give a 95%% interval)")
    how.add_argument("--max-runs", type=_count, help=f"measured samples per case at most (default: {D.max_runs}, or "
                     f"up to {MAX_RUNS_FROM_BUDGET} where the time budget could take every case further)")
    how.add_argument("--precision", help="precision mode instead: sample until each median's 95%% interval "
                     "is within this, e.g. 3%% or 0.03")
    how.add_argument("--runs", type=_count, help="fixed mode instead: this many counted samples per "
                     "throughput case, a set-aside one measured again (up to 3) (time budget only if given)")
    how.add_argument("--setup-runs", type=_count, help="fixed mode: samples per key exchange / host key "
                     f"case (default: {D.setup_runs})")
    how.add_argument("--partner-kex", help="key exchange of every throughput and host key case: auto (a "
                     "fast one both sides offer: curve25519-sha256 first), default (ssh's own), or a name "
                     f"(default: {D.partner_kex})")
    how.add_argument("--size", help="bytes per transfer, e.g. 512MiB, 2GB, 1G (default: sized per case so a "
                     "sample lasts --sample-seconds)")
    how.add_argument("--sample-seconds", type=float, help="target data phase per sample when "
                     f"sizing automatically, fixed for the run (default: {D.sample_seconds:.1f} s, a sweep's pipe "
                     "samples 0.67 s or more so their steady window holds 0.5 s, over --link 40 round trips or more, "
                     "with loss 100, several streams 4 s or more; then what the run's measured noise calls for "
                     "in decision mode)")
    how.add_argument("--seed", type=_count, help="schedule seed, to repeat a run's order (default: random, recorded)")
    how.add_argument("--placement", choices=("auto", "split", "free"), help="embedded servers: "
                     "client and server on separate halves of this machine's CPUs, as on two machines "
                     "(split), wherever the scheduler puts them (free), or whichever of the two a short trial "
                     "finds steadier here (auto, default; split unless free is significantly steadier); see "
                     "docs/methodology.md")
    how.add_argument("--timeout", type=float, default=D.timeout_seconds, help="seconds allowed per connection on "
                     f"top of the expected transfer time (default: {D.timeout_seconds:g})")
    data = run.add_argument_group("data and crypto")
    data.add_argument("--data", choices=("zero", "random", "text", "mixed"), default="zero",
                      help="payload: zeros (default), random bytes (incompressible), text (compresses ~3:1) or mixed "
                      "(a tar of source, documents, tables and media; docs/compression.md); made once per run, "
                      "streamed without slowing the source")
    data.add_argument("--compression", nargs="?", const="ssh", metavar="LIST",
                      help=f"how the bytes are compressed, each a case dimension: {compression_help()}; e.g. "
                      "off,ssh,zstd. Only meaningful with --data text or mixed (docs/compression.md)")
    data.add_argument("--streams", metavar="LIST", help="parallel SSH connections sharing each transfer's bytes, "
                      "each a case dimension: e.g. 1,4,16 (default 1; pipe only; docs/streams.md)")
    data.add_argument("--no-aesni", action="store_true", help="mask AES-NI, VAES and PCLMULQDQ in OpenSSL for "
                      "client, server and ceilings: what a CPU without AES instructions would see")
    data.add_argument("--no-controls", action="store_true", help="skip the raw TCP control and crypto ceilings")
    data.add_argument("--iperf3-port", type=int, metavar="PORT", help="real hosts: the port of the one-off iperf3 "
                      "server of the raw-TCP ceiling, one the firewall passes and nothing else uses (default 5201)")
    link = run.add_argument_group("emulated link (root: the embedded server behind a link in sshbench's own "
                                  "network namespaces, see docs/links.md)")
    link.add_argument("--link", action="append", help="rtt=20ms[,rate=100mbit][,loss=0.1%%][,jitter=2ms]"
                      "[,cc=cubic] (cc: the TCP congestion control of the link's connections); a list sweeps, "
                      "e.g. rtt=0,20ms,80ms: every case crosses each link, interleaved (the MAC, key "
                      "exchange and host key sweeps are off unless named: the link does not change their CPU "
                      "cost); repeat it for links that differ in more than one value (--link rtt=20ms "
                      "--link rtt=80ms,rate=100mbit)")
    link.add_argument("--echo", type=_count, help="keystroke echo round trips per cipher (and per link), as sshping "
                      "measures interactive latency (default: 40 with --link, else 0)")
    link.add_argument("--link-tcp", choices=("tuned", "kernel"), help="the emulated hosts' TCP buffers: a tuned "
                      "host's (autotuning up to 128 MiB, so TCP's own window never limits; default) or the "
                      "kernel's defaults (an untuned host)")
    link.add_argument("--none-cipher", action="store_true", help="also measure HPN-SSH's none cipher on the builds "
                      "that have it (NoneSwitch: data in the clear after login; graded broken, never recommended)")
    link.add_argument("--none-mac", action="store_true", help="with --none-cipher: the none MAC too "
                      "(NoneMacEnabled: the data is not even authenticated)")
    link.add_argument("--build", action="append", help="an SSH build to compare (again for each): stock (this "
                      "system's ssh and sshd), a build `make ssh-builds` made (e.g. hpn-ssh-18.8.0), an install "
                      "prefix's path, or client=X,server=Y for a mixed pair; every case crosses each build, "
                      "interleaved (docs/builds.md)")
    tools = run.add_argument_group("transfer methods (the cipher sweep runs once per method)")
    methods = ", ".join(f"{name} ({m.help})" if m.help else name for name, m in METHODS.items())
    tools.add_argument("--method", default=PIPE, help=f"comma list of {methods}, or all (default: {PIPE})")
    tools.add_argument("--workdir", help="directory for the file methods' test files (default: the temp dir)")
    tools.add_argument("--remote-workdir", help="with a destination: directory on the server for its test files "
                       "(default: the server's $TMPDIR or /tmp); its free space is checked first")
    tools.add_argument("--sink", choices=("file", "null"), help="file methods: the receiver "
                       "writes a real file (default; size checked) or /dev/null")
    tools.add_argument("--verify", action="store_true", help="SHA-256 of every received file (outside the timing)")
    tools.add_argument("--files", type=_count, help="many-small-files set: this many files per transfer (with "
                       "--file-size); per-file overhead, not the cipher, dominates there")
    tools.add_argument("--file-size", help="size of each file of the --files set, e.g. 64KiB")
    for _, knob in knobs():  # methods/: a method's knobs bring their own options
        tools.add_argument(knob.option, help=knob.help)
    for axis in DECLARED:  # axes/: a declared axis brings its own option
        tools.add_argument(axis.option, dest=f"axis_{axis.name}", help=axis.help)
    out = run.add_argument_group("where")
    out.add_argument("--output", "-o", help="results JSON path; a CSV of samples is written beside it "
                     "(default: sshbench-results/sshbench-<UTC time>.json)")
    out.add_argument("--quiet", "-q", action="store_true", help="no progress and no tables: only the results "
                     "path (and errors)")
    out.add_argument("--wide", action="store_true", help="every table column, however narrow the terminal "
                     "(by default CPU, efficiency and cycle columns give way first)")
    out.add_argument("--jsonl", action="store_true", help="machine-readable: one JSON object per sample on stdout, "
                     "then one for the finished run; no tables")
    out.add_argument("--sshd", help="sshd binary for the embedded OpenSSH server (default: from PATH or /usr/sbin)")
    out.add_argument("--ssh", help="ssh client binary (default: from PATH)")

    add_tool_commands(sub)
    return parser


def _count(text: str) -> int:
    """argparse's type for whole-number options: digits 0-9 only (parse_count; argparse names the option)."""
    try:
        return parse_count(text, "value")
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("bad value ", "")) from None


def _int_option(value: Any, name: str) -> int:
    if value is None or value < 1:
        raise UsageError(f"{name} must be a whole number of at least 1")
    return int(value)


def _port(value: int) -> int:
    if not 1 <= value <= 65535:
        raise UsageError(f"--iperf3-port {value}: a TCP port is 1-65535")
    return value


DEFAULT_TIME_BUDGET = "8m"


def _links(given: list[str]) -> tuple[LinkSpec, ...]:
    """Every link of every --link, in the order given, each once (at most MAX_LINKS in all)."""
    links = tuple({link.label: link for text in given for link in parse_links(text)}.values())
    if len(links) > MAX_LINKS:
        raise UsageError(f"--link names {len(links)} links in all; at most {MAX_LINKS} per run")
    return links


def _time_budget(args: argparse.Namespace, links: int) -> float | None:
    """'none' disables it; in fixed mode (--runs) there is none unless asked for. Over emulated links the
    default is per link: each link is a whole set of cases, and a long round trip slows every handshake."""
    text = args.time_budget or (None if args.runs is not None else DEFAULT_TIME_BUDGET)
    if text is None or text.lower() == "none":
        return None
    return parse_duration(text) * (max(1, links) if args.time_budget is None else 1)


def _servers() -> str:
    return ", ".join(f"{name} (default)" if name == DEFAULT_SERVER else name for name in SERVERS)


def options_from_args(args: argparse.Namespace) -> RunOptions:
    """The run's settings from its arguments, checked once (RunOptions checks the values themselves)."""
    methods = parse_methods(args.method)
    refusals.ignored(args, methods)
    links = _links(args.link or [])
    logins = values.login_counts(args.logins)
    commands = values.commands(args.commands, logins)
    options = RunOptions(
        precision=None if args.precision is None else parse_fraction(args.precision, "--precision"),
        tie_margin=D.tie_margin if args.tie_margin is None else parse_fraction(args.tie_margin, "--tie-margin"),
        partner_kex=args.partner_kex or D.partner_kex,
        min_runs=D.min_runs if args.min_runs is None else args.min_runs,
        max_runs=D.max_runs if args.max_runs is None else args.max_runs, max_runs_auto=args.max_runs is None,
        time_budget_seconds=_time_budget(args, len(links)),
        ciphers=values.ciphers(args.ciphers, commands), macs=values.sweep(args.macs, links, commands),
        kex=values.sweep(args.kex, links, commands), hostkeys=values.sweep(args.hostkeys, links, commands),
        links=links, commands=commands, slow_login=args.slow_login, logins=logins,
        logins_seconds=D.logins_seconds if args.logins_seconds is None else args.logins_seconds,
        builds=parse_builds(args.build) if args.build else (),
        link_tcp=args.link_tcp or D.link_tcp,
        none_cipher=args.none_cipher or args.none_mac, none_mac=args.none_mac,
        echo_count=(DEFAULT_ECHOES if links else 0) if args.echo is None else values.echo_count(args.echo),
        size_bytes=values.size(args.size, values.stream_counts(args.streams)) if args.size else None,
        sample_seconds=D.sample_seconds if args.sample_seconds is None else args.sample_seconds,
        adapt_length=args.sample_seconds is None and not args.size,
        runs=None if args.runs is None else _int_option(args.runs, "--runs"),
        setup_runs=D.setup_runs if args.setup_runs is None else _int_option(args.setup_runs, "--setup-runs"),
        cipher_mac=args.cipher_mac, mac_cipher=args.mac_cipher, directions=parse_directions(args.directions),
        seed=args.seed, output=args.output, timeout_seconds=args.timeout, sshd=args.sshd, ssh=args.ssh,
        data=args.data, compression=parse_compression(args.compression) if args.compression is not None else (OFF,),
        streams=values.stream_counts(args.streams), no_aesni=args.no_aesni, controls=not args.no_controls,
        iperf3_port=D.iperf3_port if args.iperf3_port is None else _port(args.iperf3_port),
        placement=args.placement or D.placement,
        max_bytes=parse_size(args.max_bytes) if args.max_bytes else None,
        methods=methods, workdir=args.workdir, remote_workdir=args.remote_workdir,
        sink=args.sink or D.sink, verify=args.verify,
        files=args.files, file_size_bytes=parse_size(args.file_size) if args.file_size else None,
        knobs=tuple((knob.key, values.size_list(given) if knob.sizes else values.count_list(given, knob.option))
                    for _, knob in knobs() if (given := getattr(args, knob.key))),
        dims=tuple((axis.name, axis.parse(given)) for axis in DECLARED
                   if (given := getattr(args, f"axis_{axis.name}", None))),
    )
    refusals.unapplied(options)
    return options
