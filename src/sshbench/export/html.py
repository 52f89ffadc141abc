"""One self-contained HTML file: facts, method, tables, inline SVG charts, warnings, config, raw samples.

No network is needed to view it: CSS is inline, charts are inline SVG, no
scripts or fonts are fetched. Rendered with jinja2 (autoescaping on).
"""

from __future__ import annotations

import re
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from sshbench.export.charts import charts, close
from sshbench.export.rows import LEGEND, facts, tables
from sshbench.model import Report, Sample

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


def render(report: Report) -> str:
    env = Environment(loader=PackageLoader("sshbench.export", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True)
    made = charts(report)
    try:
        svgs = [{"name": chart.name, "svg": _inline_svg(chart.render("svg"))} for chart in made]
    finally:
        close(made)
    return env.get_template("report.html.j2").render(
        report=report, facts=facts(report), legend=LEGEND, tables=tables(report), charts=svgs,
        recommendation=report.recommendation, samples=[_sample_row(s) for s in report.samples])
