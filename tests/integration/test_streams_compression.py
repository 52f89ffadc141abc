"""Streams and compression as case dimensions: real transfers through a real embedded server (and, as root,
an emulated link), every byte counted, every compressor's CPU read, a failing stream, a missing compressor.

The loopback run crosses 1 and 3 streams with every compression choice in
both directions: each sample must have moved and counted exactly its bytes
with the compression ssh -v proves (zlib only for `ssh`), and the outputs
must carry and read the new dimensions.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sshbench.analysis.conclude import conclude
from sshbench.compressors import choice
from sshbench.render import markdown
from sshbench.render.jsondoc import report_document
from sshbench.render.remedies import HERE_HEADING, LINK_HEADING
from sshbench.results.store import read_results
from sshbench.vocabulary.errors import ExitCode
from tests.conftest import leftovers
from tests.integration.cli_helpers import sshbench
from tests.integration.processes import ALGOS, ROOT, descendants, start, wait_for_samples
from tests.integration.test_hostile import assert_one_clean_line

pytestmark = pytest.mark.integration

CROSSED = ["--ciphers", "aes128-ctr", *ALGOS, "--no-controls", "--streams", "1,3",
           "--compression", "off,ssh,zstd,lz4,gzip", "--data", "text", "--runs", "2", "--size", "12MiB"]


@pytest.fixture(scope="module")
def crossed(module_tmpdir: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], Path]:
    out = module_tmpdir / "crossed.json"
    done = sshbench(*CROSSED, "--output", str(out), tmpdir=module_tmpdir, timeout=900)
    return done, json.loads(out.read_text()) if out.exists() else {}, out


def test_every_stream_and_compression_moved_and_counted_every_byte(crossed: Any) -> None:
    done, data, _ = crossed
    assert done.returncode == 0, done.stderr[-2000:]
    cases = {r["case"]["id"]: r["case"] for r in data["cases"] if r["status"] == "measured"}
    # every stream count and compressor in both directions, and the plain transfer: this client's default cipher
    assert len(cases) == 2 * 2 * 5 + 2, sorted(cases)
    for sample in data["samples"]:
        case = cases[sample["case_id"]]
        assert sample["ok"], (sample["case_id"], sample["error"], sample["stderr_tail"])
        assert sample["bytes_received"] == sample["size_bytes"]
        negotiated = sample["negotiated"]["compression_c2s"]
        assert negotiated == ("zlib@openssh.com" if case["compression"] == "ssh" else "none")
        external = case["compression"] in ("zstd:3", "lz4:1", "gzip:6")
        assert (sample["client_compressor_cpu_seconds"] is not None) == external
        assert (sample["server_compressor_cpu_seconds"] is not None) == external
        assert len(sample["stream_bytes_per_second"]) == (3 if case["streams"] == 3 else 0)
        if case["streams"] == 1:  # one connection has no tail; three say how far apart their last bytes came
            assert sample["tail_seconds"] is None
        elif sample["steady_seconds"]:
            assert 0 <= sample["tail_seconds"] < sample["data_seconds"], (sample["case_id"], sample["tail_seconds"])
        wire = sample["wire_bytes_sent"] if case["direction"] == "upload" else sample["wire_bytes_received"]
        if case["compression"] != "off":  # text compresses: fewer bytes crossed than were delivered
            assert wire < sample["bytes_received"] * 0.8, (sample["case_id"], wire)
        else:
            assert wire > sample["bytes_received"]


def test_the_outputs_read_the_new_dimensions(crossed: Any, tmp_path: Path) -> None:
    done, _, out = crossed
    assert HERE_HEADING in done.stdout, "on loopback the cipher answer first, then what the changes did"
    assert done.stdout.index("The answer") < done.stdout.index(HERE_HEADING)
    assert "Streams and compression, upload" in done.stdout and "zstd -3" in done.stdout
    assert "pays on links slower than" in done.stdout
    report = sshbench("report", str(out), "--markdown", "-", "--html", str(tmp_path / "r.html"), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert HERE_HEADING in report.stdout and "3 streams" in report.stdout
    assert "zstd -3" in (tmp_path / "r.html").read_text()
    for command in (["compare", str(out), str(out)], ["recommend", str(out)]):
        done = sshbench(*command, cwd=tmp_path)
        assert done.returncode == 0, (command, done.stderr)


def test_each_compression_spelling_is_read_once_however_many_outputs_ask(crossed: Any) -> None:
    """A case holds its compression as a value (Case.compressor): reading the file, every table, the link
    answer, Markdown and JSON parse each of the five spellings once (they once re-parsed it at 17 call sites)."""
    _, _, out = crossed
    choice.cache_clear()
    (report,) = read_results(str(out))
    markdown.render(conclude(report))
    report_document([conclude(report)])
    assert "zstd -3" in markdown.render(conclude(report))
    assert choice.cache_info().misses == len(CROSSED[CROSSED.index("--compression") + 1].split(","))


def test_nothing_of_the_crossed_run_is_left(crossed: Any, module_tmpdir: Path) -> None:
    assert not leftovers(str(module_tmpdir))


@pytest.mark.skipif(not ROOT or not shutil.which("unshare"), reason="hiding zstd needs a private mount namespace")
def test_a_missing_compressor_is_one_line_naming_its_package(tmp_path: Path) -> None:
    zstd = shutil.which("zstd")
    if zstd is None:
        pytest.skip("zstd is not installed here to hide")
    inner = [sys.executable, "-m", "sshbench", "--ciphers", "aes128-ctr", *ALGOS, "--compression", "off,zstd",
             "--runs", "1", "--output", str(tmp_path / "r.json")]
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           f'mount --bind /dev/null {zstd} && exec "$@"', "sh", *inner],
                          capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert_one_clean_line(done, ExitCode.MISSING_TOOL, "--compression zstd: zstd is not installed")
    assert "Debian package zstd" in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_streams_share_a_session_not_sshbench_s_and_one_that_fails_fails_its_sample(tmp_path: Path) -> None:
    """A transfer's four ssh share one session (one scheduling group, as from a shell) that sshbench is not in,
    each leading its own process group; killing one fails that sample only."""
    args = ["--ciphers", "aes128-ctr", *ALGOS, "--no-controls", "--streams", "4", "--directions", "upload",
            "--runs", "4", "--size", "2GiB"]
    run = start(args, tmp_path)
    try:
        wait_for_samples(run, tmp_path / "r.json", 1)
        victim, sessions, leaders = None, set(), False
        deadline = time.monotonic() + 60
        while victim is None and time.monotonic() < deadline:
            # ssh's own fork for its ProxyCommand is "ssh" too until it execs, in ssh's group: not a client
            clients = [p for p in descendants(run.pid) if _argv0(p).endswith(b"/ssh")
                       and not _argv0(_parent(p)).endswith(b"/ssh")]
            if len(clients) >= 4:
                with contextlib.suppress(ProcessLookupError):  # a sample that just ended: look again
                    sessions = {os.getsid(p) for p in clients}
                    leaders = all(os.getpgid(p) == p for p in clients)
                    victim = clients[1]
            time.sleep(0.05)
        assert victim is not None, "no sample with four ssh clients seen"
        assert len(sessions) == 1 and os.getsid(run.pid) not in sessions and leaders
        time.sleep(0.3)  # in its data phase
        os.kill(victim, signal.SIGKILL)
        _, err = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == ExitCode.SAMPLES_FAILED, err
    data = json.loads((tmp_path / "r.json").read_text())
    failed = [s for s in data["samples"] if not s["ok"]]
    assert data["status"] == "complete" and len(failed) == 1
    assert failed[0]["error"].startswith("stream "), failed[0]["error"]
    assert sum(s["ok"] and not s["warmup"] for s in data["samples"]) >= 3, "the samples after it were measured"
    assert not leftovers(str(tmp_path))


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _argv0(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return b""


def headline_of(stdout: str) -> str:
    """The link answer's first headline as one line (the terminal wraps it): the lines after the heading, up to
    the first indented one."""
    lines = stdout.splitlines()
    assert lines[0] == LINK_HEADING, lines[0]
    out = []
    for line in lines[1:]:
        if line.startswith("    ") or line.startswith("The answer"):
            break
        out.append(line)
    return " ".join(" ".join(out).split())


def client_default_cipher() -> str:
    """The first cipher this machine's ssh offers when left alone (ssh -G with no config)."""
    dump = subprocess.run(["ssh", "-G", "-F", "/dev/null", "sshbench-test.invalid"], capture_output=True, text=True,
                          check=True, timeout=30).stdout
    return next(line.split()[1] for line in dump.splitlines() if line.startswith("ciphers ")).split(",")[0]


