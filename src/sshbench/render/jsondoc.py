"""The `--json` documents of `report`, `compare` and `recommend`: what the tables say, for scripts.

Each is one JSON object on stdout with `schema` (its name, "sshbench/report"
...) and `schema_version`, described by a JSON Schema shipped in the package
(src/sshbench/schemas/, docs/reports.md) that the tests validate every
command's output against. Figures are in base units (bytes per second,
seconds) like the results file; ratios are plain numbers ("1.36 times as
fast"). Renderers only: they take what the analysis made and never run
anything.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from typing import Any

from sshbench.analysis.findings import (
    Answer,
    Bound,
    Change,
    CheckedRecommendation,
    CommandFigure,
    Findings,
    Forecast,
    Knee,
    PathFinding,
    PhaseSplit,
    ServerQuestion,
    Stall,
)
from sshbench.results.codec import report_to_dict
from sshbench.results.model import Report, Stat

SCHEMA_VERSION = 1  # compare and recommend
REPORT_SCHEMA_VERSION = 10  # 2: each run's link_answer; 3: each answer's axis, each run's servers (--server a,b);
# 4: each run's setup_phases; 5: each run's commands (--commands, --reuse), each phase split's stalls, logins;
# 6: each link answer change's tail_seconds (N streams: how far apart its parts ended); 7: its split_bytes (the size
# of the equal split its rate is for); 8: logins' knees as values (was knee, a sentence); 9: a change's dimensions
# may name the client (--client); 10: each limit's line_full (how busy the emulated line was, by the wire's count)


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _stat(stat: Stat | None) -> dict[str, Any] | None:
    if stat is None:
        return None
    return {"median": _number(stat.median), "low": _number(stat.ci_low), "high": _number(stat.ci_high), "n": stat.count}


def _forecast(found: Forecast | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {"samples": found.samples, "seconds": _number(found.seconds), "outcome": found.outcome.value,
            "wider_margin_samples": found.wider_samples, "wider_margin_seconds": _number(found.wider_seconds)}


def answer_json(answer: Answer) -> dict[str, Any]:
    """One answer (per direction, link, build) as plain data: the --json report's and --jsonl's \"answer\"."""
    cheapest = answer.cheapest
    return {
        "direction": answer.direction.value, "link": answer.link, "build": answer.build, "axis": answer.axis,
        "cipher": answer.best,
        "bytes_per_second": _stat(answer.rate), "samples": answer.samples, "note": answer.note,
        "comparisons": [{"other": c.other, "role": c.role, "ratio": _number(c.ratio), "low": _number(c.low),
                         "high": _number(c.high), "relation": c.relation.value, "pairs": c.pairs,
                         "forecast": _forecast(c.forecast)} for c in answer.comparisons],
        "cheapest": None if cheapest is None else {
            "cipher": cheapest.name, "cpu_seconds_per_gib": _stat(cheapest.cost), "other": cheapest.other,
            "ratio": _number(cheapest.ratio), "low": _number(cheapest.low), "high": _number(cheapest.high),
            "relation": None if cheapest.relation is None else cheapest.relation.value},
    }


def _limit(bound: Bound | None) -> dict[str, Any] | None:
    if bound is None:
        return None
    return {"verdict": bound.verdict, "text": bound.short, "link_share": _number(bound.link_share),
            "loss": _number(bound.loss), "congestion": bound.congestion, "line_full": _number(bound.line_full)}


def _ratio(ratio: float, low: float | None, high: float | None) -> dict[str, Any]:
    return {"ratio": _number(ratio), "low": _number(low), "high": _number(high)}


