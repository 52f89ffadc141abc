"""Transfer-method names, their parsing from recorded tool output, test files and the method matrix."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.analysis.physics.advice import Code, advise
from sshbench.analysis.stats.stats import summarize
from sshbench.measure.datapath import Payload
from sshbench.measure.filetool import _PORT_RE
from sshbench.measure.testfiles import check_free_space, make_source, space_needed
from sshbench.methods import METHODS, knobs, method, parse_methods, tuned
from sshbench.methods.sftp import Sftp
from sshbench.options import DEFAULT_FILE_BYTES, FileShape, RunOptions
from sshbench.plumbing.negotiation import parse_text
from sshbench.plumbing.trees import tree_sha256, tree_size
from sshbench.render.matrix import matrix_cell, matrix_tables, method_matrices
from sshbench.render.table_model import plain
from sshbench.results.environment import DiskFacts, Environment, FilesFacts
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.units import MiB
from tests.conftest import recorded


def test_method_list_keywords_and_order() -> None:
    assert parse_methods("all") == tuple(METHODS)
    assert parse_methods("rsync, scp,rsync") == ("rsync", "scp")
    with pytest.raises(UsageError, match="unknown --method 'ftp'"):
        parse_methods("scp,ftp")
    with pytest.raises(UsageError):
        parse_methods(" , ")


def test_labels_are_the_commands_people_type() -> None:
    assert method("scp-legacy").label == "scp -O"
    assert method("sftp-B131072-R256").label == "sftp -B 131072 -R 256"
    assert method("rsync").moves_files and not method("pipe").moves_files
    assert all(method(name).name == name for name in METHODS), "every registered method answers to its name"
    with pytest.raises(UsageError):
        method("sftp-B1")


def test_sftp_sweep_folds_the_default_combination_into_plain_sftp() -> None:
    assert tuned(("pipe", "sftp"), ()) == ("pipe", "sftp")
    assert tuned(("sftp", "scp"), (("sftp_buffers", (32768, 131072)), ("sftp_requests", (64,)))) == \
        ("sftp", "sftp-B131072-R64", "scp")
    assert tuned(("sftp",), (("sftp_requests", (16, 64)),)) == ("sftp-B32768-R16", "sftp")


def test_a_knob_belongs_to_its_method_and_brings_its_own_option() -> None:
    assert [(m.name, k.option) for m, k in knobs()] == [("sftp", "--sftp-buffers"), ("sftp", "--sftp-requests")]
    with pytest.raises(UsageError, match="--sftp-requests tunes sftp: add sftp to --method"):
        tuned(("scp",), (("sftp_requests", (8,)),))
    with pytest.raises(UsageError, match="unknown method setting 'rsync_blocks'"):
        tuned(("rsync",), (("rsync_blocks", (8,)),))


@given(st.integers(1, 2**20), st.integers(1, 1024))
def test_tuned_sftp_names_round_trip(buffer: int, requests: int) -> None:
    for name in tuned(("sftp",), (("sftp_buffers", (buffer,)), ("sftp_requests", (requests,)))):
        made = method(name)
        assert isinstance(made, Sftp)
        assert (made.buffer or 32768, made.requests or 64) == (buffer, requests)


@pytest.mark.parametrize(("name", "cipher", "sent", "received"), [
    ("scp-v-9.2-upload-1MiB.txt", "aes128-ctr", 1052688, 6252),
    ("rsync-ssh-v-9.2-download-1MiB.txt", "aes128-gcm@openssh.com", 3768, 1055180),
])
def test_file_tool_transcripts_yield_negotiation_bytes_and_port(name: str, cipher: str, sent: int,
                                                                received: int) -> None:
    text = recorded(name)
    transcript = parse_text(text)
    assert transcript.negotiated.cipher_c2s == cipher and transcript.negotiated.complete
    assert transcript.transferred == (sent, received)
    assert [int(m.group(1)) for m in _PORT_RE.finditer(text)] == [38640 if name.startswith("scp") else 38642]


def test_file_options_are_validated() -> None:
    assert RunOptions(methods=("pipe", "scp")).file_shape == FileShape(DEFAULT_FILE_BYTES)
    assert RunOptions(methods=("scp",), size_bytes=MiB).file_shape == FileShape(MiB)
    shape = RunOptions(methods=("rsync",), files=10, file_size_bytes=4096).file_shape
    assert shape.is_set and shape.total_bytes == 40960
    for bad in ({"sink": "tape"}, {"methods": ("scp",), "files": 0, "file_size_bytes": 1},
                {"methods": ("scp",), "files": 2}, {"methods": ("pipe",), "files": 2, "file_size_bytes": 1},
                {"methods": ("sftp",), "knobs": (("sftp_buffers", (0,)),)},
                {"methods": ("sftp",), "knobs": (("Bad Key", (1,)),)}):
        with pytest.raises(UsageError):
            RunOptions(**bad)


def test_sparse_source_and_tree_digest(tmp_path: Path) -> None:
    make_source(str(tmp_path / "one"), FileShape(64 * MiB), Payload())
    assert os.stat(tmp_path / "one").st_blocks == 0
    make_source(str(tmp_path / "set"), FileShape(1000, 3, directory=True), Payload())
    assert tree_size(str(tmp_path / "set")) == (3000, 3)
    before = tree_sha256(str(tmp_path / "set"))
    os.rename(tmp_path / "set" / "f000003", tmp_path / "set" / "f000004")
    assert tree_sha256(str(tmp_path / "set")) != before, "names are part of a set's digest"
    assert tree_size(str(tmp_path / "missing")) is None


def test_free_space_is_checked_before_anything_is_written(tmp_path: Path) -> None:
    assert space_needed(FileShape(MiB), Payload(), sink_file=False) < space_needed(FileShape(MiB), Payload(), True)
    with pytest.raises(UsageError, match=r"not enough free space .* use --workdir"):
        check_free_space(str(tmp_path), FileShape(2**62), Payload(), sink_file=True)
    assert list(tmp_path.iterdir()) == []


def _file_sample(case: Case, rnd: int, total: float, overhead: float) -> Sample:
    return Sample(case_id=case.id, round=rnd, warmup=False, ok=True, started_at="t", size_bytes=100 * MiB,
                  bytes_received=100 * MiB, total_seconds=total, overhead_seconds=overhead,
                  data_seconds=total - overhead, client_cpu_user_seconds=0.2, client_cpu_sys_seconds=0.1,
                  client_cpu_setup_seconds=0.05, server_cpu_user_seconds=0.3, server_cpu_sys_seconds=0.1,
                  server_cpu_setup_seconds=0.05, verified="size")


def _matrix_report(disk_write: float) -> Report:
    cases = [Case(CaseKind.CIPHER, d, cipher=c, method=m) for m in ("pipe", "scp", "rsync")
             for c in ("aes128-ctr", "3des-cbc") for d in (Direction.UPLOAD, Direction.DOWNLOAD)]
    records = [CaseRecord(c) for c in cases]
    samples = [_file_sample(c, r, 0.5 + 0.01 * r, 0.1) for c in cases for r in range(1, 7)]
    files = FilesFacts(files=1, file_bytes=100 * MiB, sink="file",
                       disk=DiskFacts(read_bytes_per_second=5e9, write_bytes_per_second=disk_write))
    report = Report(tool_version="t", started_at="t", seed=1, environment=Environment(files=files),
                    cases=records, samples=samples)
    report.summaries = summarize(records, samples)
    return report


def test_matrix_has_methods_as_rows_ciphers_as_columns_and_flags_weak_ones() -> None:
    report = _matrix_report(5e9)
    matrices = method_matrices(report)
    assert [m.direction for m in matrices] == ["upload", "download"]
    assert matrices[0].methods == ["pipe", "scp", "rsync"] and matrices[0].ciphers == ["aes128-ctr", "3des-cbc"]
    spec = matrix_tables(report)[0]
    assert [column.title for column in spec.columns] == ["method", "aes128-ctr", "3des-cbc (!! broken)"]
    assert [plain(row.cells[0]) for row in spec.rows] == ["pipe", "scp", "rsync"]
    lines = matrix_cell(report.summaries[0])
    assert lines[0].startswith("2") and lines[1].startswith("e2e ") and lines[2].startswith("CPU ")


def test_slow_disk_is_warned_about() -> None:
    assert Code.DISK_LIMITS not in [a.code for a in advise(_matrix_report(5e9))]
    warned = [a for a in advise(_matrix_report(300e6)) if a.code is Code.DISK_LIMITS]
    assert warned and "writes the sink at 300 MB/s" in warned[0].message


def test_case_ids_carry_the_method_except_for_the_pipe() -> None:
    pipe = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr")
    scp = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-ctr", method="scp")
    assert pipe.id == "cipher:aes128-ctr:upload" and scp.id == "cipher:aes128-ctr:upload:scp"
    assert pipe.group != scp.group
