"""The results files: one self-describing JSON document and a CSV of samples.

Both are rewritten atomically (temp file + rename) after every sample, so a
run that is interrupted, or crashes, leaves valid files holding everything
measured so far. A few hundred samples make this a millisecond affair.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from datetime import UTC, datetime
from typing import Any

from sshbench.errors import OutputError
from sshbench.model import Report, Sample, host_label, results_to_dict

CSV_COLUMNS = (
    "host", "case_id", "round", "warmup", "ok", "started_at", "size_bytes", "bytes_received", "setup_seconds",
    "data_seconds", "total_seconds", "throughput_bytes_per_second", "kex_seconds", "client_cpu_user_seconds",
    "client_cpu_sys_seconds", "server_cpu_user_seconds", "server_cpu_sys_seconds", "exit_status",
    "kex", "hostkey", "cipher_c2s", "mac_c2s", "cipher_s2c", "mac_s2c", "error",
)


def default_path(now: datetime | None = None) -> str:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return os.path.join("sshbench-results", f"sshbench-{stamp}.json")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write(path: str, text: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".sshbench-", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; results are ordinary files
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


_UMASK = _umask()


def sample_row(sample: Sample, host: str) -> dict[str, Any]:
    neg = sample.negotiated
    row: dict[str, Any] = {name: getattr(sample, name, None) for name in CSV_COLUMNS}
    row["host"] = host
    for name in ("kex", "hostkey", "cipher_c2s", "mac_c2s", "cipher_s2c", "mac_s2c"):
        row[name] = getattr(neg, name) if neg else None
    return row


def samples_csv(runs: list[Report]) -> str:
    """Every sample of every host, the host in the first column."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for report in runs:
        host = host_label(report)
        for sample in report.samples:
            writer.writerow(sample_row(sample, host))
    return buf.getvalue()


class ResultsWriter:
    """Owns the output paths; `save()` after each sample keeps both files current.

    With several hosts, the file holds the hosts already finished plus the one
    being measured, so an interrupt on the third host keeps the first two.
    """

    def __init__(self, json_path: str) -> None:
        self.json_path = json_path if json_path.endswith(".json") else json_path + ".json"
        self.csv_path = self.json_path[: -len(".json")] + ".csv"
        directory = os.path.dirname(os.path.abspath(self.json_path))
        try:
            os.makedirs(directory, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=directory, prefix=".sshbench-", delete=True)  # noqa: SIM115
            probe.close()
        except OSError as exc:
            raise OutputError(
                f"cannot write results to {directory}: {exc.strerror}; pass --output with a writable path"
            ) from None
        self.finished: list[Report] = []

    def host_done(self, report: Report) -> None:
        """The next save() adds a new host after this one instead of replacing it."""
        self.finished.append(report)

    def save(self, report: Report) -> None:
        runs = self.finished if any(r is report for r in self.finished) else [*self.finished, report]
        try:
            _atomic_write(self.json_path, json.dumps(results_to_dict(runs), indent=1) + "\n")
            _atomic_write(self.csv_path, samples_csv(runs))
        except OSError as exc:
            raise OutputError(f"cannot write {self.json_path}: {exc.strerror}") from None
