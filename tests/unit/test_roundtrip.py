"""Every results file a run writes must load: random valid option sets, through save, load and every report.

A run that finishes with exit 0 and leaves a file `report` refuses (two
links with one label gave two cases one id) is a broken promise. Here the
real parser turns random valid command lines into options, the real
planner makes their cases, each case gets samples, the real writer saves the
report, and the real reader, terminal, Markdown and HTML renderers take it
back.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sshbench.analysis.conclude import conclude
from sshbench.cli.parser import options_from_args, parse
from sshbench.methods import parse_methods
from sshbench.plan.cases import plan_cases
from sshbench.render.html import render as html
from sshbench.render.markdown import render_all as markdown
from sshbench.render.terminal import full_report
from sshbench.results.model import Report, Sample
from sshbench.results.store import ResultsWriter, read_results
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.linkspec import LinkSpec
from tests.unit.test_plan import CLIENT, SERVER

CIPHERS = ["aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com", "aes128-ctr",
           "3des-cbc"]
MACS = ["hmac-sha2-256-etm@openssh.com", "umac-64@openssh.com", "hmac-sha1"]
KEX = ["curve25519-sha256", "sntrup761x25519-sha512@openssh.com", "diffie-hellman-group14-sha1"]


def _names(names: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.just("none"), st.lists(st.sampled_from(names), min_size=1, max_size=3,
                                                unique=True).map(",".join))


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    args = ["run", "--ciphers", draw(_names(CIPHERS)), "--macs", draw(_names(MACS)), "--kex", draw(_names(KEX)),
            "--hostkeys", "none", "--directions", draw(st.sampled_from(["upload", "download", "both"]))]
    if draw(st.booleans()):
        args += ["--method", draw(st.sampled_from(["pipe", "scp", "sftp", "pipe,scp,sftp,rsync"]))]
    if draw(st.booleans()):
        args += ["--runs", str(draw(st.integers(1, 4)))]
    if draw(st.booleans()):
        args.append("--no-controls")
    rtts = draw(st.lists(st.integers(0, 200_000), max_size=3, unique=True))  # microseconds: every valid one
    if rtts:
        text = "rtt=" + ",".join(LinkSpec(us / 1e6).label.removeprefix("rtt=") for us in rtts)
        if draw(st.booleans()):
            text += f",loss={draw(st.integers(1, 5000)) / 10000:g}%"
        args += ["--link", text]
    return args


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=command_lines(), seed=st.integers(0, 2**31))
def test_what_a_run_writes_loads_and_renders(argv: list[str], seed: int, tmp_path: Path) -> None:
    try:
        options = options_from_args(parse(argv))
        plan = plan_cases(options, CLIENT, SERVER, parse_methods(",".join(options.methods)), {}, tcp_control=True)
    except UsageError:
        return  # a combination the command line refuses (e.g. nothing to measure): nothing is written
    rng = random.Random(seed)
    report = Report("0.test", "2026-11-23T00:00:00+00:00", seed, options=options, cases=plan.records)
    for record in plan.records:
        if record.status.value != "skipped":
            for round_no in range(rng.randint(1, 3)):
                size = rng.randint(1, 2**26)
                report.samples.append(Sample(record.case.id, round_no, False, True, "", size, bytes_received=size,
                                             data_seconds=rng.uniform(0.01, 3), total_seconds=3.5))
    out = Path(tempfile.mkdtemp(dir=tmp_path)) / "r.json"  # one per example: results are never overwritten
    writer = ResultsWriter(str(out))
    writer.save(report)
    writer.finish("complete")
    loaded = read_results(str(out))
    assert [c.case.id for c in loaded[0].cases] == [c.case.id for c in report.cases]
    found = [conclude(r, recommendation=True) for r in loaded]
    assert full_report(found[0], 120) is not None
    assert markdown(found) and html(found)
