"""The results files: one self-describing JSON document and a CSV of samples.

Both are rewritten atomically (temp file + rename) after every sample, so a
run that is interrupted, or crashes, leaves valid files holding everything
measured so far, and `finish()` gives them a final status whatever ended the
run. A few hundred samples make this a millisecond affair. A results file is
never overwritten: each run claims new names exclusively, so two runs
started in the same second in one directory each keep their own.

Several files read as one fleet (`report a.json b.json`) have each run
named once, uniquely (merge): naming the runs is reading them, and
concludes nothing, so every command and output shares the one name.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
import re
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from sshbench.results.codec import results_from_dict, results_to_dict
from sshbench.results.model import Report, Sample
from sshbench.results.schema import SchemaError
from sshbench.vocabulary.errors import OutputError, UsageError
from sshbench.vocabulary.outputs import STDOUT, atomic_write, in_dev, signals_held, temp_beside
from sshbench.vocabulary.untrusted import UntrustedText, host_name, json_value, read_bounded

CSV_COLUMNS = (
    "host", "case_id", "round", "warmup", "ok", "started_at", "size_bytes", "bytes_received", "setup_seconds",
    "data_seconds", "total_seconds", "throughput_bytes_per_second", "kex_seconds", "client_cpu_user_seconds",
    "client_cpu_sys_seconds", "server_cpu_user_seconds", "server_cpu_sys_seconds", "exit_status",
    "kex", "hostkey", "cipher_c2s", "mac_c2s", "cipher_s2c", "mac_s2c", "error",
)


def default_stem(now: datetime | None = None) -> str:
    return f"sshbench-{(now or datetime.now(UTC)).strftime('%Y%m%dT%H%M%SZ')}"


def default_path(now: datetime | None = None) -> str:
    return os.path.join(DEFAULT_DIR, f"{default_stem(now)}.json")


DEFAULT_DIR = "sshbench-results"
_MAX_SUFFIX = 1000  # runs started in the same second in one directory: -2, -3, ...


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
        host = report.label
        for sample in report.samples:
            writer.writerow(sample_row(sample, host))
    return buf.getvalue()


class _Names:
    """Candidate names for a run's JSON and CSV: the given or default stem, then -2, -3 ... if taken."""

    def __init__(self, given: str | None) -> None:
        if given == STDOUT:
            raise OutputError("--output -: results are a JSON file with a CSV beside it; for machine-readable "
                              "standard output use --jsonl")
        self.explicit = given is not None and not os.path.isdir(given)
        if given is None or not self.explicit:
            self.directory, self.stem = given or DEFAULT_DIR, default_stem()
        else:
            path = given if given.endswith(".json") else given + ".json"
            self.directory, self.stem = os.path.dirname(path) or ".", os.path.basename(path)[: -len(".json")]
        if in_dev(os.path.join(self.directory, self.stem)):
            raise OutputError(f"--output {given}: results are never written in /dev; give a path elsewhere (to "
                              "discard them, use a temporary directory)")
        self.index = 1

    def paths(self) -> tuple[str, str]:
        name = self.stem if self.index == 1 else f"{self.stem}-{self.index}"
        return os.path.join(self.directory, f"{name}.json"), os.path.join(self.directory, f"{name}.csv")

    def taken(self) -> None:
        """The current names exist: move on to the next, or refuse when the user chose them."""
        json_path, csv_path = self.paths()
        if self.explicit:
            raise OutputError(f"--output {json_path}: it (or {os.path.basename(csv_path)} beside it) already "
                              "exists, and sshbench never overwrites results: give a new name or remove it")
        if self.index >= _MAX_SUFFIX:
            raise OutputError(f"{self.directory} already holds {_MAX_SUFFIX} results files named {self.stem}*; "
                              "pass --output")
        self.index += 1

    def free(self) -> tuple[str, str]:
        """The first names not taken now (the claim itself happens at the first save)."""
        while any(os.path.lexists(p) for p in self.paths()):
            self.taken()
        return self.paths()


def _missing_dirs(directory: str) -> list[str]:
    """The directories makedirs(directory) would create, outermost first."""
    missing = []
    path = os.path.abspath(directory)
    while not os.path.exists(path) and path != os.path.dirname(path):
        missing.append(path)
        path = os.path.dirname(path)
    return missing[::-1]


def _claim(path: str, data: bytes) -> bool:
    """Create `path` with `data` only if nothing is there (link(2) of a complete temp file: no race with
    another run, never a half-written or empty file, no symlink followed); False when taken."""
    with signals_held():
        fd, tmp = temp_beside(os.path.dirname(os.path.abspath(path)))
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            try:
                os.link(tmp, path)
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS):
                    raise
                with open(path, "xb") as fh:  # a filesystem without hard links: exclusive create, then write
                    fh.write(data)
        except FileExistsError:
            return False
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return True


def check_output(given: str | None) -> None:
    """What ResultsWriter would refuse about --output, checked without making anything (--plan must say what
    the run would: an existing explicit --output is exit 4 there too)."""
    names = _Names(given)
    if names.explicit:
        names.free()


