"""sshd's privilege-separation directory when sshbench runs as root, shared safely between runs.

sshd started by root insists on an empty, root-owned directory compiled into
it (/run/sshd on Debian), which exists only while the system's sshd service
runs. sshbench creates it when it is missing. Several sshbench runs may use
it at once, so none may remove it while another still needs it (two runs as
root used to race here: the first to finish removed it and most of the
second run's samples failed).

The protocol:
- every run holds a shared flock on the directory for as long as its
  servers run, and checks it locked the directory that is in place;
- sshbench creates the directory with mode 0711, its marker; one with any
  other mode (Debian's service makes it 0755) is the system's and is never
  removed;
- at the end, a run removes the directory only if it carries the marker and
  the run can take an exclusive lock on it, that is, no other run holds it.
A run that crashes drops its lock with its process; the next run to finish
removes the directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat

from sshbench.vocabulary.errors import ServerError

PRIVSEP_DIR = "/run/sshd"  # Debian's compiled-in privilege separation dir
OURS = 0o711  # sshd accepts it (no group/other write); Debian's own is 0755
_ATTEMPTS = 20


class PrivsepDir:
    """Hold /run/sshd for the life of a server; `release()` removes it when sshbench made it and is last."""

    def __init__(self, path: str = PRIVSEP_DIR, needed: bool | None = None) -> None:
        """`needed`: whether sshd will want the directory (default: when running as root)."""
        self.path = path
        self.needed = os.geteuid() == 0 if needed is None else needed
        self._fd: int | None = None

    def acquire(self) -> None:
        """No-op unless needed. Raises ServerError when the directory cannot be made."""
        if not self.needed:
            return
        for _ in range(_ATTEMPTS):
            try:
                os.mkdir(self.path, OURS)
                os.chmod(self.path, OURS)  # the umask may have cleared bits; the mode is the marker
            except FileExistsError:
                pass
            except OSError as exc:
                raise ServerError(f"sshd run as root needs {self.path} and it cannot be created: "
                                  f"{exc.strerror}") from None
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
            except FileNotFoundError:
                continue  # removed by a finishing run between our mkdir and open: try again
            fcntl.flock(fd, fcntl.LOCK_SH)
            if self._is(fd):
                self._fd = fd
                return
            os.close(fd)  # we locked a directory that was removed meanwhile: try again
        raise ServerError(f"could not hold {self.path} (other sshbench runs keep removing and creating it); "
                          "try again")

    def _is(self, fd: int) -> bool:
        """The locked directory is still the one at the path."""
        try:
            here = os.stat(self.path)
        except FileNotFoundError:
            return False
        locked = os.fstat(fd)
        return (here.st_dev, here.st_ino) == (locked.st_dev, locked.st_ino)

    def __enter__(self) -> PrivsepDir:
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()

    def release(self) -> None:
        """Idempotent. Removes the directory only if sshbench made it and no other run holds it."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if stat.S_IMODE(os.fstat(fd).st_mode) != OURS:
                return  # the system's: never ours to remove
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # converts our shared lock: fails if shared
            except BlockingIOError:
                return  # another run still uses it; the last one out removes it
            if self._is(fd):
                with contextlib.suppress(OSError):
                    os.rmdir(self.path)
        finally:
            os.close(fd)
