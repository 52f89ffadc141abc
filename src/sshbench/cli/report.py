"""`sshbench report` and `sshbench compare`: saved results in, tables, files and verdicts out; nothing measured."""

from __future__ import annotations

import argparse
import os

from sshbench.analysis.conclude import conclude, conclude_comparisons, conclude_fleet
from sshbench.analysis.findings import Change
from sshbench.cli.context import Context
from sshbench.options import parse_fraction
from sshbench.render.chartbook import ChartBook
from sshbench.render.compare import comparison_table
from sshbench.render.exporters import EXPORTERS, DirectoryExporter, Exporter, dest
from sshbench.render.jsondoc import compare_document, report_document
from sshbench.render.terminal import full_report, host_rule, hosts_report
from sshbench.results.store import merge, read_results
from sshbench.vocabulary.errors import ExitCode, UsageError
from sshbench.vocabulary.outputs import Output, file_in, output_dir, text_output


def results_files(given: list[str]) -> list[str]:
    """The files named, with each directory replaced by the *.json files in it (sorted; none is an error)."""
    files: list[str] = []
    for path in given:
        if os.path.isdir(path):
            found = sorted(os.path.join(path, n) for n in os.listdir(path)  # a directory named *.json is none
                           if n.endswith(".json") and not os.path.isdir(os.path.join(path, n)))
            if not found:
                raise UsageError(f"{path}: no results files (*.json) in this directory")
            files += found
        else:
            files.append(path)
    return list(dict.fromkeys(files))


def cmd_report(args: argparse.Namespace, ctx: Context) -> int:
    files = results_files(args.results)
    fleet = len(files) > 1
    runs = merge([(path, read_results(path)) for path in files]) if fleet else read_results(files[0])
    # every output is resolved (and refused) before anything is rendered or written
    chosen: list[tuple[Exporter, Output | str]] = []
    for exporter in EXPORTERS:
        given = getattr(args, dest(exporter))
        if given:
            exporter.check()
            chosen.append((exporter, output_dir(given, exporter.option) if isinstance(exporter, DirectoryExporter)
                           else text_output(given, exporter.option, exporter.default_name, files)))
    hosts = conclude_fleet(runs) if len(runs) > 1 else None  # what the runs conclude together, once
    if hosts is not None and not chosen and fleet and not args.json:  # machines: the comparison, not each one's report
        ctx.out.print(hosts_report(hosts, ctx.table_width(args.wide)))
        return int(ExitCode.OK)
    page = any(exporter.shows_recommendation for exporter, _ in chosen)  # the kept recommendation: its cost, if shown
    found = [conclude(report, recommendation=page) for report in runs]  # once per run: every output lays out these
    if args.json:  # the document instead of the terminal tables; file exporters still write theirs
        print(report_document(found), end="", flush=True)
    elif not chosen:
        for each in found:
            if len(found) > 1:
                ctx.out.print(host_rule(each.report))
            ctx.out.print(full_report(each, ctx.table_width(args.wide)))
        if hosts is not None:
            ctx.out.print(hosts_report(hosts, ctx.table_width(args.wide)))
    book = ChartBook()  # this command's charts: drawn once for the page and the files alike
    for exporter, output in chosen:
        if not isinstance(exporter, DirectoryExporter):
            assert isinstance(output, Output)
            output.write(exporter.render(found, book, hosts))
            if not output.is_stdout:
                ctx.say(f"wrote {output.path}")
            continue
        assert isinstance(output, str)
        written = 0
        for relative, data in exporter.files(found, book):
            subdir, name = os.path.split(relative)
            file_in(os.path.join(output, subdir), name, exporter.option).write(data)
            written += 1
        ctx.say(f"wrote {written} files to {output}")
    return int(ExitCode.OK)


def cmd_compare(args: argparse.Namespace, ctx: Context) -> int:
    threshold = parse_fraction(args.fail_above, "--fail-above") if args.fail_above else None
    if threshold is not None and not 0 < threshold <= 10:
        raise UsageError(f"--fail-above {args.fail_above}: use a slowdown above 0, e.g. 5%")
    regressed = False
    compared: list[tuple[str, str, list[Change]]] = []
    notes: list[str] = []
    shown: list[tuple[str, str, list[Change], list[str]]] = []  # printed once every verdict is known
    # every pair concluded once (analysis/conclude.py), then refused or shown in the order given
    for pair in conclude_comparisons([(path, read_results(path)) for path in args.results], args.normalize):
        base_label, label, options, facts = pair.base_label, pair.label, pair.options, pair.facts
        if options and threshold is not None and not args.allow_different:
            raise UsageError(f"compare --fail-above: {base_label} and {label} measured different things "
                             f"({'; '.join(options)}): a slowdown between them is not a regression; compare runs "
                             "made with the same options, or pass --allow-different")
        if pair.refused is not None:
            raise UsageError(pair.refused)
        changes = list(pair.changes)
        compared.append((base_label, label, changes))
        lines = [f"note: {base_label} and {label} measured different things ({'; '.join(options)}): the changes "
                 "above are theirs as much as the machine's"] if options else []
        lines += [f"note: {base_label} and {label} differ in {'; '.join(facts)}"] if facts else []
        if threshold is not None:
            for change in changes:
                if change.regression_beyond(threshold):
                    regressed = True
                    lines.append(f"regression: {change.why_regression(threshold)}")
        blind = [c for c in changes if not c.detectable]
        if blind:
            lines.append(f"{len(blind)} of {len(changes)} cases have too few samples ({blind[0].samples[0]} vs "
                         f"{blind[0].samples[1]}, ...) for any change to reach significance after the correction: "
                         "measure more samples (--min-runs)")
        notes += lines
        shown.append((base_label, label, changes, lines))
    code = ExitCode.REGRESSION if regressed else ExitCode.OK
    ctx.code_if_closed = code  # the verdict stands whether or not the reader stays (`| head -1` with pipefail)
    if args.json:
        print(compare_document(compared, threshold, notes), end="", flush=True)
    for base_label, label, changes, lines in [] if args.json else shown:
        ctx.out.print(comparison_table(base_label, label, changes, args.normalize, threshold))
        for line in lines:
            ctx.line(line)
    return int(code)
