"""sshd's privilege-separation directory when sshbench runs as root, without touching the system's /run.

sshd started by root insists on an empty, root-owned directory compiled into
it (/run/sshd on Debian, and in sshbench's own builds), which exists only
while the system's sshd service runs; `sshd -t` and `sshd -T` insist too.
sshbench used to create it and remove it at the end when no other sshbench
run held it, and so removed it from under a system sshd started meanwhile
(`service ssh start` keeps an existing /run/sshd as it is), which then
refused every login ("Missing privilege separation directory"). Nothing may
depend on sshbench being the only user of a system path, so:

- **The system's directory, where it is one** (a real directory, owned by
  root, writable by nobody else): used as it is; never created, changed or
  removed.
- **Otherwise, a mount namespace of sshbench's own** (needs CAP_SYS_ADMIN
  and util-linux's unshare and nsenter, which root on Debian has): a holder
  process (`unshare --mount --propagation slave`: its own mounts never
  leave it; the system's later ones reach it only where the system's
  mounts are shared, so a disk mounted after it started may be unseen by
  its sshd) lays an overlay over /run whose upper layer is a tmpfs of its
  own, makes /run/sshd there, and
  waits on a pipe from sshbench. Every sshd sshbench runs enters it
  (`nsenter --mount`, which execs in the same process: wait4 still gives
  sshd's own CPU, nsenter's exec included, about 1-3 ms). The system's /run
  is never written: what sshd and its sessions write there stays in the
  overlay, and goes when the holder's pipe closes (at the end, or when
  sshbench dies however it dies) and the last sshd in it ends. Where an
  overlay cannot be mounted, a tmpfs over /run serves (sshd needs nothing
  else there). What its sessions see of /run differs: mounts under the
  system's /run (/run/user/UID, /run/netns/*, /run/lock) are hidden by the
  overlay, and a file there through it is another inode, so its flocks
  never meet the system's; a sweep by an sshbench started through it
  believes only the lock file its record names (plumbing/sweep.py).
- **Where no namespace can be had**, the protocol of old, made safe: every
  run holds a shared flock on a directory it made with mode 0711 (its
  marker), and the last one out removes it, but never one that another
  process (not sshbench's) is chrooted in or has as its working directory,
  nor while an sshd pid file names a live process.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import subprocess

from sshbench.plumbing.procs import kill_group, spawn
from sshbench.plumbing.runs import private_dir
from sshbench.vocabulary.errors import ServerError

PRIVSEP_DIR = "/run/sshd"  # Debian's compiled-in privilege separation dir (and --with-privsep-path of our builds)
OURS = 0o711  # the fallback's marker: sshd accepts it (no group/other write); Debian's own is 0755
PID_FILES = ("/run/sshd.pid", "/var/run/sshd.pid")  # a system sshd's, while it runs
_ATTEMPTS = 20
HOLDER_SECONDS = 10.0
# The holder: overlay (upper and work dirs on a tmpfs of its own, so any TMPDIR serves) or tmpfs over /run, a
# fresh /run/sshd in it (a file or a foreign directory there is hidden, not removed), then wait for sshbench's pipe
_HOLDER = r"""set -e
D=$1
mount -t tmpfs -o mode=0700,size=4m sshbench-privsep "$D"
mkdir "$D/upper" "$D/work"
mount -t overlay -o lowerdir=/run,upperdir="$D/upper",workdir="$D/work" sshbench-run /run 2>/dev/null ||
    mount -t tmpfs -o mode=0755,size=4m sshbench-run /run
rm -rf /run/sshd
mkdir -m 0755 /run/sshd
echo ready
exec cat >/dev/null
"""


def usable_as_is(path: str) -> bool:
    """A privilege-separation directory sshd accepts and that is the system's to keep: a real directory (not a
    symlink), root's, writable by no one else."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == 0 and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            and stat.S_IMODE(st.st_mode) != OURS)  # the fallback's own: held by its flock protocol, not as-is


