"""One self-contained HTML file: the answer first, as a chart with its verdict under it, then warnings, the
evidence (tables, charts), the configs with their lock-out table, the run's facts and its samples. Whoever
opens a benchmark report wants the picture first, and a config is worth reading once its evidence has been.

No network is needed to view it: CSS is inline, charts are inline SVG, no
scripts or fonts are fetched. Rendered with jinja2 (autoescaping on).
"""

from __future__ import annotations

import importlib.util
import re
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from sshbench.analysis.findings import Findings, Fleet, KeptRecommendation
from sshbench.implementations import implementation
from sshbench.render.answerrows import NAME as ANSWER_CHART
from sshbench.render.answerrows import answer_rows, short_lines
from sshbench.render.chartbook import ChartBook
from sshbench.render.facts import commands, facts, mode, problems
from sshbench.render.hosts import host_tables
from sshbench.render.labels import UNITS, hosts_note
from sshbench.render.lockout import lockout_table
from sshbench.render.tables import result_tables
from sshbench.render.verdict import verdict
from sshbench.results.model import Report, Sample

CHARTS_AVAILABLE = importlib.util.find_spec("matplotlib") is not None
_XML_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.DOTALL)


def _inline_svg(svg: bytes) -> str:
    """matplotlib's SVG without its XML prologue and DOCTYPE, ready to sit inside HTML."""
    return _XML_PROLOGUE.sub("", svg.decode("utf-8"), count=1)


def _sample_row(sample: Sample) -> dict[str, Any]:
    def num(value: float | None, fmt: str) -> str:
        return "" if value is None else format(value, fmt)

    rate = sample.throughput_bytes_per_second
    flags = ", ".join(f for f, on in (("warm-up", sample.warmup), ("outlier", sample.outlier)) if on)
    if sample.error:
        flags = ", ".join(filter(None, [flags, sample.error]))
    return {"case_id": sample.case_id, "round": sample.round, "ok": sample.ok,
            "bytes": num(sample.bytes_received, ","), "data": num(sample.data_seconds, ".3f"),
            "rate": num(rate / 1e6 if rate else None, ",.0f"),
            "handshake": num(sample.handshake_seconds * 1000 if sample.handshake_seconds else None, ".1f"),
            "client_cpu": num(sample.client_cpu_seconds, ".3f"), "server_cpu": num(sample.server_cpu_seconds, ".3f"),
            "flags": flags}


def _svgs(runs: list[Findings], which: str, book: ChartBook) -> list[dict[str, str]]:
    """The charts of one run ("run") or across hosts ("hosts") as inline SVG; none without matplotlib.

    Charts are an optional extra (sshbench[charts]): without it the page says so
    and keeps everything else.
    """
    if not CHARTS_AVAILABLE:
        return []
    from sshbench.render import charts  # matplotlib: loaded only when a page with charts is made

    made = charts.charts(runs[0], book) if which == "run" else charts.host_charts(runs, book)
    return [{"name": chart.name, "svg": _inline_svg(chart.render("svg"))} for chart in made]


def _answer_first(found: Findings, made: list[dict[str, str]]) -> dict[str, Any]:
    """The answer chart apart from the other charts, since the page opens with it, and its verdict line per
    answer under it; the words alone where it was not drawn (no cipher ranked, or no matplotlib)."""
    chart = next((c for c in made if c["name"] == ANSWER_CHART), None)
    return {"answer_chart": chart, "charts": [c for c in made if c is not chart],
            "answer_lines": short_lines(answer_rows(found), found.rule.margin) if chart else []}


def _where(report: Report) -> str:
    remote = report.environment.server.remote
    if remote is not None:
        return (f"the real server {remote.destination} ({remote.hostname}, port {remote.port}), "
                "reached with the user's own ssh configuration")
    return "a private server on 127.0.0.1 that sshbench started for the run"


def _recommendation(kept: KeptRecommendation) -> dict[str, Any]:
    """The recommendation a run (or one server of it) kept, if its own data produce it; why not, if they don't."""
    return {"title": f" for server {kept.server}" if kept.server else "", "recommendation": kept.stored,
            "withheld": kept.withheld, "dropin_path": implementation(kept.software).dropin_path,
            "lockout": lockout_table(kept.lockout)}


def _section(found: Findings, multi: bool, book: ChartBook) -> dict[str, Any]:
    report = found.report
    if found.recommendations is None:
        raise ValueError("the page shows the kept recommendation: conclude(report, recommendation=True)")
    return {"report": report, "label": report.label,
            "anchor": "host-" + re.sub(r"\W", "_", report.label) if multi else "run", "where": _where(report),
            "facts": [*facts(found), *mode(report), *commands(report)], "tables": result_tables(found),
            "problems": problems(found), **_answer_first(found, _svgs([found], "run", book)),
            "recommendations": [_recommendation(kept) for kept in found.recommendations],
            "verdict": verdict(found),
            "terrapin_open": report.environment.terrapin is not None and not report.environment.terrapin.protected,
            "samples": [_sample_row(s) for s in report.samples]}


def breaks(text: str) -> Markup:
    """The table model's line break (a newline in a cell or a two-line heading, table_model.py) as HTML's <br>, the
    text around it escaped: the model's breaks laid out, not its words taken apart."""
    return escape(text).replace("\n", Markup("<br>"))


def render(runs: list[Findings], book: ChartBook | None = None, fleet: Fleet | None = None) -> str:
    """One page: for several hosts, the cross-host tables (their `fleet`) and chart first, then a section per
    host."""
    env = Environment(loader=PackageLoader("sshbench.render", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True)
    env.filters["breaks"] = breaks
    multi = len(runs) > 1
    if multi and fleet is None:
        raise ValueError("several runs are shown with what they conclude together: conclude_fleet(reports)")
    book = book or ChartBook()
    reports = [found.report for found in runs]
    return env.get_template("report.html.j2").render(
        runs=[_section(f, multi, book) for f in runs], multi=multi, legend=UNITS, started_at=reports[0].started_at,
        host_tables=[] if fleet is None else host_tables(fleet),
        host_charts=_svgs(runs, "hosts", book) if multi else [], hosts_note=hosts_note(reports),
        charts_missing=not CHARTS_AVAILABLE)
