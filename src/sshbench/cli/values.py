"""The run options' values as the command line spells them: each parsed and checked once, with one clear error.

Kept apart from the parser (cli/parser.py), which says which options exist; these say what their values mean.
"""

from __future__ import annotations

from sshbench.options import MAX_ECHOES
from sshbench.plan.budget import STEADY_AFTER, steady_mark
from sshbench.vocabulary.commands import parse_commands
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.linkspec import LinkSpec
from sshbench.vocabulary.units import parse_counts, parse_size


def size(text: str, streams: tuple[int, ...]) -> int:
    """--size, where it gives every stream count the same timing: a steady window for each (every stream's share
    has one, measure/steady.py), or for none (all timed whole). A mix would rank steady samples against whole
    ones, logins and TCP's ramp included (the 4 streams "0.49x" that were 0.65x by hand)."""
    total = parse_size(text)
    steady = {n: steady_mark(total // n) is not None for n in streams}
    if len(set(steady.values())) > 1:
        need = max(streams) * 2 * STEADY_AFTER
        raise UsageError(f"--size {text} gives some of --streams {','.join(map(str, streams))} a steady state and "
                         f"not others (each stream needs {2 * STEADY_AFTER // (1 << 20)} MiB): give --size "
                         f"{need // (1 << 20)}MiB or more, or leave --size out")
    return total


def stream_counts(text: str | None) -> tuple[int, ...]:
    """--streams: whole numbers from 1 (order kept, duplicates dropped); RunOptions checks the range."""
    return (1,) if text is None else parse_counts(text, "--streams", 1)


def sweep(given: str | None, links: tuple[LinkSpec, ...], commands: tuple[str, ...] = ()) -> str:
    """A MAC, key exchange or host key selection: all by default, none by default over emulated links or where
    the run measures short commands (`--commands` alone measures those)."""
    return given if given is not None else "none" if links or commands else "all"


def ciphers(given: str | None, commands: tuple[str, ...]) -> str:
    """The cipher sweep: all by default, none where the run measures short commands and names no cipher."""
    return given if given is not None else "none" if commands else "all"


def commands(text: str | None, logins: tuple[int, ...] = ()) -> tuple[str, ...]:
    """--commands: the short commands measured (vocabulary/commands.py); none without the option, `true` with
    --logins alone (one login's phases beside the load)."""
    if text is None:
        return ("true",) if logins else ()
    try:
        return parse_commands(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def login_counts(text: str | None) -> tuple[int, ...]:
    """--logins: parallel client counts (order kept, duplicates dropped); RunOptions checks the range."""
    return () if text is None else parse_counts(text, "--logins", 1)


def echo_count(count: int) -> int:
    if not 0 <= count <= MAX_ECHOES:
        raise UsageError(f"bad --echo {count}: use 0 (none) to {MAX_ECHOES} round trips per cipher")
    return count


def size_list(text: str | None) -> tuple[int, ...]:
    return tuple(parse_size(w.strip()) for w in (text or "").split(",") if w.strip())


def count_list(text: str | None, option: str) -> tuple[int, ...]:
    return parse_counts(text or "", option)
