"""`sshbench algos`: what this client and the embedded server support, with grades and Terrapin verdicts."""

from __future__ import annotations

import argparse

from sshbench.cli import Context
from sshbench.errors import ExitCode
from sshbench.measure.session import embedded_terrapin
from sshbench.render.config import print_terrapin
from sshbench.render.terminal import algorithms_tables
from sshbench.targets.discovery import discover_client
from sshbench.targets.servers import embedded_server


def cmd_algos(args: argparse.Namespace, ctx: Context) -> int:
    client = discover_client(args.ssh)
    with embedded_server("openssh", client, args.sshd) as server:
        info = server.info
        ctx.out.print(f"client: {client.path}  {client.version}, {client.openssl}", highlight=False, markup=False)
        ctx.out.print(f"server: {info.path}  {info.version}, {info.openssl} (embedded, every algorithm it supports "
                      "enabled)", highlight=False, markup=False)
        for table in algorithms_tables(client, info):
            ctx.out.print(table)
        terrapin = embedded_terrapin(client, server)
    print_terrapin(ctx.out, terrapin)
    return int(ExitCode.OK)
