"""Build typed records from untrusted JSON, checking every value against the type it must have.

The dataclasses in model.py and the TypedDicts in environment.py already say
what each field is; this walks those type hints instead of repeating them in
a second schema. Rules beyond the Python type:
- numbers are finite and, unless marked Signed, not negative (JSON's
  Infinity/NaN are refused at parse time; 1e400 would become infinity);
- booleans are not numbers, integers are not booleans;
- strings pass untrusted.text (one printable line), or the check named in
  their Annotated[...] metadata (algorithm names, host names, multi-line
  config text); a type with `from_text` (LinkSpec, BuildSpec) is stored as
  its canonical text and parsed back by it;
- keys a type does not know are ignored: they never reach a renderer.
A failure is SchemaError with the path of the offending field
(e.g. `samples[3].negotiated.kex`).
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints, is_typeddict

from sshbench.vocabulary.errors import SshbenchError
from sshbench.vocabulary.untrusted import UntrustedText, text

T = TypeVar("T")
MAX_DEPTH = 40  # JSON nesting that a results file never needs; deeper is refused before recursion runs out


class SchemaError(ValueError):
    """`str()` names the field and what is wrong with it."""


class _Signed:
    """Annotated[int, SIGNED]: the number may be negative (an exit status: -9 is "killed by SIGKILL")."""


SIGNED = _Signed()
Signed = Annotated[int, SIGNED]
Check = Callable[[object, str], object]


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls, include_extras=True)


def build(cls: type[T], data: object, path: str) -> T:
    """An instance of the dataclass `cls` from `data`, or SchemaError."""
    result = convert(cls, data, path)
    assert isinstance(result, cls)
    return result


def convert(tp: Any, value: object, path: str, depth: int = 0) -> Any:
    """`value` checked against the type `tp` (converted to it for dataclasses and enums)."""
    if depth > MAX_DEPTH:
        raise SchemaError(f"{path}: nested deeper than {MAX_DEPTH} levels")
    origin = get_origin(tp)
    if origin is Annotated:
        return _annotated(get_args(tp), value, path, depth)
    if origin in (Union, types.UnionType):
        return _union(get_args(tp), value, path, depth)
    if origin is Literal:
        if value not in get_args(tp):
            raise SchemaError(f"{path} must be one of {', '.join(map(repr, get_args(tp)))}, not {_show(value)}")
        return value
    if tp is Any or tp is object:
        return _plain(value, path, depth)
    if origin in (list, tuple, dict):
        return _container(origin, get_args(tp), value, path, depth)
    if is_typeddict(tp):
        return _record(tp, value, path, depth, dataclass=False)
    if isinstance(tp, type) and callable(getattr(tp, "from_text", None)):
        return _from_text(tp, value, path)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _record(tp, value, path, depth, dataclass=True)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum(tp, value, path)
    return _scalar(tp, value, path)


def _annotated(args: tuple[Any, ...], value: object, path: str, depth: int) -> Any:
    """Annotated[base, checks...]: a signed number, or a string passed through each named check."""
    base, *extras = args
    if any(isinstance(e, _Signed) for e in extras):
        return _number(base, value, path, signed=True)
    checks = [e for e in extras if callable(e)]
    if checks and isinstance(value, str):
        try:
            for check in checks:
                check(value, path)
        except UntrustedText as exc:
            raise SchemaError(str(exc)) from None
        return value
    return convert(base, value, path, depth)


def _container(origin: Any, args: tuple[Any, ...], value: object, path: str, depth: int) -> Any:
    """list[X], tuple[X, ...] and tuple[X, Y] from a JSON list; dict[str, X] from an object (keys checked)."""
    if origin is dict:
        if not isinstance(value, dict):
            raise SchemaError(f"{path} must be an object, not {_kind(value)}")
        key, item = args if args else (str, Any)  # keys: text, or the check a key type names (phase marks)
        return {_key(k, path, key, depth): convert(item, v, f"{path}.{k}", depth + 1) for k, v in value.items()}
    if not isinstance(value, list):
        raise SchemaError(f"{path} must be a list, not {_kind(value)}")
    if origin is tuple and args and args[-1] is not Ellipsis:  # a pair such as (knob key, values): each its own
        if len(value) != len(args):
            raise SchemaError(f"{path} must be a list of {len(args)} items, not {len(value)}")
        pairs = enumerate(zip(args, value, strict=True))
        return tuple(convert(tp, v, f"{path}[{i}]", depth + 1) for i, (tp, v) in pairs)
    item = args[0] if args else Any
    items = [convert(item, v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return tuple(items) if origin is tuple else items


def _from_text(tp: type, value: object, path: str) -> Any:
    """A value stored as its canonical text (a --link or --build spec), parsed by the type's own from_text: only
    what sshbench itself could have written passes."""
    if not isinstance(value, str):
        raise SchemaError(f"{path} must be text, not {_kind(value)}")
    try:
        return tp.from_text(text(value, path))  # type: ignore[attr-defined]
    except SshbenchError as exc:
        raise SchemaError(f"{path}: {exc}") from None


def _enum(tp: type[Enum], value: object, path: str) -> Enum:
    try:
        return tp(value)
    except ValueError:
        raise SchemaError(f"{path} must be one of {', '.join(str(m.value) for m in tp)}, "
                          f"not {_show(value)}") from None


def _scalar(tp: Any, value: object, path: str) -> Any:
    """bool, int, float, str (checked as untrusted text) and None."""
    if tp is bool:
        if not isinstance(value, bool):
            raise SchemaError(f"{path} must be true or false, not {_kind(value)}")
        return value
    if tp in (int, float):
        return _number(tp, value, path, signed=False)
    if tp is str:
        try:
            return text(value, path)
        except UntrustedText as exc:
            raise SchemaError(str(exc)) from None
    if tp is type(None):
        if value is not None:
            raise SchemaError(f"{path} must be null")
        return None
    raise TypeError(f"schema.convert: no rule for {tp!r} at {path}")  # a bug in the type hints, not the file


def _union(options: tuple[Any, ...], value: object, path: str, depth: int) -> Any:
    if value is None:
        if type(None) in options:
            return None
        raise SchemaError(f"{path} must not be null")
    errors = []
    for option in options:
        if option is type(None):
            continue
        try:
            return convert(option, value, path, depth)
        except SchemaError as exc:
            errors.append(str(exc))
    raise SchemaError(errors[0] if len(errors) == 1 else f"{path}: {_show(value)} fits none of its types")


def _record(tp: type, value: object, path: str, depth: int, dataclass: bool) -> Any:
    if not isinstance(value, dict):
        raise SchemaError(f"{path or 'the file'} must be an object, not {_kind(value)}")
    hints = _hints(tp)
    out: dict[str, Any] = {}
    if dataclass:
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            if f.name in value:
                out[f.name] = convert(hints[f.name], value[f.name], f"{path}.{f.name}".lstrip("."), depth + 1)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise SchemaError(f"{path or 'the file'} has no {f.name!r}")
        try:
            return tp(**out)
        except (SshbenchError, ValueError, TypeError) as exc:  # a record's own checks (RunOptions') refuse it
            raise SchemaError(f"{path or 'the file'}: {exc}") from None
    required: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
    for name, hint in hints.items():
        if name in value:
            out[name] = convert(hint, value[name], f"{path}.{name}", depth + 1)
        elif name in required:
            raise SchemaError(f"{path} has no {name!r}")
    return out


def _number(tp: Any, value: object, path: str, signed: bool) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float) or (tp is int and not isinstance(value, int)):
        raise SchemaError(f"{path} must be {'a whole number' if tp is int else 'a number'}, not {_kind(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(f"{path} must be a finite number")
    if value < 0 and not signed:
        raise SchemaError(f"{path} must not be negative ({value})")
    return float(value) if tp is float else value


def _plain(value: object, path: str, depth: int) -> object:
    """Any JSON value, its strings checked as free text (an unknown part of a file may still be shown)."""
    if depth > MAX_DEPTH:
        raise SchemaError(f"{path}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        return {_key(k, path): _plain(v, f"{path}.{k}", depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, str):
        return convert(str, value, path, depth)
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(f"{path} must be a finite number")
    return value


def _key(key: object, path: str, tp: Any = str, depth: int = 0) -> str:
    try:
        checked = text(key, f"a key in {path}")
    except UntrustedText as exc:
        raise SchemaError(str(exc)) from None
    return checked if tp is str else str(convert(tp, checked, f"a key in {path}", depth + 1))


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), type(value).__name__)


def _show(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."
