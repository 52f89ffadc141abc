"""Errors that end a command, each with the exit code the README documents.

The CLI is the only place that turns these into a message and an exit status;
everything below it raises. Keeping the codes here, next to the exception
types, makes the README table and the code impossible to drift apart unnoticed
(a unit test compares them).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit statuses of `sshbench`; documented in README.md."""

    OK = 0
    SAMPLES_FAILED = 1  # the run finished, but some samples or cases failed
    USAGE = 2  # bad option value, unknown algorithm name, bad size
    MISSING_TOOL = 3  # ssh, sshd or ssh-keygen not installed
    OUTPUT = 4  # results or test files cannot be written where asked (read-only, full disk, bad path)
    SERVER = 5  # the embedded server could not be set up, or a real host not reached in BatchMode
    UNVERIFIED = 6  # a precondition of the measurement could not be verified (e.g. --no-aesni had no effect)
    REGRESSION = 7  # sshbench compare: a significant slowdown beyond --fail-above
    STOPPED = 8  # a fault that would fail every later sample stopped the run; results so far are kept
    EXPOSED = 9  # sshbench recommend: even with the recommended config the connection stays open to Terrapin
    LINK = 10  # --link: an emulated link cannot be made here (not root, no TUN device, no ip command)
    LOCKOUT = 11  # sshbench recommend: the server drop-in would shut out clients that log in today; not written
    OFFERS_WEAK = 12  # sshbench algos HOST: the server offers weak algorithms (--fail-on weak, the default)
    OFFERS_BROKEN = 13  # sshbench algos HOST: it offers broken ones, or is open to Terrapin (--fail-on broken/weak)
    OFFERS_NOTHING = 14  # sshbench algos HOST: a list of its offer is empty, so no client can connect (unless never)
    INTERNAL = 70  # a bug in sshbench (EX_SOFTWARE): one line, no traceback unless SSHBENCH_DEBUG=1
    INTERRUPTED = 130  # Ctrl-C / SIGTERM / SIGHUP; results so far are kept
    OUTPUT_CLOSED = 141  # stdout's reader went away while a run was still measuring (128 + SIGPIPE, as shells say)


class OutputClosed(KeyboardInterrupt):
    """The reader of stdout went away (`sshbench ... | head -1`).

    A KeyboardInterrupt, so a run still measuring ends as an interrupted one
    (its samples kept, status `interrupted`) through the paths every
    interrupt takes; a command whose work is done exits with its own code,
    quietly (cli/__init__.py)."""


class SshbenchError(Exception):
    """A failure the user can fix; `str()` is the one-line message."""

    exit_code: ExitCode = ExitCode.USAGE


class UsageError(SshbenchError):
    exit_code = ExitCode.USAGE


class MissingToolError(SshbenchError):
    exit_code = ExitCode.MISSING_TOOL


class OutputError(SshbenchError):
    exit_code = ExitCode.OUTPUT


class ServerError(SshbenchError):
    exit_code = ExitCode.SERVER


class VerificationError(SshbenchError):
    exit_code = ExitCode.UNVERIFIED


class LinkError(SshbenchError):
    """--link: an emulated link cannot be made here (not root, no TUN device, no ip command)."""

    exit_code = ExitCode.LINK


class RunStopped(SshbenchError):
    """Every later sample would fail the same way (the server went away, say): stop now, keep what we have."""

    exit_code = ExitCode.STOPPED


class NothingMeasured(SshbenchError):
    """The run ended without a single measured sample (e.g. a time budget shorter than the warm-up)."""

    exit_code = ExitCode.SAMPLES_FAILED


class BudgetTooSmall(UsageError):
    """After the warm-up: the time budget cannot give every case the samples an interval needs."""
