"""Where output goes: one convention for every option that names a file or directory.

- An existing directory gets the default file name inside it.
- `-` is standard output where one text output makes sense (Markdown, HTML);
  elsewhere (results files, chart and config directories) it is an error.
- An input of the same command, or any sshbench results file, is never
  overwritten; a results file is never overwritten at all (new runs get
  new names).
- Nothing is ever created in /dev. An existing device or FIFO (/dev/null,
  /dev/stdout) takes a single text output as a stream; /dev/full fails
  cleanly like any full disk.
- Regular files are written atomically (temp file + rename), so a reader
  never sees half a file and a failure leaves the old one.

Every refusal is an OutputError (exit 4) naming the path and the fix.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sshbench.vocabulary.errors import OutputError

STDOUT = "-"
_RESULTS_MARK = b'"schema": "sshbench/'


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


def is_results_file(path: str) -> bool:
    """An sshbench results JSON (its schema marker near the top), which no output may overwrite."""
    try:
        with open(path, "rb") as fh:
            return _RESULTS_MARK in fh.read(4096)
    except OSError:
        return False


def in_dev(path: str) -> bool:
    real = os.path.realpath(path)
    return real == "/dev" or real.startswith("/dev/")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


@dataclass(frozen=True)
class Output:
    """A resolved output: standard output, a stream (device or FIFO), or a regular file written atomically."""

    path: str  # "-" for standard output
    option: str  # the option that named it, for messages

    @property
    def is_stdout(self) -> bool:
        return self.path == STDOUT

    def write(self, data: str | bytes) -> None:
        raw = data.encode() if isinstance(data, str) else data
        if self.is_stdout:
            sys.stdout.flush()
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
            return
        try:
            if os.path.exists(self.path) and not os.path.isfile(self.path):
                with open(self.path, "wb") as fh:  # a device or FIFO: a stream, no temp file beside it
                    fh.write(raw)
                return
            atomic_write(self.path, raw)
        except OSError as exc:
            raise OutputError(f"cannot write {self.path} ({self.option}): {exc.strerror or exc}; "
                              "choose a writable path") from None


_HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


class Held:
    """The main thread's signals_held() depth, and an interrupt that arrived meanwhile: Python runs a signal's
    handler in the main thread whichever thread the kernel gave the signal to, so a mask on the main thread alone
    does not hold it where other threads run (a SIGINT at 2.05 s left a `.sshbench-*.tmp` behind, one try in
    forty). The handler (plumbing/signals.py) asks `defer()` and, while held, leaves the raise to the block's end."""

    depth = 0
    pending = False

    @classmethod
    def defer(cls) -> bool:
        if cls.depth > 0 and threading.current_thread() is threading.main_thread():
            cls.pending = True
            return True
        return False


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait (they are not lost) until the block ends.

    Around a temp file's life: an interrupt between mkstemp() returning and the
    cleanup being armed would leave a `.sshbench-*.tmp` beside the user's files.
    The blocks are one small write each, so the wait is not noticeable."""
    main = threading.current_thread() is threading.main_thread()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    if main:
        Held.depth += 1
    try:
        yield
    finally:
        if main:
            Held.depth -= 1
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        if main and Held.depth == 0 and Held.pending:
            Held.pending = False
            raise KeyboardInterrupt  # the interrupt that arrived in the block, now that it is over


def temp_beside(directory: str) -> tuple[int, str]:
    """A new temp file in `directory` (call inside signals_held()), with ordinary file permissions."""
    fd, tmp = tempfile.mkstemp(prefix=".sshbench-", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; outputs are ordinary files
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    return fd, tmp


def atomic_write(path: str, data: bytes) -> None:
    """Write `path` whole or not at all: a temp file in the same directory, then rename over it."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with signals_held():
        fd, tmp = temp_beside(directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def text_output(given: str, option: str, default_name: str, inputs: Iterable[str] = (),
                stdout_ok: bool = True) -> Output:
    """Resolve a file option (--html, --markdown ...) by the convention above."""
    if given == STDOUT:
        if not stdout_ok:
            raise OutputError(f"{option} cannot be '-' (standard output): give a file name")
        return Output(STDOUT, option)
    if not given.strip():
        raise OutputError(f"{option} is empty: give a file name, or '-' for standard output")
    path = os.path.join(given, default_name) if os.path.isdir(given) else given
    if os.path.exists(path) and not os.path.isfile(path):
        if _is_stream(path):
            return Output(path, option)  # /dev/null, /dev/stdout, a terminal, a FIFO: written as a stream
        raise OutputError(f"{option} {path}: not a regular file; give a file name")
    _refuse_special(path, option, inputs)
    return Output(path, option)


# Character devices a text output may be streamed to: /dev/null, /dev/full (fails like a full disk),
# /dev/tty and pseudo-terminals. Never a disk or any other device, even as root.
_STREAM_DEVICES = {(1, 3), (1, 7), (5, 0)}
_PTY_MAJORS = range(136, 144)


def _is_stream(path: str) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    if stat.S_ISFIFO(info.st_mode):
        return True
    device = (os.major(info.st_rdev), os.minor(info.st_rdev))
    return stat.S_ISCHR(info.st_mode) and (device in _STREAM_DEVICES or device[0] in _PTY_MAJORS)


def _refuse_special(path: str, option: str, inputs: Iterable[str]) -> None:
    if in_dev(path):
        raise OutputError(f"{option} {path}: sshbench never creates files in /dev; give a path elsewhere")
    for source in inputs:
        if os.path.exists(path) and _same_file(path, source):
            raise OutputError(f"{option} {path} is an input of this command; it would be overwritten: "
                              "give another file name")
    if os.path.isfile(path) and is_results_file(path):
        raise OutputError(f"{option} {path} is an sshbench results file; it would be overwritten: "
                          "give another file name")


def output_dir(given: str, option: str) -> str:
    """A directory option (--charts, --write): created if missing; never '-', a file, or inside /dev."""
    if given == STDOUT or not given.strip():
        raise OutputError(f"{option} needs a directory name (it writes several files)")
    if in_dev(given):
        raise OutputError(f"{option} {given}: sshbench never creates files in /dev; give a directory elsewhere")
    if os.path.exists(given) and not os.path.isdir(given):
        raise OutputError(f"{option} {given} exists and is not a directory; give a directory name")
    try:
        os.makedirs(given, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create {given} ({option}): {exc.strerror or exc}; choose a writable "
                          "place") from None
    return given


def file_in(directory: str, name: str, option: str) -> Output:
    """A file inside an output directory; never an sshbench results file."""
    path = os.path.join(directory, name)
    _refuse_special(path, option, ())
    if os.path.exists(path) and not os.path.isfile(path):
        raise OutputError(f"{option}: {path} exists and is not a regular file; remove it or choose another "
                          "directory")
    return Output(path, option)


def safe_name(label: str) -> str:
    """A host label as a file or directory name: letters, digits, dot, dash, underscore; never "." or ".."."""
    name = "".join(ch if ch.isalnum() or ch in ".-_" else "_" for ch in label).lstrip(".")
    return name or "host"


def unique_names(names: list[str]) -> list[str]:
    """File or directory names made unique in order (`a`, `a-2`, `a-3`): two labels that safe_name maps to
    one name (`fe80::1` and `fe80__1`) must not write over each other's files."""
    taken: set[str] = set()
    out = []
    for name in names:
        candidate, n = name, 1
        while candidate.lower() in taken:  # case-insensitive: some filesystems are
            n += 1
            candidate = f"{name}-{n}"
        taken.add(candidate.lower())
        out.append(candidate)
    return out
