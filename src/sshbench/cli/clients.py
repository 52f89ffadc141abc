"""`sshbench clients`: the clients a server config is checked against, and recording a new one (and `clients
install`, cli/install.py: building a measured client's compiled driver).

`clients list` shows the known clients (recorded offers shipped with
sshbench, src/sshbench/clients/offers/). `clients record NAME` listens on a
socket, lets one client connect, keeps its banner and first KEXINIT and
hangs up, like `ssh-audit -c`: nothing is negotiated and no login happens.
Given a command after `--`, it starts that client itself (`{port}` in an
argument becomes the listener's port) and stops it once its offer is read.
The recording is what `recommend --clients FILE` checks a drop-in against.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import socket
from datetime import UTC, datetime

from rich.table import Table

from sshbench.cli.context import Context
from sshbench.clients import ClientOffer, known_clients, load_offer_file, offer_name
from sshbench.implementations import by_banner
from sshbench.plumbing.kexinit import capture_client, software_version
from sshbench.results.schema import SchemaError
from sshbench.vocabulary.errors import ExitCode, UsageError
from sshbench.vocabulary.outputs import text_output
from sshbench.vocabulary.untrusted import UntrustedText, host_name, text

MAX_RECORD_SECONDS = 600.0


def cmd_clients(args: argparse.Namespace, ctx: Context) -> int:
    if args.clients_command == "record":
        return _record(args, ctx)
    if args.clients_command == "check":
        from sshbench.cli.check import cmd_check

        return cmd_check(args, ctx)
    if args.clients_command == "install":
        from sshbench.cli.install import cmd_install

        return cmd_install(args, ctx)
    if args.clients_command == "show":
        known = {offer.name: offer for offer in known_clients()}
        if args.name.endswith(".json") or os.sep in args.name:  # a recording of the user's own, read as --clients
            offer = load_offer_file(args.name)
        elif args.name in known:
            offer = known[args.name]
        else:
            raise UsageError(f"clients show: no known client {args.name!r}; known: {', '.join(known)}, or a "
                             "recording's path")
        ctx.out.print(offer.to_json(), end="", highlight=False, markup=False, soft_wrap=True)
        return int(ExitCode.OK)
    if getattr(args, "json", False):  # the recordings themselves, each as `clients show` prints it
        print(json.dumps({"schema": "sshbench/clients", "schema_version": 1,
                          "clients": [json.loads(offer.to_json()) for offer in known_clients()]}, indent=2),
              flush=True)
        return int(ExitCode.OK)
    table = Table("name", "software", "origin", "strict kex", "used by", title="Known clients (sshbench clients)",
                  title_justify="left")
    for offer in known_clients():
        table.add_row(offer.name, offer.software, offer.origin, "yes" if offer.strict_kex else "no", offer.used_by)
    ctx.out.print(table)
    ctx.out.print("Each is a recorded first KEXINIT (`sshbench clients show NAME` prints one); `sshbench clients "
                  "record` adds your own, `recommend --clients` chooses which to check.", highlight=False,
                  markup=False)
    return int(ExitCode.OK)


def _listen(spec: str) -> tuple[str, int]:
    """ADDRESS[:PORT]: 127.0.0.1, 0.0.0.0:2222, ::1, [::1]:2222 (an IPv6 address with a port goes in brackets)."""
    if spec.startswith("["):
        host, _, rest = spec[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else "0" if not rest else "x"
    elif spec.count(":") > 1:  # a bare IPv6 address: no port
        host, port_text = spec, "0"
    else:
        host, _, port_text = spec.rpartition(":") if ":" in spec else (spec, "", "0")
    try:
        if ":" in host:
            ipaddress.IPv6Address(host)
        else:
            host_name(host, "--listen's address")
        port = int(port_text)
        if not 0 <= port < 65536:
            raise ValueError
    except (UntrustedText, ValueError):
        raise UsageError(f"--listen {spec!r}: use ADDRESS[:PORT], e.g. 127.0.0.1, 0.0.0.0:2222, ::1 or "
                         "[::1]:2222") from None
    return host, port


def _record(args: argparse.Namespace, ctx: Context) -> int:
    try:
        name = offer_name(args.name, "NAME")
        software = text(args.software, "--software") if args.software else ""
        used_by = text(args.used_by, "--used-by") if args.used_by else ""
        given_source = text(args.source, "--source") if args.source else ""
    except (SchemaError, UntrustedText) as exc:
        raise UsageError(f"clients record: {exc}") from None
    if not 1 <= args.timeout <= MAX_RECORD_SECONDS:
        raise UsageError(f"--timeout {args.timeout:g}: give 1 to {MAX_RECORD_SECONDS:.0f} seconds")
    command = list(args.client_command) or None
    if command is not None and not any("{port}" in a for a in command):
        raise UsageError("clients record: the command must contain {port} where the client's port goes, e.g. "
                         "sshbench clients record myclient -- ssh -p {port} 127.0.0.1")
    output = text_output(args.output or f"{name}.json", "--output", f"{name}.json")
    host, port = _listen(args.listen)
    try:
        listener = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        raise UsageError(f"--listen {args.listen}: cannot listen there ({exc.strerror or exc})") from None
    with listener:
        if command is None:
            bound = listener.getsockname()
            ctx.say(f"sshbench: waiting up to {args.timeout:.0f}s for one client on {bound[0]} port {bound[1]} "
                    "(it reads the client's offer and hangs up; no login)")
        offer = capture_client(listener, command, args.timeout, who=command[0] if command else "the client",
                               env=dict(os.environ))
    if not (offer.kex_algorithms and offer.ciphers):
        raise UsageError(f"clients record: {offer.banner} sent a KEXINIT that offers no "
                         f"{'key exchange' if not offer.kex_algorithms else 'cipher'}: not a client that can log in "
                         "anywhere; nothing saved")
    # never the command line: a recording is shared, and `-u user:pass`, a URL's userinfo or `sshpass -p` would go
    # with it; the program's name and the version its banner gives say which client it was
    how = given_source or (f"the program {os.path.basename(command[0])!r} ({offer.banner})" if command else
                           f"a client connecting to {args.listen} ({offer.banner})")
    recorded = ClientOffer(
        name=name, software=software or software_version(offer.banner), banner=offer.banner,
        source=f"recorded {datetime.now(UTC).date().isoformat()} by `sshbench clients record`: {how}",
        origin="recorded", kex=offer.kex, hostkey=offer.hostkey, cipher_c2s=offer.cipher_c2s,
        cipher_s2c=offer.cipher_s2c, mac_c2s=offer.mac_c2s, mac_s2c=offer.mac_s2c,
        mac_with_aead=not (args.aead_without_mac or by_banner(software_version(offer.banner)).aead_without_mac),
        used_by=used_by)
    output.write(recorded.to_json())
    if not output.is_stdout:
        ctx.say(f"sshbench: recorded {offer.banner}: {len(offer.kex_algorithms)} key exchanges, "
                f"{len(offer.ciphers)} ciphers, {len(offer.macs)} MACs -> {output.path}")
    return int(ExitCode.OK)
