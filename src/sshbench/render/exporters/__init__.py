"""The report formats `sshbench report` can write, by option: one module each, one line in EXPORTERS."""

from __future__ import annotations

from sshbench.render.exporters import charts, html, markdown, summary_csv
from sshbench.render.exporters.base import DirectoryExporter, Exporter, FileExporter, dest

EXPORTERS: tuple[Exporter, ...] = (
    html.EXPORTER,
    markdown.EXPORTER,
    summary_csv.EXPORTER,
    charts.EXPORTER,
)

__all__ = ["EXPORTERS", "DirectoryExporter", "Exporter", "FileExporter", "dest"]