class ResultsWriter:
    """Owns the output paths; `save()` after each sample keeps both files current.

    The names are checked when the writer is made (an explicit --output that
    exists is refused before anything runs) and claimed at the first save.
    With several hosts, the file holds the hosts already finished plus the one
    being measured, so an interrupt on the third host keeps the first two.
    `finish()` makes sure the file ends with a final status whatever happened.
    """

    def __init__(self, given: str | None = None) -> None:
        self._names = _Names(given)
        self._made = _missing_dirs(self._names.directory)  # removed again if nothing is ever saved
        try:
            os.makedirs(self._names.directory, exist_ok=True)
            self.json_path, self.csv_path = self._names.free()
            with signals_held():  # a writability probe: never left behind, even by an interrupt
                fd, probe = temp_beside(self._names.directory)
                os.close(fd)
                os.unlink(probe)
        except OSError as exc:
            raise OutputError(f"cannot write results in {self._names.directory}: {exc.strerror or exc}; pass "
                              "--output with a path in a writable directory") from None
        self._claimed = False
        self.finished: list[Report] = []
        self.current: Report | None = None
        self._saved_status: str | None = None  # the current run's status in the file on disk

    def host_done(self, report: Report) -> None:
        """The next save() adds a new host after this one instead of replacing it."""
        self.finished.append(report)

    def _runs(self, report: Report) -> list[Report]:
        return self.finished if any(r is report for r in self.finished) else [*self.finished, report]

    def save(self, report: Report) -> None:
        self.current = report
        runs = self._runs(report)
        data, table = _json(runs), samples_csv(runs).encode()
        try:
            if not self._claimed:
                self._claim(data, table)
            else:
                atomic_write(self.json_path, data)
                atomic_write(self.csv_path, table)
        except OSError as exc:
            raise OutputError(f"cannot save results to {self.json_path}: {exc.strerror or exc}; free space or "
                              "make its directory writable, or pass --output on another filesystem") from None
        self._saved_status = report.status

    def _claim(self, data: bytes, table: bytes) -> None:
        """The first save: take the names for good, moving on to free ones if another run took them since."""
        while True:
            self.json_path, self.csv_path = self._names.free()
            if _claim(self.csv_path, table):
                if _claim(self.json_path, data):
                    self._claimed = True
                    return
                os.unlink(self.csv_path)
            self._names.taken()

    def finish(self, status: Literal["complete", "interrupted", "failed"]) -> str | None:
        """Give the run being measured a final status and save it; where the results now are (None: nowhere).

        Falls back to rewriting the file in place (a read-only directory still
        lets an existing file be written) and then to a rescue file in the
        temp dir, so that measured samples are never lost silently.
        """
        report = self.current
        if report is None:
            for directory in reversed(self._made):  # made for results that never came: leave no trace
                with contextlib.suppress(OSError):
                    os.rmdir(directory)
            return None
        if report.status == "running":
            report.status = status
            report.finished_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        if self._saved_status == report.status:
            return self.json_path
        with contextlib.suppress(OutputError):
            self.save(report)
            return self.json_path
        data = _json(self._runs(report))
        if self._claimed:
            with contextlib.suppress(OSError), open(self.json_path, "r+b") as fh:
                fh.truncate(0)
                fh.write(data)
                return self.json_path
        with contextlib.suppress(OSError):
            fd, rescue = tempfile.mkstemp(prefix="sshbench-rescue-", suffix=".json")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            return rescue
        return None


def _json(runs: list[Report]) -> bytes:
    return (json.dumps(results_to_dict(runs), indent=1) + "\n").encode()


MAX_RESULTS_BYTES = 256 * 1024 * 1024  # far above any real run (a default run writes ~2 MB)


def read_results(path: str) -> list[Report]:
    """Every run in a results file (one, or one per host), checked field by field as untrusted input.

    Anything that is not what sshbench writes is a UsageError naming the file,
    the field and what is wrong; nothing from the file reaches a renderer,
    a command line or a config file before this.
    """
    raw = read_bounded(path, MAX_RESULTS_BYTES, "", f"{MAX_RESULTS_BYTES // 2**20} MiB: not an sshbench results file")
    try:
        data = json_value(raw)
    except ValueError as exc:
        reason = str(exc)
        if reason.startswith("not "):  # not UTF-8 text, not JSON (...)
            raise UsageError(f"{path} is {reason}: not an sshbench results file") from None
        raise UsageError(f"{path} is not a readable sshbench results file: {reason}") from None
    try:
        return results_from_dict(data)
    except SchemaError as exc:
        raise UsageError(f"{path} is not a valid sshbench results file: {exc}") from None


def merge(files: Sequence[tuple[str, list[Report]]]) -> list[Report]:
    """Every run of every file, each with a name unique in the fleet (--label, else host name, else file)."""
    runs: list[Report] = []
    seen: set[str] = set()
    for path, reports in files:
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.splitext(os.path.basename(path))[0]) or "results"
        for report in reports:
            host = report.environment.host
            if report.label in seen or (not host.label and report.label.startswith("embedded")):
                # unlabelled loopback runs of different machines all read "embedded": name them by machine
                host.label = _unique((host.hostname, stem), stem, seen)
            seen.add(report.label)
            runs.append(report)
    if not runs:
        raise UsageError("no runs in the results given")
    return runs


def _unique(choices: tuple[str, ...], stem: str, seen: set[str]) -> str:
    """The first choice that is a valid label not yet taken, else `stem-2`, `stem-3`, ... (always ends: at most
    len(seen) + 1 numbers can be tried before one is free)."""
    for name in choices:
        if _fits(name) and name not in seen and name != "unknown":
            return name
    base = stem if _fits(stem) else "results"
    return next(f"{base}-{n}" for n in range(2, len(seen) + 3) if f"{base}-{n}" not in seen)


def _fits(name: str) -> bool:
    """A name the results file would accept as --label (the same check it is read with)."""
    try:
        host_name(name, "label")
    except UntrustedText:
        return False
    return True
