"""What a recommendation says of connection reuse (--commands --reuse): ControlMaster lines only where reusing
the connection was measured significantly faster for every short command measured, and only where they cannot
break a login.

The lines: `ControlMaster auto`, `ControlPath ~/.ssh/cm-%C` and `ControlPersist 60s`. A ControlPath ssh cannot
bind fails every login (exit 255, "unix_listener: cannot bind to path", measured with OpenSSH 9.2), so the
socket goes in ~/.ssh, the directory the config itself lives in, and the lines are written only where this
user's ~/.ssh exists and is writable (a directory of its own would fail every login until someone made it).
%C is a 40-character hash and ssh adds a 17-character temporary suffix while it binds, and a Unix socket's
path holds at most 107 bytes: where this user's home is too long for that, ssh refuses the login ("too long
for Unix domain socket"), so nothing is written and the note says why. The comment says what the socket is
(a login for whoever can reach it: ~/.ssh must stay 0700) and what ControlPersist leaves running.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from sshbench.analysis.commands import command_figures
from sshbench.results.model import Report
from sshbench.vocabulary.case_terms import Relation
from sshbench.vocabulary.commands import socket_path_fits

CONTROL_PATH = "~/.ssh/cm-%C"
HASH = 40  # %C: a SHA-1 in hex
LINES = ("ControlMaster auto", f"ControlPath {CONTROL_PATH}", "ControlPersist 60s")


@dataclass(frozen=True)
class ReuseAdvice:
    lines: tuple[str, ...] = ()  # the Host block's lines (none: not proven, or unsafe here)
    notes: tuple[str, ...] = field(default_factory=tuple)


def reuse_advice(report: Report, home: str | None = None) -> ReuseAdvice:
    reused = [f for f in command_figures(report) if f.reused and f.case.compressor.is_off]
    if not reused:
        return ReuseAdvice()
    faster = [(f, v.ratio) for f in reused if (v := f.versus_fresh) is not None
              and v.relation is Relation.DIFFERENT and v.faster == f.case.id]
    said = "; ".join(f"{f.case.command}{' over ' + f.case.link if f.case.link else ''} {ratio:.1f}x"
                     for f, ratio in faster)
    if len(faster) != len(reused):
        return ReuseAdvice(notes=(f"ControlMaster: not written, reuse was not faster for every short command "
                                  f"measured ({said or 'none'})",))
    home = os.path.expanduser("~") if home is None else home
    directory = os.path.join(home, ".ssh")
    prefix = os.path.join(directory, "cm-")
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK | os.X_OK):
        return ReuseAdvice(notes=(f"ControlMaster: not written, reuse measured faster ({said}), but {directory} is "
                                  "not a directory this user can write, and ssh fails every login whose socket it "
                                  "cannot make",))
    if not socket_path_fits(prefix + "x" * HASH):
        return ReuseAdvice(notes=(f"ControlMaster: not written, reuse measured faster ({said}), but {prefix}%C "
                                  "is too long for a Unix socket here and ssh would refuse every login; set "
                                  "ControlPath to a short private path yourself",))
    return ReuseAdvice(LINES, (f"ControlMaster: reusing the connection measured faster for short commands "
                               f"({said}); its socket in ~/.ssh is a login for whoever can reach it (keep ~/.ssh "
                               "0700), and ControlPersist keeps the connection 60 s after the last command; "
                               "Ansible sets these itself (ssh_args)",))
