"""Write the man page and shell completions from the real parser (cli/parser.py), so they cannot drift.

    .venv/bin/python scripts/gen_shell_files.py          # rewrite share/ and the derived JSON Schemas
    .venv/bin/python scripts/gen_shell_files.py --check  # exit 1 if share/ is stale (tests run this)

argparse-manpage renders the parser as a man page, shtab as bash and zsh
completion scripts: both read argparse directly, so every option and its
help text come from the one place that defines them. The files are committed
and installed by `pip install` (pyproject.toml, data-files).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import shtab
from argparse_manpage.manpage import Manpage

from sshbench import __version__
from sshbench.cli.parser import build_parser
from sshbench.results.jsonschema import jsonl_schema, results_schema

ROOT = Path(__file__).resolve().parents[1]
MAN_DATE = "2026-11"  # the man page's date: fixed, so the files depend on the parser alone
EXAMPLES = [
    ("sshbench", "the default run: every algorithm on a private loopback sshd, the answer first"),
    ("sshbench user@host --time-budget 10m", "a real host, through your own ssh setup; the server is never changed"),
    ("sudo sshbench --link rtt=80ms --streams 1,4", "what fills a long link: parallel streams against one"),
    ("sshbench algos host; echo $?", "the server's offer judged: 0 clean, 12 weak, 13 broken or Terrapin"),
    ("sshbench recommend RESULTS.json --write ./conf", "a client block and server drop-in, checked against clients"),
    ("sshbench compare BEFORE.json AFTER.json --fail-above 5%", "exit 7 on a significant slowdown"),
]
ENVIRONMENT = [
    ("SSHBENCH_DEBUG", "set to 1: an internal error (exit 70) shows its traceback"),
    ("NO_COLOR", "set: no colours in terminal output (also dropped when output is not a terminal)"),
    ("TMPDIR", "where runs keep their private 0700 temp dirs (keys, configs, test files)"),
    ("SSHBENCH_SOURCES", "make ssh-builds: the tarballs (paths or URLs) to build for --build"),
]


def _man_page() -> str:
    """The parser's man page, with the sections argparse does not know: exit status (the README's table, which
    a unit test keeps equal to errors.ExitCode), environment and examples."""
    page = Manpage(_parser(), _data={
        "date": MAN_DATE, "version": __version__, "manual_title": "sshbench manual",
        "description": "measure SSH ciphers, MACs, key exchanges and transfer tools; recommend safe configs"})
    page.add_section("exit status", "=", "\n".join(f".TP\n.B {code}\n{_roff(text)}" for code, text in _exit_codes()))
    page.add_section("environment", "=", "\n".join(f".TP\n.B {name}\n{_roff(text)}" for name, text in ENVIRONMENT))
    page.add_section("examples", "=", "\n".join(f".TP\n.B {_roff(cmd)}\n{_roff(text)}" for cmd, text in EXAMPLES))
    return str(page)


def _exit_codes() -> list[tuple[str, str]]:
    """(code, meaning) rows of the README's exit code table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("## Exit codes", 1)[1]
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 2 and cells[0].isdigit():
            rows.append((cells[0], cells[1].replace("`", "").replace("\\|", "|")))
    return rows


def _roff(text: str) -> str:
    """Text safe in a roff line: backslashes doubled, a leading dot or quote escaped."""
    text = text.replace("\\", "\\e")
    return "\\&" + text if text[:1] in (".", "'") else text


FILES = {
    "share/man/man1/sshbench.1": _man_page,
    # the results file's and --jsonl's JSON Schemas, derived from the records' own type hints
    "src/sshbench/schemas/results.schema.json": lambda: json.dumps(results_schema(), indent=2),
    "src/sshbench/schemas/jsonl.schema.json": lambda: json.dumps(jsonl_schema(), indent=2),
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
