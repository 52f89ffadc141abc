"""The results file's JSON Schema, derived from the same type hints results/schema.py reads files by.

Why derived and not written by hand: the records (model.py, environment.py,
design.py, tcpfacts.py ...) are the one statement of what a results file
holds; a second, hand-kept schema would drift from them the first time a
field is added. scripts/gen_shell_files.py writes the schema
(sshbench/schemas/results.schema.json) and `make test` checks that it is
current and that recorded results files validate against it. The schema
says what a reader may rely on (types, enums, which keys a record has); the
finer checks (printable text, algorithm names, finite non-negative numbers)
remain results/schema.py's.
"""

from __future__ import annotations

import dataclasses
import types
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

from sshbench.results.model import SCHEMA_VERSION, Report

_SCALARS: dict[type, dict[str, Any]] = {str: {"type": "string"}, bool: {"type": "boolean"},
                                        int: {"type": "integer"}, float: {"type": "number"}}


def _schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = get_origin(tp)
    if origin is Annotated:
        return _schema(get_args(tp)[0], defs)
    if origin in (Union, types.UnionType):
        options = [_schema(arg, defs) for arg in get_args(tp)]
        return {"anyOf": options}
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if tp is type(None):
        return {"type": "null"}
    if tp is Any or tp is object:
        return {}
    if origin is dict:
        args = get_args(tp)
        return {"type": "object", "additionalProperties": _schema(args[1], defs) if args else {}}
    if origin in (list, tuple):
        args = get_args(tp)
        if origin is tuple and args and args[-1] is not Ellipsis:
            return {"type": "array", "prefixItems": [_schema(a, defs) for a in args], "items": False}
        return {"type": "array", "items": _schema(args[0], defs) if args else {}}
    if isinstance(tp, type) and callable(getattr(tp, "from_text", None)):
        return {"type": "string", "description": f"{tp.__name__} in its canonical text"}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return {"enum": [member.value for member in tp]}
    if isinstance(tp, type) and (dataclasses.is_dataclass(tp) or is_typeddict(tp)):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # recursion guard
            hints = get_type_hints(tp, include_extras=True)
            fields = [f.name for f in dataclasses.fields(tp)] if dataclasses.is_dataclass(tp) else list(hints)
            doc = (tp.__doc__ or "").strip().split("\n")[0]
            if doc.startswith(f"{name}("):  # the signature dataclasses write where a class has no docstring
                doc = ""
            defs[name] = {"type": "object", "properties": {f: _schema(hints[f], defs) for f in fields},
                          **({"description": doc} if doc else {})}
        return {"$ref": f"#/$defs/{name}"}
    if isinstance(tp, type):
        for base, schema in _SCALARS.items():
            if issubclass(tp, base):
                return dict(schema)
    return {}


def results_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one run's results document (`"schema": "sshbench/run"`)."""
    defs: dict[str, Any] = {}
    root = _schema(Report, defs)
    report = defs["Report"]
    report["properties"]["schema"] = {"const": "sshbench/run"}
    report["properties"]["schema_version"] = {"const": SCHEMA_VERSION}
    report["required"] = ["schema", "schema_version", "cases", "samples", "summaries", "options", "environment"]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://sshbench.invalid/schemas/results.schema.json",
            "title": "sshbench results file (one run)",
            "description": "What `sshbench run` writes (docs/results-format.md); a run over several hosts writes "
                           "{\"schema\": \"sshbench/hosts\", \"hosts\": [...], \"runs\": [one of these each]}.",
            **root, "$defs": defs}


def _event(name: str, required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["event", *required],
            "properties": {"event": {"const": name}, **properties}}


def jsonl_schema() -> dict[str, Any]:
    """The JSON Schema of one line of `sshbench run --jsonl` (docs/reports.md): each line is one event."""
    number, text = {"type": ["number", "null"]}, {"type": ["string", "null"]}
    relation = {"enum": ["different", "equivalent", "unsettled"]}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://sshbench.invalid/schemas/jsonl.schema.json",
            "title": "sshbench run --jsonl: one line",
            "description": "One event per line: started, sample (one per sample, as the CSV's columns), settled, "
                           "then summary, warning, answer and finished at the end; finished carries the "
                           "report --json document of the results (report.schema.json).",
            "oneOf": [
                _event("started", ["host", "started_at", "seed", "cases", "minimum_samples"],
                       {"host": {"type": "string"}, "started_at": {"type": "string"}, "seed": {"type": "integer"},
                        "cases": {"type": "integer"}, "minimum_samples": {"type": "integer"}}),
                _event("sample", ["host", "case_id", "ok", "done", "eta_seconds"],
                       {"host": {"type": "string"}, "case_id": {"type": "string"}, "ok": {"type": "boolean"},
                        "done": {"type": "integer"}, "eta_seconds": {"type": "number"}}),
                _event("settled", ["host", "case_id", "group", "rank", "relation"],
                       {"host": {"type": "string"}, "case_id": {"type": "string"}, "group": {"type": "string"},
                        "rank": {"type": ["integer", "null"]}, "relation": relation, "ratio_to_previous": number,
                        "low": number, "high": number}),
                _event("summary", ["host", "case_id"], {"host": {"type": "string"}, "case_id": {"type": "string"}}),
                _event("warning", ["host", "code", "message"],
                       {"host": {"type": "string"}, "code": {"type": "string"}, "message": {"type": "string"}}),
                _event("answer", ["host", "answer"], {"host": {"type": "string"}, "answer": {"type": "array"},
                                                     # --server a,b: which server, as report --json's runs[].servers
                                                     "servers": {"type": "array"}}),
                # the last line: the whole document `report --json` prints for these results, its own schema
                _event("finished", ["status", "results", "csv", "hosts", "samples", "failed", "report"],
                       {"status": {"enum": ["complete", "interrupted", "failed", "running"]}, "results": text,
                        "csv": text, "hosts": {"type": "array", "items": {"type": "string"}},
                        "samples": {"type": "integer"}, "failed": {"type": "boolean"},
                        "report": {"$ref": "report.schema.json"}}),
            ]}