def link_answer_json(found: PathFinding) -> dict[str, Any]:
    """One path and direction of the link answer (analysis/answers/remedies.py, analysis/answers/contest.py) as plain
    data."""
    answer = found.answer
    best = answer.best
    full = best is not None and best.bound is not None and best.bound.verdict == "link"
    return {
        "path": answer.path, "link": answer.link, "direction": answer.direction.value,
        "plain": {"case_id": answer.plain.id, "cipher": answer.plain.subject, "client_default": answer.client_default,
                  "default_measured": answer.default_measured, "bytes_per_second": _stat(answer.plain_rate),
                  "limit": _limit(answer.plain_bound)},
        "pick": None if best is None else best.case.id, "link_full": full,
        "changes": [{"case_id": r.case.id, "change": r.change, "dimensions": list(r.dimensions),
                     "bytes_per_second": _stat(r.rate), **_ratio(r.ratio, r.low, r.high),
                     "relation": r.relation.value, "separable_from_above": r.separable, "limit": _limit(r.bound),
                     "cpu_seconds_per_gib": _number(r.cost), "tail_seconds": _number(r.tail),
                     "split_bytes": r.split,
                     "how_to": r.how_to}
                    for r in answer.remedies],
        "rivals": [{"case_id": r.case.id, "change": r.change, **_ratio(r.ratio, r.low, r.high),
                    "relation": r.relation.value, "pairs": r.pairs, "first_look": r.first_look,
                    "forecast": _forecast(r.forecast)}
                   for r in found.rivals],
        "break_even": [{"compression": e.compression.text, "line_bytes_per_second": _number(e.line_rate),
                        "busiest": e.busiest, "ratio": _number(e.ratio), "pays": e.pays} for e in answer.break_even],
    }


def link_answers_json(found: Findings) -> list[dict[str, Any]]:
    """The link answer of a run, every path and direction (empty where it compared no change)."""
    return [link_answer_json(path) for path in found.paths]


def server_json(question: ServerQuestion) -> dict[str, Any]:
    """One question of a --server a,b run (analysis/answers/servers.py): each server's figure, the leader first."""
    return {"direction": question.direction.value, "link": question.link, "question": question.question,
            "proven": question.proven, "unmeasured": list(question.unmeasured),
            "figures": [{"server": f.server, "cipher": f.cipher, "bytes_per_second": _stat(f.rate),
                         "server_cpu_seconds_per_gib": _stat(f.server_cpu), "samples": f.samples,
                         "safe": f.safe, "ratio": _number(f.ratio), "low": _number(f.low), "high": _number(f.high),
                         "relation": f.relation.value if f.relation is not None else None,
                         "forecast": _forecast(f.forecast)}
                        for f in question.figures]}


def _dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, allow_nan=False) + "\n"


def _phases_json(found: PhaseSplit, stalls: Sequence[Stall]) -> dict[str, object]:
    return {"case_id": found.case_id, "total_seconds": found.total, "rtt_seconds": _number(found.rtt),
            "counted": found.counted,
            "phases": [{"name": p.name, "words": p.words, "seconds": p.seconds} for p in found.phases],
            "stalls": [{"phase": s.phase, "seconds": s.seconds, "round_trips": _number(s.trips),
                        "protocol_round_trips": s.expected, "causes": s.causes}
                       for s in stalls if s.case_id == found.case_id]}


def _command_json(figure: CommandFigure) -> dict[str, object]:
    verdict = figure.versus_fresh
    versus = None if verdict is None else {
        "faster": verdict.faster, "ratio": _number(verdict.ratio), "low": _number(verdict.ratio_low),
        "high": _number(verdict.ratio_high), "relation": verdict.relation.value}
    return {"case_id": figure.case.id, "command": figure.case.command, "link": figure.case.link,
            "reuse": str(figure.case.value_of("reuse")), "seconds": _stat(figure.seconds),
            "rtt_seconds": _number(figure.rtt), "round_trips": _number(figure.trips), "versus_fresh": versus}


def _knee_json(found: Knee) -> dict[str, object]:
    return {"kex": found.kex, "clients": found.clients, "logins_per_second": found.logins_per_second,
            "next_clients": found.next_clients, "next_logins_per_second": found.next_logins_per_second,
            "ratio": _number(found.ratio), "threshold": found.threshold, "cause": found.cause.value,
            "next_refused": found.next_refused, "next_attempted": found.next_attempted, "limiter": found.limiter}


