"""Where a part's name appears outside its own modules and registries: code lines, and text (strings, comments).

Issue 38's measure of "each part knows itself": `python scripts/part_mentions.py`
prints, per part, the files and lines outside the part's home that name it,
split into code (a branch on the name, an import) and text (help, docstrings,
comments, messages), and lists the code lines.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "sshbench"
HOMES = {  # the part's own modules and the registries that name it, relative to src/sshbench
    "sftp": ["methods/sftp.py", "methods/__init__.py"],
    "hpn": ["implementations/hpnssh.py", "implementations/__init__.py"],
    "tinysshd": ["implementations/tinysshd.py", "implementations/__init__.py", "targets/servers/tinysshd.py",
                 "targets/servers/__init__.py"],
    "dropbear": ["implementations/dropbear.py", "implementations/__init__.py", "targets/servers/dropbear.py",
                 "targets/servers/__init__.py"],
}


def _code_text(source: str, pattern: re.Pattern[str]) -> dict[int, str]:
    """Per line, the text of its code tokens, with a string literal counted as code when it is a bare name
    (`== "tinysshd"`, a dict key) rather than words (help, messages, docstrings) or a comment."""
    code: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                continue
            if tok.type == tokenize.STRING:
                body = tok.string.strip("rbfuRBFU").strip("\"'")
                if not (pattern.search(body) and " " not in body and len(body) <= 30):
                    continue
            code[tok.start[0]] = code.get(tok.start[0], "") + " " + tok.string
    except tokenize.TokenError:
        pass
    return code


def mentions(part: str) -> tuple[set[str], list[str], int]:
    """(files, code lines as "path:line: text", text-only line count) outside the part's homes."""
    pattern = re.compile(part, re.IGNORECASE)
    files: set[str] = set()
    code_lines: list[str] = []
    text_only = 0
    for path in sorted(SRC.rglob("*.py")):
        relative = str(path.relative_to(SRC))
        if relative in HOMES[part]:
            continue
        source = path.read_text()
        code = _code_text(source, pattern)
        for number, line in enumerate(source.splitlines(), 1):
            if not pattern.search(line):
                continue
            files.add(relative)
            if pattern.search(code.get(number, "")):
                code_lines.append(f"{relative}:{number}: {line.strip()}")
            else:
                text_only += 1
    return files, code_lines, text_only


def main() -> None:
    for part in sys.argv[1:] or list(HOMES):
        files, code_lines, text_only = mentions(part)
        print(f"{part}: {len(files)} files outside its home; {len(code_lines)} code lines, {text_only} text lines")
        for line in code_lines:
            print(f"    {line}")


if __name__ == "__main__":
    main()
