"""The JSON form of a run: what the results file holds, and reading one back as untrusted input.

Writing: dataclasses become plain JSON; derived figures (throughput, CPU of
the data phase, grades) are added so that other tools need not recompute
them; every string is cleaned and every non-finite number becomes null, so
what sshbench writes it can always read back.

Reading: a results file may come from anyone. It is checked field by field
against the records' own type hints (schema.py), then for what types cannot
say (every sample and summary names a case of its run). Files of schema
version 3 are upgraded first (legacy.py).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from enum import Enum
from typing import Any

from sshbench.axes import DECLARED, declared
from sshbench.methods import method
from sshbench.results.environment import StoredRecommendation
from sshbench.results.legacy import upgrade
from sshbench.results.model import SCHEMA_VERSION, Case, Report, Sample
from sshbench.results.schema import SchemaError, build
from sshbench.vocabulary.algorithms import lookup
from sshbench.vocabulary.buildspec import parse_build
from sshbench.vocabulary.case_terms import CaseKind
from sshbench.vocabulary.commands import COMMANDS
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.untrusted import UntrustedText, clean, host_name, part_name

SINGLE = "sshbench/run"
HOSTS = "sshbench/hosts"


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN or infinity; a reader must not have to guess
    if isinstance(value, str):
        return clean(value)  # one line of printable text: never write what the loader would refuse
    if isinstance(value, Enum):
        return value.value
    if callable(getattr(type(value), "from_text", None)):  # a --link or --build spec: stored as its own text
        return clean(value.text)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
               if getattr(value, f.name) or not f.metadata.get("omit_empty")}  # a declared axis unused: as before
        if isinstance(value, Case):
            out["id"] = value.id
            if (kind := value.algorithm_kind) is not None:  # grades travel with the data, for other tools
                algorithm = lookup(value.subject, kind)
                out["grade"], out["grade_reason"] = algorithm.grade.value, algorithm.reason
        if isinstance(value, StoredRecommendation):  # the config texts are the only text kept with its line breaks
            out["client_block"] = clean(value.client_block, keep_newlines=True)
            out["server_dropin"] = clean(value.server_dropin, keep_newlines=True)
        if isinstance(value, Sample):
            for name in ("throughput_bytes_per_second", "end_to_end_bytes_per_second", "kex_seconds",
                         "handshake_seconds", "client_cpu_data_seconds", "server_cpu_data_seconds"):
                out[name] = _plain(getattr(value, name))
        return out
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def report_to_dict(report: Report) -> dict[str, Any]:
    body = _plain(report)
    assert isinstance(body, dict)
    return {"schema": SINGLE, **body}


def results_to_dict(runs: list[Report]) -> dict[str, Any]:
    """One host: a plain "sshbench/run". Several (`sshbench run a b`): "sshbench/hosts", one run per host.

    Each host keeps its own run rather than a host field on every case:
    hosts differ in what they offer, their environment, Terrapin status and
    recommendation, and every renderer already knows how to show one run.
    """
    if len(runs) == 1:
        return report_to_dict(runs[0])
    return {"schema": HOSTS, "schema_version": SCHEMA_VERSION, "hosts": [r.label for r in runs],
            "runs": [report_to_dict(r) for r in runs]}


def results_from_dict(data: object) -> list[Report]:
    """Every run a results file holds, in the order measured (one per host), checked field by field.

    SchemaError names the field, before any renderer or command sees the file.
    """
    data = upgrade(data)
    if isinstance(data, dict) and data.get("schema") == HOSTS:
        _check_version(data)
        runs = data.get("runs")
        if not isinstance(runs, list) or not runs:
            raise SchemaError("runs must be a non-empty list of runs")
        return [report_from_dict(run, f"runs[{i}]") for i, run in enumerate(runs)]
    return [report_from_dict(data)]


def report_from_dict(data: object, where: str = "") -> Report:
    """Inverse of report_to_dict, for re-rendering a saved file; SchemaError for anything else."""
    data = upgrade(data)
    if not isinstance(data, dict) or data.get("schema") != SINGLE:
        raise SchemaError("not an sshbench results file (no 'schema': 'sshbench/run')")
    _check_version(data)
    report = build(Report, data, where)
    _check_consistency(report, where)
    return report


def _check_version(data: dict[str, Any]) -> None:
    if data.get("schema_version") != SCHEMA_VERSION:
        raise SchemaError(f"results schema version {_shown(data.get('schema_version'))} is not one this sshbench "
                          f"reads (3 to {SCHEMA_VERSION}): use the sshbench version that wrote it")


def _check_dims(case: Case, where: str) -> None:
    """A case's declared-axis values: axes this sshbench declares, each once, in their order, each value one its
    axis itself would parse to (never a plain one: those are left out), so nothing unvalidated reaches a run."""
    order = [a.name for a in DECLARED]
    names = [name for name, _ in case.dims]
    for name, value in case.dims:
        axis = declared(name)
        if axis is None:
            raise SchemaError(f"{where} names an axis this sshbench does not know: {_shown(name)}")
        try:
            canonical = axis.parse(value)
        except UsageError:
            canonical = ()
        if canonical != (value,) or value == axis.plain:
            raise SchemaError(f"{where}: {_shown(value)} is not a value of {name}")
    if names != sorted(set(names), key=order.index):
        raise SchemaError(f"{where} must name each axis once, in the order sshbench declares them")


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 20 else text[:17] + "..."


def _checked(check: Callable[[object, str], object], value: object, field: str) -> None:
    try:
        check(value, field)
    except UntrustedText as exc:
        raise SchemaError(str(exc)) from None


def _check_sides(report: Report, prefix: str) -> None:
    """A side's spec: a build's canonical --build text (it may name an install prefix's path), a server side's its
    launcher's name; an echo's link one of the run's links."""
    for i, side in enumerate(report.environment.builds):
        where = f"{prefix}environment.builds[{i}].spec"
        if side.own is not None:
            _checked(part_name, side.spec, where)
            continue
        try:
            canonical = parse_build(side.spec).text
        except UsageError:
            canonical = None
        if canonical != side.spec:
            raise SchemaError(f"{where} is not a build's canonical --build text: {_shown(side.spec)}")
    for i, echo in enumerate(report.echoes):
        if echo.link and report.options.link_named(echo.link) is None:
            raise SchemaError(f"{prefix}echoes[{i}].link is not one of the run's links: {_shown(echo.link)}")


def _check_consistency(report: Report, where: str) -> None:
    """What types cannot say: every case complete, every sample and summary naming a case of this run."""
    prefix = f"{where}." if where else ""
    if report.environment.host.label:  # a fleet name: shown in tables and used as a file name in reports
        try:
            host_name(report.environment.host.label, f"{prefix}environment.host.label")
        except UntrustedText as exc:
            raise SchemaError(str(exc)) from None
    ids: set[str] = set()
    for i, record in enumerate(report.cases):
        case = record.case
        kind = case.kind.value
        needed = case.cipher if case.algorithm_kind is None and kind == "ceiling" else (
            getattr(case, kind) if case.algorithm_kind is not None else "raw-tcp")
        if needed is None:
            raise SchemaError(f"{prefix}cases[{i}] is a {kind} case without its {kind} name")
        if (case.kind is CaseKind.COMMAND) != (case.command in COMMANDS):
            raise SchemaError(f"{prefix}cases[{i}].command is not a short command of a command case: "
                              f"{_shown(case.command)}")
        try:
            method(case.method)
        except UsageError:
            raise SchemaError(f"{prefix}cases[{i}].method is not a transfer method: {_shown(case.method)}") from None
        if case.link and report.options.link_named(case.link) is None:
            raise SchemaError(f"{prefix}cases[{i}].link is not one of the run's links: {_shown(case.link)}")
        if case.build:
            _checked(part_name, case.build, f"{prefix}cases[{i}].build")
        _check_dims(case, f"{prefix}cases[{i}].dims")
        if case.id in ids:
            raise SchemaError(f"{prefix}cases[{i}] repeats the case {case.id}")
        ids.add(case.id)
    named: list[tuple[str, list[str]]] = [("samples", [s.case_id for s in report.samples]),
                                          ("summaries", [s.case_id for s in report.summaries])]
    for kind_name, case_ids in named:
        for i, case_id in enumerate(case_ids):
            if case_id not in ids:
                raise SchemaError(f"{prefix}{kind_name}[{i}] names the case {_shown(case_id)}, which the file "
                                  "does not hold")
    _check_sides(report, prefix)
    groups = {record.case.id: record.case.group for record in report.cases}
    for i, summary in enumerate(report.summaries):
        if summary.group != groups[summary.case_id]:
            raise SchemaError(f"{prefix}summaries[{i}].group does not match its case")