def _logins_json(found: Findings) -> dict[str, object]:
    return {"knees": [_knee_json(k) for k in found.knees], "stages": [
        {"kex": p.load.kex, "negotiated": p.load.negotiated, "clients": p.load.clients, "seconds": p.load.seconds,
         "completed": p.load.completed, "refused": p.load.refused, "failed": p.load.failed,
         "logins_per_second": p.rate, "p50_seconds": _number(p.p50), "p95_seconds": _number(p.p95),
         "server_busy": _number(p.server_busy), "client_busy": _number(p.client_busy), "limiter": p.limiter}
        for p in found.logins]}


def report_json(runs: Sequence[Findings]) -> dict[str, Any]:
    """The report document as plain data: `report FILE --json` prints it, and a run's last `--jsonl` event (its
    `finished`) carries it under "report", so a script reads one schema whichever way it got the results."""
    out = []
    for found in runs:
        report = found.report
        saved = report_to_dict(report)
        out.append({"label": report.label, "status": report.status, "stop_reason": report.stop_reason,
                    "tool_version": report.tool_version, "started_at": report.started_at,
                    "answer": [answer_json(a) for a in found.answers], "link_answer": link_answers_json(found),
                    "servers": [server_json(q) for q in found.servers],
                    "setup_phases": [_phases_json(f, found.stalls) for f in found.phases],
                    "commands": [_command_json(f) for f in found.commands],
                    "logins": _logins_json(found),
                    "summaries": saved["summaries"],
                    "warnings": saved["warnings"]})
    return {"schema": "sshbench/report", "schema_version": REPORT_SCHEMA_VERSION, "runs": out}


def report_document(runs: Sequence[Findings]) -> str:
    """`report FILE --json`: per run its status, the answer, every case's summary and the warnings."""
    return _dumps(report_json(runs))


def compare_document(pairs: Sequence[tuple[str, str, Sequence[Change]]], threshold: float | None,
                     notes: Sequence[str]) -> str:
    """`compare A B --json`: per pair of runs every case's change, its interval, and whether it regressed."""
    out = []
    for base, other, changes in pairs:
        out.append({"baseline": base, "run": other, "changes": [{
            "case_id": c.case_id, "baseline": _number(c.baseline), "other": _number(c.other),
            "change": _number(c.change), "low": _number(c.low), "high": _number(c.high),
            "p_value": _number(c.p_value), "p_adjusted": _number(c.p_adjusted), "significant": c.significant,
            "detectable": c.detectable, "bigger_better": c.bigger_better, "samples": list(c.samples),
            "regression": threshold is not None and c.regression_beyond(threshold)} for c in changes]})
    return _dumps({"schema": "sshbench/compare", "schema_version": SCHEMA_VERSION, "fail_above": threshold,
                   "comparisons": out, "notes": list(notes)})


def recommend_document(results: Sequence[tuple[Report, CheckedRecommendation]]) -> str:
    """`recommend FILE --json`: per run the config texts, what validation found, and who the drop-in keeps in."""
    out = []
    for report, advice in results:
        rec = advice.rec
        dropin = rec.dropin
        out.append({
            "label": report.label, "policy": rec.policy.name, "client_block": advice.client_text,
            "server_dropin": advice.server_text, "server_advice": advice.server_advice,
            "problems": list(advice.problems), "prediction": list(advice.prediction),
            "terrapin_exposure": rec.exposure, "dropin_withheld": advice.dropin_withheld,
            "additions": [] if dropin is None else [{"kind": a.kind.value, "name": a.name, "clients": list(a.clients)}
                                                    for a in dropin.additions],
            "shut_out": [] if advice.lockout is None else list(advice.lockout.shut_out),
            "terrapin": None if advice.terrapin is None else dataclasses.asdict(advice.terrapin)})
    return _dumps({"schema": "sshbench/recommend", "schema_version": SCHEMA_VERSION, "runs": out})
