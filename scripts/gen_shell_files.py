"""Write the man page and shell completions from the real parser (cli/parser.py), so they cannot drift.

    .venv/bin/python scripts/gen_shell_files.py          # rewrite share/
    .venv/bin/python scripts/gen_shell_files.py --check  # exit 1 if share/ is stale (tests run this)

argparse-manpage renders the parser as a man page, shtab as bash and zsh
completion scripts: both read argparse directly, so every option and its
help text come from the one place that defines them. The files are committed
and installed by `pip install` (pyproject.toml, data-files).
"""

from __future__ import annotations

import sys
from pathlib import Path

import shtab
from argparse_manpage.manpage import Manpage

from sshbench import __version__
from sshbench.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[1]
MAN_DATE = "2026-11"  # the man page's date: fixed, so the files depend on the parser alone
FILES = {
    "share/man/man1/sshbench.1": lambda: str(Manpage(_parser(), _data={
        "date": MAN_DATE, "version": __version__, "manual_title": "sshbench manual",
        "description": "measure SSH ciphers, MACs, key exchanges and transfer tools; recommend safe configs"})),
    "share/bash-completion/completions/sshbench": lambda: shtab.complete(_parser(), "bash"),
    "share/zsh/site-functions/_sshbench": lambda: shtab.complete(_parser(), "zsh"),
}


def _parser():  # type: ignore[no-untyped-def]
    parser = build_parser()
    parser.prog = "sshbench"
    return parser


def main(argv: list[str]) -> int:
    stale = []
    for relative, make in FILES.items():
        path, text = ROOT / relative, make().rstrip("\n") + "\n"
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(relative)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {', '.join(stale)}; run: .venv/bin/python scripts/gen_shell_files.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