# CUBIC, not the host's default: a loss-based control paces each connection at about MSS/RTT x 1.22/sqrt(loss)
# (9 MB/s here), so four streams move about four times one on any machine, loaded or not. Under BBR (Debian's
# default here) one stream moved 41 MB/s and four were not separable from it in a loaded CI's 150 s.
LOSSY = "rtt=10ms,loss=1%,cc=cubic"


@pytest.fixture(scope="module")
def lossy(module_tmpdir: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Four streams against one across a lossy link, with a cipher that is not this client's default: the run adds
    the default as its plain transfer."""
    if not ROOT:
        pytest.skip("--link makes network namespaces: root only")
    out = module_tmpdir / "lossy.json"
    done = sshbench("--link", LOSSY, "--streams", "1,4", "--ciphers", "aes128-gcm@openssh.com", "--directions",
                    "upload", "--time-budget", "150s", "--echo", "0", "--output", str(out), tmpdir=module_tmpdir,
                    cwd=module_tmpdir, timeout=600)
    return done, out


def test_over_a_lossy_link_the_plain_transfer_is_the_client_s_default_and_loss_is_its_limiter(lossy: Any) -> None:
    done, out = lossy
    assert done.returncode == 0, done.stderr[-2000:]
    default = client_default_cipher()
    headline = headline_of(done.stdout)
    assert headline.startswith(f"upload across {LOSSY}: aes128-gcm@openssh.com + 4 streams moved the most: "), headline
    assert f"the plain transfer ({default}, this client's default; one connection, no compression: " in headline
    plain = headline.split("the plain transfer (", 1)[1].split(")", 1)[0]
    assert "loss " in plain and "% resent" in plain, plain
    report = json.loads(sshbench("report", str(out), "--json", cwd=out.parent).stdout)
    answer = report["runs"][0]["link_answer"][0]
    assert answer["plain"]["cipher"] == default and answer["plain"]["default_measured"]
    assert answer["plain"]["limit"]["verdict"] == "loss" and answer["plain"]["limit"]["loss"] > 0.002
    assert answer["pick"] == "cipher:aes128-gcm@openssh.com:upload*4@" + LOSSY
    assert answer["rivals"] and all(r["relation"] in ("different", "equivalent") or r["forecast"]
                                    for r in answer["rivals"]), "settled, or forecast"
    assert "xargs -P 4" in next(c["how_to"] for c in answer["changes"] if c["case_id"] == answer["pick"])
    pick = next(c for c in answer["changes"] if c["case_id"] == answer["pick"])
    # raw TCP, one loss-paced connection, is not the link's capacity: four streams past it are loss-bound too
    assert pick["limit"]["verdict"] == "loss" and pick["limit"]["link_share"] is None, pick["limit"]
    assert "the link is full" not in headline
    assert pick["tail_seconds"] is not None and pick["tail_seconds"] >= 0, "4 streams: their parts' spread, said"
    sizes = [s["size_bytes"] for s in json.loads(out.read_text())["samples"] if s["case_id"] == answer["pick"]]
    assert min(sizes) <= pick["split_bytes"] <= max(sizes), "the size it was measured at"
    assert f" as an equal split of {pick['split_bytes'] / 2**20:,.0f} MiB, to its last part's end (its parts ended " \
        in " ".join(done.stdout.split())


def test_every_counted_sample_of_a_link_run_has_one_timing_basis_and_stays_within_the_link(lossy: Any) -> None:
    """Counted where the bytes arrive, over a window of 20 round trips or more, never above the best raw TCP
    sample through the same link times its streams: the rule that kept 4 streams and 1 from being timed apart."""
    _, out = lossy
    data = json.loads(out.read_text())
    cases = {r["case"]["id"]: r["case"] for r in data["cases"]}
    raw = max(s["steady_bytes"] / s["steady_seconds"] for s in data["samples"]
              if cases[s["case_id"]]["kind"] == "control" and s["ok"] and not s["warmup"])
    counted = [s for s in data["samples"] if s["ok"] and not s["warmup"] and s["unusable"] is None
               and cases[s["case_id"]]["kind"] == "cipher"]
    assert len(counted) >= 3 * 4, "material to check: the 150 s budget may end a re-sized case below its six"
    for sample in counted:
        assert sample["timing"] == "delivered" and sample["steady_seconds"] >= 20 * 0.010, sample["case_id"]
        rate = sample["steady_bytes"] / sample["steady_seconds"]
        # within raw TCP's best so far x its tolerance (measure/physics.py: 15%, 40% while under 3 samples)
        assert rate <= raw * cases[sample["case_id"]]["streams"] * 1.40, (sample["case_id"], rate, raw)
        assert sample["tcp"] is not None and sample["tcp"]["segments"] > 0, "the senders' TCP facts were read"
    assert any(s["tcp"]["retransmitted"] for s in counted), "1% loss: segments were resent"
    assert data["environment"]["links"][0]["congestion"] == "cubic", "cc= is the links' own, whatever the host's"


def test_the_link_answer_leads_markdown_and_html(lossy: Any, tmp_path: Path) -> None:
    _, out = lossy
    markdown = sshbench("report", str(out), "--markdown", "-", cwd=tmp_path).stdout
    assert LINK_HEADING in markdown.split("The answer")[0]
    html = sshbench("report", str(out), "--html", "-", cwd=tmp_path).stdout
    first_item = html.split('<ul class="verdict">', 1)[1].split("</li>", 1)[0]
    assert "4 streams" in first_item and "times as fast as the plain transfer" in first_item, first_item


@pytest.mark.skipif(not ROOT, reason="--link makes network namespaces: root only")
def test_over_a_slow_link_compression_is_the_remedy_for_text(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = sshbench("--link", "rtt=2ms,rate=20mbit", "--data", "text", "--compression", "off,zstd", "--ciphers",
                    client_default_cipher(), "--directions", "upload", "--runs", "5", "--size", "8MiB",
                    "--echo", "0", "--no-controls", "--output", str(out), cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    headline = headline_of(done.stdout)
    assert headline.startswith("upload across rtt=2ms,rate=20mbit: zstd -3 moved the most: "), headline
    ratio = float(headline.split(" MB/s, ", 1)[1].split()[0])
    assert ratio > 2, headline
    assert "nothing measured moves more: the link is full at " in headline, headline
