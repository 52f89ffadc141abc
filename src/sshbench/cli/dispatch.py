"""Which function runs each command, its module imported only when it is the one asked for.

Each entry imports its command where it is called, not by name from a
string: `sshbench --version` does not load the measuring code, and the
import contracts (pyproject.toml) still see every edge.
"""

from __future__ import annotations

import argparse
from typing import Protocol

from sshbench.cli.context import Context


class Command(Protocol):
    def __call__(self, args: argparse.Namespace, ctx: Context) -> int:
        """Run the command parsed into `args`, printing through `ctx`; its exit code (errors raise)."""
        ...


def _run(args: argparse.Namespace, ctx: Context) -> int:
    from sshbench.cli.run import cmd_run

    return cmd_run(args, ctx)


def _recommend(args: argparse.Namespace, ctx: Context) -> int:
    from sshbench.cli.recommend import cmd_recommend

    return cmd_recommend(args, ctx)


def _clients(args: argparse.Namespace, ctx: Context) -> int:
    from sshbench.cli.clients import cmd_clients

    return cmd_clients(args, ctx)


def _report(args: argparse.Namespace, ctx: Context) -> int:
    from sshbench.cli.report import cmd_report

    return cmd_report(args, ctx)


def _compare(args: argparse.Namespace, ctx: Context) -> int:
    from sshbench.cli.report import cmd_compare

    return cmd_compare(args, ctx)


def _algos(args: argparse.Namespace, ctx: Context) -> int:
    from sshbench.cli.algos import cmd_algos

    return cmd_algos(args, ctx)


# By the subcommand's name (parser.SUBCOMMANDS; `sshbench HOST` is `run`)
COMMANDS: dict[str, Command] = {"run": _run, "recommend": _recommend, "clients": _clients, "report": _report,
                                "compare": _compare, "algos": _algos}