class PrivsepDir:
    """/run/sshd for the life of a server: `wrap(argv)` runs an sshd where it has one. `release()` undoes
    whatever `acquire()` did, and nothing else."""

    def __init__(self, path: str = PRIVSEP_DIR, needed: bool | None = None, namespace: bool = True) -> None:
        """`needed`: whether sshd will want the directory (default: when running as root); `namespace=False`: the
        fallback protocol only (its tests)."""
        self.path = path
        self.needed = os.geteuid() == 0 if needed is None else needed
        self.namespace = namespace and path == PRIVSEP_DIR
        self.how = "none"  # none | system | namespace | shared
        self._fd: int | None = None
        self._holder: subprocess.Popen[bytes] | None = None
        self._holder_dir: str | None = None

    def acquire(self) -> None:
        """No-op unless needed. Raises ServerError when no directory can be had."""
        if not self.needed or self.how != "none":
            return
        if usable_as_is(self.path):
            self.how = "system"
            return
        if self.namespace and self._hold_namespace():
            self.how = "namespace"
            return
        self._acquire_shared()
        self.how = "shared"

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` (an sshd's) as it must run to see the directory: inside the namespace where there is one."""
        if self.how != "namespace" or self._holder is None:
            return argv
        nsenter = shutil.which("nsenter") or "nsenter"
        return [nsenter, f"--mount=/proc/{self._holder.pid}/ns/mnt", "--", *argv]

    def _hold_namespace(self) -> bool:
        """Start the holder; False where this machine cannot give sshbench a mount namespace (then the fallback)."""
        unshare, nsenter = shutil.which("unshare"), shutil.which("nsenter")
        if unshare is None or nsenter is None:
            return False
        self._holder_dir = private_dir("sshbench-privsep-")
        try:
            holder = spawn([unshare, "--mount", "--propagation", "slave", "--", "sh", "-c", _HOLDER, "sh",
                            self._holder_dir], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        except OSError:
            self._remove_holder_dir()
            return False
        self._holder = holder
        ready = b""
        with contextlib.suppress(OSError, ValueError):
            assert holder.stdout is not None
            ready = holder.stdout.readline()  # bounded: the script either mounts and says so, or exits
        if ready.strip() != b"ready":
            self._stop_holder()
            return False
        return True

    def _acquire_shared(self) -> None:
        for _ in range(_ATTEMPTS):
            if os.path.lexists(self.path) and (not os.path.isdir(self.path) or os.path.islink(self.path)
                                               or stat.S_IMODE(os.lstat(self.path).st_mode) != OURS
                                               or os.lstat(self.path).st_uid != os.geteuid()):
                raise ServerError(f"sshd run as root needs {self.path} as a root-owned directory that no one else "
                                  "may write, and it is not one; sshbench never changes or removes it (no mount "
                                  "namespace could be had here to hide it): fix or remove it, or run sshbench where "
                                  "it may unshare a mount namespace")
            try:
                os.mkdir(self.path, OURS)
                os.chmod(self.path, OURS)  # the umask may have cleared bits; the mode is the marker
            except FileExistsError:
                pass
            except OSError as exc:
                raise ServerError(f"sshd run as root needs {self.path} and it cannot be created: "
                                  f"{exc.strerror}") from None
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            except FileNotFoundError:
                continue  # removed by a finishing run between our mkdir and open: try again
            except OSError as exc:
                raise ServerError(f"sshd run as root needs {self.path} as a directory: {exc.strerror}") from None
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
        """Idempotent. The namespace ends with its holder; the fallback's directory is removed only if sshbench
        made it, no other run holds it, and nothing else uses it."""
        how, self.how = self.how, "none"
        if how == "namespace":
            self._stop_holder()
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if stat.S_IMODE(os.fstat(fd).st_mode) != OURS or os.fstat(fd).st_uid != os.geteuid():
                return  # the system's, or made by someone else: never ours to remove
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # converts our shared lock: fails if shared
            except BlockingIOError:
                return  # another run still uses it; the last one out removes it
            if self._is(fd) and not in_use_elsewhere(self.path):
                with contextlib.suppress(OSError):
                    os.rmdir(self.path)
        finally:
            os.close(fd)

    def _stop_holder(self) -> None:
        holder, self._holder = self._holder, None
        if holder is not None:
            for pipe in (holder.stdin, holder.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
            try:
                holder.wait(timeout=HOLDER_SECONDS)
            except subprocess.TimeoutExpired:
                kill_group(holder.pid, 9)
                holder.wait()
        self._remove_holder_dir()

    def _remove_holder_dir(self) -> None:
        if self._holder_dir is not None:  # outside the namespace only the run's mark is in it (its tmpfs was
            shutil.rmtree(self._holder_dir, ignore_errors=True)  # mounted only inside): ours either way
            self._holder_dir = None


def in_use_elsewhere(path: str) -> bool:
    """Whether a process other than this one is chrooted in `path` or works in it (sshd's pre-auth children
    chroot there), or a system sshd's pid file names a live process: then the directory is not sshbench's to
    remove, whoever made it."""
    for pid_file in PID_FILES:
        with contextlib.suppress(OSError, ValueError), open(pid_file, encoding="ascii") as fh:
            if os.path.exists(f"/proc/{int(fh.read().strip())}"):
                return True
    try:
        target = os.stat(path)
    except OSError:
        return False
    for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
        for link in ("root", "cwd"):
            with contextlib.suppress(OSError):
                seen = os.stat(f"/proc/{pid}/{link}")
                if (seen.st_dev, seen.st_ino) == (target.st_dev, target.st_ino):
                    return True
    return False
