"""The leader program: starts the processes of one transfer in a session of its own, waits for them, says how
each ended (plumbing/leader.py is sshbench's side, and says why this exists).

Run as `python -I -S leader_main.py FD`, FD a SOCK_SEQPACKET socket to sshbench, already the leader of a new
session (sshbench starts it so). Each message from sshbench is one JSON request with the child's stdin, stdout
and stderr attached (SCM_RIGHTS): {"argv": [...], "env": {...}}. The child starts in a process group of its
own inside this session (one killpg ends it and what it started), and the answer is {"pid": N} or
{"error": "..."}. When a child ends, {"ended": N, "status": S, "usage": [16 rusage fields]} follows, from
wait4, so its CPU time is exact. On EOF (sshbench done, failed or killed) every child still running is
killed and reaped, and the leader exits: nothing outlives the socket.

Standard library only, no sshbench import: it starts in about 20 ms without the site packages.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys

MAX_MESSAGE = 1 << 20  # an argv and environment of a few kB; a megabyte is far beyond any real one
FDS_PER_CHILD = 3
# What a child gets back, as subprocess restores them (Python ignores them from its start); and SIGINT where it
# was not ignored when sshbench started us (a run under nohup keeps it ignored in its children, as before)
RESTORED = [signal.SIGPIPE, signal.SIGXFSZ]


def _send(sock: socket.socket, message: dict[str, object]) -> None:
    sock.send(json.dumps(message).encode())


def _start(request: dict[str, object], fds: list[int]) -> int:
    argv = request["argv"]
    env = request["env"]
    if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv) and isinstance(env, dict)):
        raise ValueError("a request needs argv (a list of strings) and env")
    actions = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)]
    return os.posix_spawnp(argv[0], argv, {str(k): str(v) for k, v in env.items()}, file_actions=actions,
                           setpgroup=0, setsigdef=RESTORED)


def _ended(sock: socket.socket, pid: int) -> None:
    _, status, usage = os.wait4(pid, 0)
    _send(sock, {"ended": pid, "status": status, "usage": list(usage)})


def _end_all(children: dict[int, int]) -> None:
    for pid in children.values():
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    while children:
        pidfd, pid = children.popitem()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        os.close(pidfd)


def serve(sock: socket.socket, children: dict[int, int]) -> None:
    """Start what is asked, report what ends (`children`: pidfd -> pid, those running), until sshbench closes
    its end."""
    poll = select.poll()
    poll.register(sock, select.POLLIN)
    while True:
        for fd, _ in poll.poll():
            if fd in children:
                poll.unregister(fd)
                _ended(sock, children.pop(fd))
                os.close(fd)
                continue
            message, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, FDS_PER_CHILD, socket.MSG_CMSG_CLOEXEC)
            if not message:
                return
            try:
                if len(fds) != FDS_PER_CHILD:
                    raise ValueError(f"{len(fds)} descriptors came with a request, {FDS_PER_CHILD} are needed")
                pid = _start(json.loads(message), fds)
            except (OSError, ValueError) as exc:
                _send(sock, {"error": f"{type(exc).__name__}: {exc}"})
                continue
            finally:
                for received in fds:
                    os.close(received)
            pidfd = os.pidfd_open(pid)
            children[pidfd] = pid
            poll.register(pidfd, select.POLLIN)
            _send(sock, {"pid": pid})


def main() -> None:
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        RESTORED.append(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # sshbench ends us by closing the socket, after its own cleanup
    sock = socket.socket(fileno=int(sys.argv[1]))
    sock.set_inheritable(False)
    children: dict[int, int] = {}
    try:
        serve(sock, children)
    except (BrokenPipeError, ConnectionResetError):  # sshbench is gone
        pass
    finally:
        _end_all(children)  # whatever still runs when the socket closes: sshbench has no use for it


if __name__ == "__main__":
    main()
